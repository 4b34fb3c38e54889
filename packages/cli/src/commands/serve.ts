/**
 * `ipintel serve`: runs the HTTP API of @ipintel/server until SIGINT or
 * SIGTERM, then closes it (requests in flight are answered) and exits 0.
 *
 * Every flag is one row of SERVE_FLAGS: its help, how its value is read, and
 * the `StartOptions` field it sets. Adding a server option to the command is
 * adding a row. @ipintel/server is loaded only when the command runs.
 *
 * @module
 */
import { resolve } from 'node:path';
import { defaultSnapshotPath } from '@ipintel/core';
import type { StartOptions } from '@ipintel/server';
import { HELP_FLAG, type FlagSpec, type ParsedArgs } from '../args.js';
import { CliError, EXIT_OK } from '../errors.js';
import { interruption, type CliIo } from '../io.js';
import { parseDuration, parsePort } from '../values.js';
import type { Command } from './command.js';
import { loadServer } from './load.js';

/** Writable StartOptions fields (the table below names them). */
type Field = { -readonly [K in keyof StartOptions]: StartOptions[K] };

interface ServeFlag<K extends keyof Field = keyof Field> {
  readonly flag: string;
  readonly spec: Omit<FlagSpec, 'type'>;
  readonly field: K;
  /** Reads the flag's text (throw UsageError for a bad value); default: the text itself. */
  readonly read?: (text: string, flag: string) => Field[K];
}

/** One row, its value type checked against its field. */
const row = <K extends keyof Field>(r: ServeFlag<K>): ServeFlag<K> => r;

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** Flag -> StartOptions field. One row per flag; the help and the parsing come from here. */
export const SERVE_FLAGS: readonly ServeFlag[] = [
  row({ flag: 'port', field: 'port', spec: { value: 'N', description: 'Port (default 8080, or $PORT; 0 picks a free one).' }, read: (t, f) => parsePort(t, f, 'serve') }),
  row({ flag: 'host', field: 'host', spec: { value: 'ADDR', description: 'Interface to listen on (default 127.0.0.1; 0.0.0.0 for all).' } }),
  row({
    flag: 'snapshot',
    field: 'snapshotPath',
    spec: { value: 'PATH', description: 'Snapshot to serve (default $IPINTEL_SNAPSHOT, else the default snapshot that `ipintel build` writes).' },
    read: (t) => resolve(t),
  }),
  row({
    flag: 'store',
    field: 'store',
    spec: { value: 'SPEC', description: 'sqlite:PATH or redis://HOST:PORT[/DB] (default $IPINTEL_STORE, else sqlite:$XDG_DATA_HOME/ipintel/store.sqlite, the store `ipintel keys` uses).' },
  }),
  row({
    flag: 'activation-delay',
    field: 'activationDelayMs',
    spec: { value: 'D', description: 'Time from key creation to activation: 60, 60s, 500ms, 2m (default 60s).' },
    read: (t, f) => parseDuration(t, f, 'serve'),
  }),
  row({ flag: 'base-url', field: 'baseUrl', spec: { value: 'URL', description: 'Public URL of this server, for attribution links.' } }),
  row({ flag: 'log-level', field: 'logLevel', spec: { value: 'LEVEL', choices: LOG_LEVELS, description: 'Access and operator log level (default info).' } }),
];

/** StartOptions from the parsed flags (defaults the server does not know: $PORT, the snapshot path). */
export function startOptions(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): Field {
  const options: Partial<Record<keyof Field, unknown>> = {};
  for (const r of SERVE_FLAGS) {
    const text = args.flags[r.flag];
    if (typeof text === 'string') options[r.field] = r.read === undefined ? text : r.read(text, `--${r.flag}`);
  }
  if (options.port === undefined) options.port = parsePort(env['PORT'] ?? '8080', '$PORT', 'serve');
  options.host ??= '127.0.0.1';
  options.snapshotPath ??= defaultSnapshotPath();
  return options as Field;
}

async function run(args: ParsedArgs, io: CliIo): Promise<number> {
  const options = startOptions(args);
  const server = await loadServer('serve');
  options.store ??= server.defaultStoreSpec();
  // Listen for the stop before starting, so a signal during start-up is not lost.
  const interrupt = interruption(io);
  try {
    let running;
    try {
      running = await server.startServer(options);
    } catch (e) {
      throw new CliError(`could not start: ${(e as Error).message}`, 1);
    }
    io.stderr.write(`ipintel serving on ${running.url} (snapshot ${options.snapshotPath}, store ${running.store.location})\n`);
    if (running.app.snapshot.current === undefined) {
      io.stderr.write(`ipintel serve: warning: no snapshot loaded yet from ${options.snapshotPath}; lookups answer 503 until the file appears\n`);
    }
    await interrupt.signal;
    io.stderr.write('ipintel serve: stopping\n');
    await running.close();
    return EXIT_OK;
  } finally {
    interrupt.dispose();
  }
}

export const serveCommand: Command = {
  summary: 'Run the HTTP API (GET /v1/check, POST /v1/check/batch).',
  usage: 'ipintel serve [--port N] [--host ADDR] [--snapshot PATH] [--store SPEC] [flags]',
  details: [
    'Serves the HTTP API (GET /v1/check, POST /v1/check/batch, /healthz, /attribution,',
    '/v1/openapi.json) until Ctrl-C or SIGTERM, then answers the requests in flight and exits 0.',
    'A replaced snapshot file is loaded without a restart (also on SIGHUP). Access logs go to',
    'stdout as JSON lines; messages for the operator go to stderr. Exit code 1 when the server',
    'cannot start (port taken, bad store), 2 for a usage error. See docs/api.md.',
  ].join('\n'),
  examples: [
    'ipintel keys create --plan free        # prints the key once',
    'ipintel serve --port 8080',
    'curl -H "x-api-key: ipi_live_..." "http://localhost:8080/v1/check?ip=8.8.8.8"',
  ],
  spec: {
    name: 'serve',
    positionals: { min: 0, max: 0, name: '' },
    flags: { ...Object.fromEntries(SERVE_FLAGS.map((r) => [r.flag, { type: 'string', ...r.spec }])), help: HELP_FLAG },
  },
  run,
};
