/**
 * The Fetch-API adapter: `(Request) => Promise<Response>` over the routing
 * core, for runtimes and frameworks built on web-standard requests.
 *
 * @module
 */
import { createApp, type App, type AppOptions } from '../app.js';
import { hostFault, hostFaultAnswer } from '../http/host-field.js';
import { DEFAULT_PROBLEM_TYPE_BASE, problem, ProblemError } from '../http/problem.js';
import type { ApiRequest } from '../http/types.js';
import { stripBase } from './node.js';

export interface FetchHandler {
  (request: Request): Promise<Response>;
  readonly app: App;
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

export interface FetchHandlerOptions extends AppOptions {
  /** A prebuilt app to share (then close() leaves it open). */
  readonly app?: App;
  /** The caller's address, when the host knows it (used by /thirdparty/json). */
  readonly remoteAddress?: (request: Request) => string | undefined;
}

/** Reads a web stream body up to `limit` bytes; `null` when longer. */
export async function readFetchBody(request: Request, limit: number): Promise<Uint8Array | null> {
  if (request.body === null) return new Uint8Array(0);
  // Node's Request types its body as a stream of any; a request body is bytes.
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel();
        return null;
      }
      chunks.push(value);
    }
  } catch {
    throw new ProblemError('invalid_body', 'the request body could not be read');
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * An answer's headers without `Connection`. The routing core asks to close the connection after
 * some refusals (a body left unread: 413 body_too_large; two Content-Types) with
 * `Connection: close`, which the Node adapter honours. Here the runtime owns the connection, and
 * over HTTP/2 or 3 a connection header is not allowed at all (RFC 9113, 8.2.2; node:http2 drops it
 * with a warning per answer), so it is left out, as the Host refusal above leaves it out.
 */
function runtimeHeaders(headers: Record<string, string>): Record<string, string> {
  if (headers['connection'] === undefined) return headers;
  const { connection: _dropped, ...rest } = headers;
  return rest;
}

/**
 * A Fetch-API handler serving the API.
 *
 * @example
 * const api = createFetchHandler({ snapshot: './world.ipintel' });
 * const res = await api(new Request('http://x/v1/check?ip=8.8.8.8', { headers: { 'x-api-key': key } }));
 */
export function createFetchHandler(options: FetchHandlerOptions = {}): FetchHandler {
  const app = options.app ?? createApp(options);
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const problemTypeBase = options.problemTypeBase ?? DEFAULT_PROBLEM_TYPE_BASE;
  const handler = async (request: Request): Promise<Response> => {
    // Headers joins two Host lines into "a, b": refused as the Node adapter refuses two lines
    // (http/host-field.ts), as is a Host that is not host[:port]. Without Host (or with an empty
    // one) is fine here: HTTP/2 and 3 carry :authority instead, and the URL names the host.
    // No Connection: close: the runtime owns the connection.
    const fault = hostFault(request.headers.get('host') ?? undefined, false);
    if (fault !== undefined) {
      const r = hostFaultAnswer(fault, app.logger, problemTypeBase);
      return new Response(r.body, { status: r.status, headers: r.headers });
    }
    const u = new URL(request.url);
    const url = stripBase(u.pathname + u.search, basePath);
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => {
      headers[k] = v;
    });
    const r =
      url === undefined
        ? problem('not_found', `no such endpoint; the API is under ${basePath}`, {}, problemTypeBase)
        : await app.handle({
            method: request.method.toUpperCase(),
            url,
            headers,
            readBody: (limit) => readFetchBody(request, limit),
            remoteAddress: options.remoteAddress?.(request),
          } satisfies ApiRequest);
    return new Response(r.body === '' ? null : r.body, { status: r.status, headers: runtimeHeaders(r.headers) });
  };
  return Object.assign(handler, {
    app,
    ready: app.ready,
    close: () => (options.app === undefined ? app.close() : Promise.resolve()),
  });
}
