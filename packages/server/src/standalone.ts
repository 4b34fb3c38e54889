/**
 * The standalone server: node:http around the Node adapter, SIGHUP to reload
 * the snapshot, and a graceful close (stop accepting, let requests in flight
 * finish, then close the store).
 *
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { createNodeHandler } from './adapters/node.js';
import type { App, AppOptions } from './app.js';
import type { Store } from './store/types.js';

export interface StartOptions extends Omit<AppOptions, 'snapshot'> {
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
  close(): Promise<void>;
}

/**
 * Starts the HTTP API.
 *
 * @example
 * const s = await startServer({ port: 8080, snapshotPath: 'data/default.ipintel', store: 'sqlite:./ipintel.sqlite' });
 * // ... later: await s.close();
 */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  // Asynchronous but unbuffered stdout: a line is handed to the OS as soon as the write before it
  // is done (lines logged meanwhile go out together), so the log is readable while the server
  // runs and survives kill -9, at no cost to the request path. Flushed on close.
  const own: Logger | undefined =
    options.logger === undefined ? pino({ level: options.logLevel ?? 'info', base: { service: 'ipintel' } }, pino.destination({ dest: 1, sync: false, minLength: 0 })) : undefined;
  const logger: Logger | false = own ?? options.logger ?? false;
  const { snapshotPath, snapshot: given, ...rest } = options;
  const snapshot = given ?? snapshotPath;
  const baseUrlFor = (port: number): string => `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host}:${port}`;
  // The attribution link needs the port, which may be chosen by the OS: bind first, then build the app.
  const server = createServer({ keepAliveTimeout: 5000 });
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
    });
  } catch (e) {
    // A bad store spec, plan table or the like: do not leave the port bound.
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw e;
  }
  server.on('request', handler);
  const app = handler.app;
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
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await handler.close();
        if (own !== undefined) await new Promise<void>((r) => own.flush(() => r()));
      })()),
  };
}
