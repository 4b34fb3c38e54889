/**
 * `ipintel serve`: runs the HTTP API until SIGINT/SIGTERM (or io.signal).
 * Flags: --port, --host, --snapshot, --store, --activation-delay, --base-url,
 * --log-level, --help. Access logs go to stdout as JSON lines; messages for
 * the operator go to stderr.
 *
 * @module
 */
import { defaultSnapshotPath } from '@ipintel/core';
import { startServer } from '../standalone.js';
import { defaultStoreSpec } from '../store/open.js';
import { parseDuration, parseFlags, parsePort, str, UsageError, USAGE_ERROR, write, type CommandIO, type ParsedFlags } from './args.js';

export const SERVE_HELP = `Usage: ipintel serve [options]

Serves the HTTP API (GET /v1/check, POST /v1/check/batch, /healthz, /attribution,
/v1/openapi.json). A replaced snapshot file is loaded without a restart (also on SIGHUP).

Options:
  --port N               port (default 8080, or $PORT)
  --host ADDR            interface to listen on (default 127.0.0.1; 0.0.0.0 for all)
  --snapshot PATH        snapshot to serve (default $IPINTEL_SNAPSHOT, else the
                         default snapshot that \`ipintel build\` writes)
  --store SPEC           sqlite:PATH or redis://HOST:PORT[/DB] (default $IPINTEL_STORE,
                         else sqlite:$XDG_DATA_HOME/ipintel/store.sqlite, the same
                         store \`ipintel keys\` uses)
  --activation-delay D   time from key creation to activation: 60, 60s, 500ms, 2m
                         (default 60s)
  --base-url URL         public URL of this server, for attribution links
  --log-level LEVEL      trace, debug, info (default), warn, error or silent
  -h, --help             show this help

Example:
  ipintel keys create --plan free        # prints the key once
  ipintel serve --port 8080
  curl -H "x-api-key: ipi_live_..." "http://localhost:8080/v1/check?ip=8.8.8.8"
`;

const FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  snapshot: { type: 'string' },
  store: { type: 'string' },
  'activation-delay': { type: 'string' },
  'base-url': { type: 'string' },
  'log-level': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** Runs `ipintel serve`; resolves with the exit code once the server has stopped. */
export async function serveCommand(argv: string[], io: CommandIO): Promise<number> {
  let flags: ParsedFlags;
  try {
    flags = parseFlags(argv, FLAGS, false);
    const level = str(flags, 'log-level');
    if (level !== undefined && !LEVELS.includes(level)) {
      throw new UsageError(`--log-level takes one of ${LEVELS.join(', ')}`);
    }
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    write(io.stderr, `ipintel serve: ${e.message}\n\n${SERVE_HELP}`);
    return USAGE_ERROR;
  }
  if (flags.values['help'] === true) {
    write(io.stdout, SERVE_HELP);
    return 0;
  }
  let port: number;
  let activationDelayMs: number | undefined;
  try {
    port = parsePort(str(flags, 'port') ?? process.env['PORT'] ?? '8080');
    const delay = str(flags, 'activation-delay');
    activationDelayMs = delay === undefined ? undefined : parseDuration(delay, '--activation-delay');
  } catch (e) {
    write(io.stderr, `ipintel serve: ${(e as Error).message}`);
    return USAGE_ERROR;
  }
  const snapshotPath = str(flags, 'snapshot') ?? defaultSnapshotPath();
  const store = str(flags, 'store') ?? defaultStoreSpec();
  const baseUrl = str(flags, 'base-url');
  const logLevel = str(flags, 'log-level');
  let server;
  try {
    server = await startServer({
      port,
      host: str(flags, 'host') ?? '127.0.0.1',
      snapshotPath,
      store,
      ...(activationDelayMs === undefined ? {} : { activationDelayMs }),
      ...(baseUrl === undefined ? {} : { baseUrl }),
      ...(logLevel === undefined ? {} : { logLevel }),
    });
  } catch (e) {
    write(io.stderr, `ipintel serve: could not start: ${(e as Error).message}`);
    return 1;
  }
  write(io.stderr, `ipintel serving on ${server.url} (snapshot ${snapshotPath}, store ${server.store.location})`);
  if (server.app.snapshot.current === undefined) {
    write(io.stderr, `warning: no snapshot loaded yet from ${snapshotPath}; lookups answer 503 until the file appears`);
  }
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      io.signal?.removeEventListener('abort', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (io.signal?.aborted === true) stop();
    else io.signal?.addEventListener('abort', stop);
  });
  write(io.stderr, 'ipintel: stopping');
  await server.close();
  return 0;
}
