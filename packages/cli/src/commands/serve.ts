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
import { CliError, EXIT_OK, UsageError } from '../errors.js';
import { interruption, type CliIo } from '../io.js';
import { parseCount, parseDuration, parseList, parsePort } from '../values.js';
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
  /** A flag without a value (`--no-rate-limit`): the value it sets. */
  readonly set?: Field[K];
}

/** One row, its value type checked against its field. */
const row = <K extends keyof Field>(r: ServeFlag<K>): ServeFlag<K> => r;

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** A duration of at least 1 ms (a timeout of 0 would refuse every request). */
const timeout = (t: string, f: string): number => {
  const ms = parseDuration(t, f, 'serve');
  if (ms < 1) throw new UsageError(`${f} takes a duration of at least 1ms (got ${JSON.stringify(t)})`, 'serve');
  return ms;
};
const count = (t: string, f: string): number => parseCount(t, f, 'serve');

/** Flag -> StartOptions field. One row per flag; the help, the parsing and docs/cli.md's table come from here. */
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
  row({ flag: 'no-rate-limit', field: 'rateLimit', set: false, spec: { description: "Turn the plans' per-second limits off (quotas still count)." } }),
  row({
    flag: 'cors-origin',
    field: 'corsOrigins',
    spec: { value: 'ORIGINS', description: 'Origins browsers may call from, comma-separated (https://app.example.com), or * for any (default none).' },
    read: (t, f) => parseList(t, f, 'serve'),
  }),
  row({
    flag: 'trust-proxy',
    field: 'trustProxy',
    spec: { value: 'HOPS|ADDRS', description: 'Proxies whose X-Forwarded-For names the client: a number of hops, or addresses, CIDR blocks, loopback, private, comma-separated (default none).' },
    read: (t, f) => (/^\d+$/.test(t) ? parseCount(t, f, 'serve', 0) : parseList(t, f, 'serve')),
  }),
  row({
    flag: 'demo-quota',
    field: 'demoQuota',
    spec: { value: 'N', description: 'Lookups per client address per day served without a key (IPv6 per /64), for the web page at / (default none: a key is required).' },
    read: count,
  }),
  row({ flag: 'no-page', field: 'page', set: false, spec: { description: 'Do not serve the web page at / (the API is unchanged).' } }),
  row({ flag: 'headers-timeout', field: 'headersTimeoutMs', spec: { value: 'D', description: 'Time to receive a request\'s headers, then 408 (default 10s).' }, read: timeout }),
  row({ flag: 'request-timeout', field: 'requestTimeoutMs', spec: { value: 'D', description: 'Time to receive a whole request, then 408 (default 30s).' }, read: timeout }),
  row({ flag: 'keep-alive-timeout', field: 'keepAliveTimeoutMs', spec: { value: 'D', description: 'How long an idle keep-alive connection is kept (default 5s).' }, read: timeout }),
  row({ flag: 'drain-timeout', field: 'drainTimeoutMs', spec: { value: 'D', description: 'On stop, how long requests in flight may take before their connections are cut (default 10s).' }, read: timeout }),
  row({ flag: 'store-timeout', field: 'storeTimeoutMs', spec: { value: 'D', description: 'Longest a request waits for each store call, then 503 and nothing counted (default 1s).' }, read: timeout }),
  row({ flag: 'max-connections', field: 'maxConnections', spec: { value: 'N', description: 'Open connections at most; more are closed as they arrive (default 1024).' }, read: count }),
  row({ flag: 'max-header-bytes', field: 'maxHeaderBytes', spec: { value: 'N', description: 'Largest request head, bytes; larger is a 431 (default 16384).' }, read: count }),
  row({ flag: 'max-headers', field: 'maxHeaders', spec: { value: 'N', description: 'Most header fields in a request; more is a 431 (default 100).' }, read: count }),
  row({ flag: 'max-body-bytes', field: 'maxBodyBytes', spec: { value: 'N', description: 'Largest request body, bytes, read once the key is accepted; larger is a 413 (default 65536).' }, read: count }),
  row({
    flag: 'max-body-before-auth',
    field: 'maxBodyBeforeAuthBytes',
    spec: { value: 'N', description: 'Most bytes of a body read for a request answered without it (bad key, 404...) before closing (default 16384).' },
    read: (t, f) => parseCount(t, f, 'serve', 0),
  }),
];

/** StartOptions from the parsed flags (defaults the server does not know: $PORT, the snapshot path). */
export function startOptions(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): Field {
  const options: Partial<Record<keyof Field, unknown>> = {};
  for (const r of SERVE_FLAGS) {
    const text = args.flags[r.flag];
    if (text === true) options[r.field] = r.set;
    else if (typeof text === 'string') options[r.field] = r.read === undefined ? text : r.read(text, `--${r.flag}`);
  }
  if (options.port === undefined) options.port = parsePort(env['PORT'] ?? '8080', '$PORT', 'serve');
  options.host ??= '127.0.0.1';
  options.snapshotPath ??= defaultSnapshotPath();
  return options as Field;
}

/**
 * The server's TypeError for a value it refuses (`trustProxy: "x" is not an address...`,
 * `headersTimeoutMs (...) must not be larger than requestTimeoutMs (...)`), as a usage error
 * that names the flags instead of the fields.
 */
function flagError(e: unknown): UsageError | undefined {
  if (!(e instanceof TypeError)) return undefined;
  const flagOf = new Map(SERVE_FLAGS.map((r) => [r.field as string, `--${r.flag}`]));
  const first = /^(\w+)(?=:| must| \()/.exec(e.message)?.[1];
  if (first === undefined || !flagOf.has(first)) return undefined;
  return new UsageError(e.message.replace(/\b[a-z]+[A-Z]\w*\b/g, (w) => flagOf.get(w) ?? w), 'serve');
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
      // The io clock (tests') is the server's: what it counts quotas by and judges ages against.
      running = await server.startServer(io.now === undefined ? options : { ...options, now: io.now });
    } catch (e) {
      throw flagError(e) ?? new CliError(`could not start: ${(e as Error).message}`, 1);
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
    '/v1/openapi.json) and a web page at / until Ctrl-C or SIGTERM, then answers the requests',
    'in flight and exits 0.',
    'A replaced snapshot file is loaded without a restart (also on SIGHUP). Access logs go to',
    'stdout as JSON lines; messages for the operator go to stderr. Exit code 1 when the server',
    'cannot start (port taken, bad store), 2 for a usage error. D is a duration: 60 (seconds),',
    '60s, 500ms, 2m. Limits, proxies and CORS: docs/api.md, Running the server.',
  ].join('\n'),
  examples: [
    'ipintel keys create --plan free        # prints the key once',
    'ipintel serve --port 8080',
    'ipintel serve --demo-quota 50          # the page at / works without a key, 50 lookups/day per address',
    'curl -H "x-api-key: ipi_live_..." "http://localhost:8080/v1/check?ip=8.8.8.8"',
  ],
  spec: {
    name: 'serve',
    positionals: { min: 0, max: 0, name: '' },
    flags: { ...Object.fromEntries(SERVE_FLAGS.map((r) => [r.flag, { type: r.set === undefined ? 'string' : 'boolean', ...r.spec }])), help: HELP_FLAG },
  },
  run,
};
