/**
 * The Node adapter: `(req, res[, next])` for node:http, Express, Connect and
 * the like, over the routing core. With `basePath` set, requests outside it go
 * to `next()` (or get a 404 when there is no next).
 *
 * Unread bodies: the routes read a body only after the key was accepted (and
 * never more than maxBodyBytes). When an answer is ready while the body is
 * not all read (a refused key, 404, 405, 413, ...), node:http would read the
 * rest to reuse the connection, however long it is. Instead the rest is read
 * and dropped up to `maxBodyBeforeAuthBytes` and for at most UNREAD_WAIT_MS,
 * then the answer goes out with `Connection: close`. A body that fits is thus
 * read to its end first. Past the limit (or the wait) nothing more is read:
 * the answer is followed by the end of our side of the connection, and the
 * connection is dropped LINGER_MS later (closing at once, with the client's
 * bytes unread, would make the kernel reset it, and the client could lose
 * the answer). A client waiting for `100 Continue` (never sent to it) is
 * answered at once.
 *
 * @module
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createApp, type App, type AppOptions } from '../app.js';
import { hostFault, hostFaultAnswer } from '../http/host-field.js';
import { originForm } from '../http/request-target.js';
import { DEFAULT_PROBLEM_TYPE_BASE, problem, ProblemError } from '../http/problem.js';
import { DEFAULT_MAX_BODY_BEFORE_AUTH, type ApiRequest, type ApiResponse } from '../http/types.js';

export interface NodeHandler {
  (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void;
  readonly app: App;
  /** Settles after the first snapshot load attempt. */
  readonly ready: Promise<void>;
  /** Waits for the requests being answered, then closes the app (when the handler made it). */
  close(): Promise<void>;
}

/**
 * Reads a request body up to `limit` bytes; `null` when longer (the rest is
 * left unread). Sends `100 Continue` first when the client waits for it.
 */
export function readNodeBody(req: IncomingMessage, limit: number, res?: ServerResponse): Promise<Uint8Array | null> {
  if (res !== undefined && !res.headersSent && req.headers.expect?.toLowerCase() === '100-continue') {
    res.writeContinue();
    continued.add(req);
  }
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

/** Writes a core response to a Node response (a HEAD answer's length, set by the app, is kept). */
export function writeNodeResponse(res: ServerResponse, r: ApiResponse): void {
  const headers = r.headers;
  if (headers['content-length'] === undefined) headers['content-length'] = String(Buffer.byteLength(r.body));
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

/** Header fields node:http parses when the server's maxHeadersCount is not set. */
const NODE_HEADER_CAP = 1000;

/**
 * Header fields received. A server that stops parsing at its maxHeadersCount
 * (unset: node parses 1000 fields, 2000 raw entries) hides the rest, so a
 * request at that cap may carry more: it counts as over any limit.
 */
export function headerCount(req: IncomingMessage): number {
  const n = req.rawHeaders.length / 2;
  const set = (req.socket as { server?: Server } | null)?.server?.maxHeadersCount;
  const cap = typeof set === 'number' ? set : NODE_HEADER_CAP;
  return cap > 0 && n >= cap ? Number.POSITIVE_INFINITY : n;
}

/** Longest wait for the rest of an unread body before answering, ms. */
const UNREAD_WAIT_MS = 1000;
/** Requests sent `100 Continue` (their client is sending the body). */
const continued = new WeakSet<IncomingMessage>();

/** How long a connection closed with a body still coming is kept (reading nothing) so its answer arrives, ms. */
const LINGER_MS = 2000;

/**
 * Reads and drops the rest of an unread body, up to `limit` bytes and
 * UNREAD_WAIT_MS, then calls `answer` once. When the body did not end by
 * then, reading stops and the connection lingers (see the module comment).
 */
function dropUnreadBody(req: IncomingMessage, limit: number, answer: () => void): void {
  let seen = 0;
  let answered = false;
  const onData = (c: Buffer): void => {
    seen += c.length;
    if (seen > limit) cut();
  };
  const done = (): void => {
    if (answered) return;
    answered = true;
    clearTimeout(timer);
    answer();
  };
  const cut = (): void => {
    if (answered) return;
    req.off('data', onData);
    req.pause();
    lingerOnClose(req.socket);
    done();
  };
  const timer = setTimeout(cut, UNREAD_WAIT_MS);
  req.on('data', onData);
  req.once('end', done);
  req.once('close', done);
}

/**
 * node:http closes a `Connection: close` answer's socket with destroySoon
 * (end, then destroy as soon as the answer is written). Here: end (the
 * answer, then FIN), read nothing more, destroy LINGER_MS later.
 */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function lingering(this: Socket): void {
    this.end();
    const t = setTimeout(() => this.destroy(), LINGER_MS);
    t.unref();
    this.once('close', () => clearTimeout(t));
  };
}

export interface NodeHandlerOptions extends AppOptions {
  /** An app already made (its owner closes it); else one is made from these options. */
  readonly app?: App;
  /**
   * Asked as each answer is written: true makes it carry `Connection: close`
   * (startServer's graceful close passes its drain's `draining`).
   */
  readonly closeConnections?: () => boolean;
}

/**
 * A Node request handler serving the API.
 *
 * @example
 * const api = createNodeHandler({ basePath: '/ipintel', store: 'sqlite:./ipintel.sqlite' });
 * http.createServer((req, res) => api(req, res, () => { res.statusCode = 404; res.end(); })).listen(3000);
 */
export function createNodeHandler(options: NodeHandlerOptions = {}): NodeHandler {
  const app = options.app ?? createApp(options);
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const unreadLimit = options.maxBodyBeforeAuthBytes ?? DEFAULT_MAX_BODY_BEFORE_AUTH;
  const closeConnections = options.closeConnections;
  const problemTypeBase = options.problemTypeBase ?? DEFAULT_PROBLEM_TYPE_BASE;
  const answering = new Set<Promise<void>>();
  const send = (req: IncomingMessage, res: ServerResponse, r: ApiResponse): void => {
    if (req.complete) return writeNodeResponse(res, closeConnections?.() === true ? { ...r, close: true } : r);
    const closing = { ...r, close: true };
    // A client waiting for 100 Continue sends no body: answer now.
    if (req.headers.expect?.toLowerCase() === '100-continue' && !continued.has(req)) return writeNodeResponse(res, closing);
    dropUnreadBody(req, unreadLimit, () => writeNodeResponse(res, closing));
  };
  const handler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void => {
    // Host is missing or empty (HTTP/1.1), repeated, a list, or not host[:port]: 400, before the
    // request is routed or its key read (RFC 9112, 3.2; http/host-field.ts).
    // node:http's own missing-Host check answers a bare 400 that no listener sees; startServer
    // turns it off (requireHostHeader) so that the refusal is a problem, logged as node's other
    // refusals are (http/client-error.ts). node keeps the first of two Host lines: the repeat
    // shows only in rawHeaders.
    const fault = hostFault(req.headers.host, req.httpVersion === '1.1', req.rawHeaders);
    if (fault !== undefined) {
      send(req, res, { ...hostFaultAnswer(fault, app.logger, problemTypeBase), close: true });
      return;
    }
    // An absolute-form target (`GET http://host/v1/check`) is read as its path and query (RFC 9112, 3.2.2).
    const url = stripBase(originForm(req.url ?? '/'), basePath);
    if (url === undefined) {
      if (next !== undefined) next();
      else send(req, res, problem('not_found', `no such endpoint; the API is under ${basePath}`, {}, problemTypeBase));
      return;
    }
    const apiReq: ApiRequest = {
      method: req.method ?? 'GET',
      url,
      headers: req.headers,
      headerCount: headerCount(req),
      rawHeaders: req.rawHeaders,
      readBody: (limit) => readNodeBody(req, limit, res),
      remoteAddress: req.socket.remoteAddress,
    };
    // Leaves `answering` as it settles (no .finally: one promise and two microtasks fewer per request).
    const done: Promise<void> = app.handle(apiReq).then(
      (r) => {
        answering.delete(done);
        send(req, res, r);
      },
      (e: unknown) => {
        answering.delete(done);
        app.logger.error({ err: String(e) }, 'unexpected error');
        if (!res.headersSent) send(req, res, problem('internal_error', 'an unexpected error occurred', {}, problemTypeBase));
      },
    );
    answering.add(done);
  };
  return Object.assign(handler, {
    app,
    ready: app.ready,
    close: async () => {
      await Promise.allSettled([...answering]);
      if (options.app === undefined) await app.close();
    },
  });
}
