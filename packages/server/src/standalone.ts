/**
 * The standalone server: node:http around the Node adapter, with limits on
 * slow and greedy clients (http/server-limits.ts), problem+json answers for
 * requests node:http refuses itself (http/client-error.ts), SIGHUP to reload
 * the snapshot, and a graceful close that drains keep-alive connections
 * (http/drain.ts), then closes the store.
 *
 * @module
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { createNodeHandler } from './adapters/node.js';
import type { App, AppOptions } from './app.js';
import { clientErrorHandler, connectHandler } from './http/client-error.js';
import { drainable } from './http/drain.js';
import { turnBuffered } from './log.js';
import { serverLogger } from './access-log.js';
import { DEFAULT_PROBLEM_TYPE_BASE } from './http/problem.js';
import { DEFAULT_MAX_HEADERS } from './http/types.js';
import { limitedServer, resolveLimits, type ServerLimits } from './http/server-limits.js';
import type { Store } from './store/types.js';

export interface StartOptions extends Omit<AppOptions, 'snapshot'>, ServerLimits {
  /** Port (default 8080; 0 picks a free one). */
  readonly port?: number;
  /** Interface (default 127.0.0.1; use 0.0.0.0 or :: to accept remote clients). */
  readonly host?: string;
  /** Snapshot file to serve and watch (default: core's default snapshot path). */
  readonly snapshotPath?: string;
  /** Or any snapshot source createApp takes. */
  readonly snapshot?: AppOptions['snapshot'];
  /** Reload the snapshot on SIGHUP (default true). */
  readonly sighup?: boolean;
  /** Log level of the default logger (default `info`). */
  readonly logLevel?: string;
}

export interface RunningServer {
  /** `http://host:port`. */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  readonly app: App;
  readonly store: Store;
  /**
   * Stops gracefully: stops accepting, lets requests in flight finish (their
   * answers and any later ones on open connections say `Connection: close`),
   * cuts what is still open after `drainTimeoutMs`, then closes the store.
   */
  close(): Promise<void>;
}

/** Longest the standalone server holds a log line before writing it, ms (turnBuffered). */
const LOG_DELAY_MS = 50;

/**
 * Starts the HTTP API.
 *
 * @example
 * const s = await startServer({ port: 8080, store: 'sqlite:./ipintel.sqlite' });
 * // ... later: await s.close();
 */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const limits = resolveLimits(options);
  // stdout (log.ts, turnBuffered): lines written within LOG_DELAY_MS, or once 64 KB are pending, so a
  // busy server makes one write per 64 KB of log, not one per turn; readable while the server runs,
  // nothing lost on a crash or an exit, at most LOG_DELAY_MS of lines on kill -9. Flushed on close.
  const stdout = options.logger === undefined ? turnBuffered(1, { delayMs: LOG_DELAY_MS }) : undefined;
  const own: Logger | undefined = stdout === undefined ? undefined : serverLogger(stdout, options.logLevel ?? 'info');
  const logger: Logger | false = own ?? options.logger ?? false;
  const { snapshotPath, snapshot: given, ...rest } = options;
  const snapshot = given ?? snapshotPath;
  const baseUrlFor = (port: number): string => `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host}:${port}`;
  // The attribution link needs the port, which may be chosen by the OS: bind first, then build the app.
  const server = limitedServer(limits, options.maxHeaders ?? DEFAULT_MAX_HEADERS);
  const drain = drainable(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let handler: ReturnType<typeof createNodeHandler>;
  try {
    handler = createNodeHandler({
      ...rest,
      ...(snapshot === undefined ? {} : { snapshot }),
      logger,
      baseUrl: options.baseUrl ?? baseUrlFor(port),
      closeConnections: drain.draining,
    });
  } catch (e) {
    // A bad store spec, plan table or the like: do not leave the port bound.
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw e;
  }
  const app = handler.app;
  server.on('request', handler);
  // `Expect: 100-continue`: no automatic 100; the handler sends it only when it reads the body
  // (after the key was accepted), so a refused client never sends its body.
  server.on('checkContinue', handler);
  // Any other Expect value: the app answers 417 as problem+json (node's own 417 has no body).
  server.on('checkExpectation', handler);
  server.on('clientError', clientErrorHandler(app.logger, options.problemTypeBase ?? DEFAULT_PROBLEM_TYPE_BASE));
  server.on('connect', connectHandler(app.logger, options.problemTypeBase ?? DEFAULT_PROBLEM_TYPE_BASE));
  await app.ready;
  const onHup = (): void => {
    app.logger.info('SIGHUP: reloading the snapshot');
    void app.reloadSnapshot();
  };
  if (options.sighup !== false) process.on('SIGHUP', onHup);
  app.logger.info({ url: baseUrlFor(port), store: app.store.kind, store_location: app.store.location }, 'listening');

  let closing: Promise<void> | undefined;
  return {
    url: baseUrlFor(port),
    port,
    server,
    app,
    store: app.store,
    close: () =>
      (closing ??= (async () => {
        process.off('SIGHUP', onHup);
        app.logger.info({ drain_timeout_ms: limits.drainTimeoutMs }, 'closing: draining connections');
        const cut = await drain.drain(limits.drainTimeoutMs);
        if (cut > 0) app.logger.warn({ connections: cut }, 'closing: connections still open at the drain timeout were cut');
        await handler.close();
        stdout?.end();
      })()),
  };
}
