/**
 * The Node adapter: `(req, res[, next])` for node:http, Express, Connect and
 * the like, over the routing core. With `basePath` set, requests outside it go
 * to `next()` (or get a 404 when there is no next).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createApp, type App, type AppOptions } from '../app.js';
import { problem, ProblemError } from '../http/problem.js';
import type { ApiRequest, ApiResponse } from '../http/types.js';

export interface NodeHandler {
  (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void;
  readonly app: App;
  /** Settles after the first snapshot load attempt. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/** Reads a request body up to `limit` bytes; `null` when longer (the rest is left unread). */
export function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (v: Uint8Array | null | Error): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      if (v instanceof Error) reject(v);
      else resolve(v);
    };
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size > limit) finish(null);
      else chunks.push(c);
    };
    req.on('data', onData);
    req.once('end', () => finish(Buffer.concat(chunks, size)));
    req.once('error', () => finish(new ProblemError('invalid_body', 'the request body could not be read')));
    req.once('close', () => finish(new ProblemError('invalid_body', 'the client closed the connection before the body was complete')));
  });
}

/** Writes a core response to a Node response. */
export function writeNodeResponse(res: ServerResponse, r: ApiResponse): void {
  const headers = r.headers;
  headers['content-length'] = String(Buffer.byteLength(r.body));
  if (r.close === true) headers['connection'] = 'close';
  res.writeHead(r.status, headers);
  res.end(r.body);
}

/** Strips `basePath` from a request URL; undefined when the URL is outside it. */
export function stripBase(url: string, basePath: string): string | undefined {
  if (basePath === '') return url;
  if (!url.startsWith(basePath)) return undefined;
  const rest = url.slice(basePath.length);
  if (rest === '' || rest[0] === '?') return `/${rest}`;
  return rest[0] === '/' ? rest : undefined;
}

/**
 * A Node request handler serving the API.
 *
 * @example
 * const api = createNodeHandler({ basePath: '/ipintel', snapshot: 'data/default.ipintel', store: 'sqlite:./ipintel.sqlite' });
 * http.createServer((req, res) => api(req, res, () => { res.statusCode = 404; res.end(); })).listen(3000);
 */
export function createNodeHandler(options: AppOptions & { readonly app?: App } = {}): NodeHandler {
  const app = options.app ?? createApp(options);
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const handler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void => {
    const url = stripBase(req.url ?? '/', basePath);
    if (url === undefined) {
      if (next !== undefined) next();
      else writeNodeResponse(res, problem('not_found', `no such endpoint; the API is under ${basePath}`));
      return;
    }
    const apiReq: ApiRequest = {
      method: req.method ?? 'GET',
      url,
      headers: req.headers,
      readBody: (limit) => readNodeBody(req, limit),
      remoteAddress: req.socket.remoteAddress,
    };
    app.handle(apiReq).then(
      (r) => writeNodeResponse(res, r),
      (e: unknown) => {
        app.logger.error({ err: String(e) }, 'unexpected error');
        if (!res.headersSent) writeNodeResponse(res, problem('internal_error', 'an unexpected error occurred'));
      },
    );
  };
  return Object.assign(handler, {
    app,
    ready: app.ready,
    close: () => (options.app === undefined ? app.close() : Promise.resolve()),
  });
}
