/**
 * A local HTTP server on 127.0.0.1 for the download tests: each path answers
 * as a route says (a body with headers, a status, a redirect, a delay, a
 * truncated body), else the file of that path under `root` (fixtures/feeds
 * by default, so the server is a `--mirror`), else 404. Every request is
 * recorded with its headers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { join } from 'node:path';

export type Route =
  | { readonly status: number }
  | { readonly redirect: string; readonly status?: 301 | 302 | 303 | 307 | 308 }
  | { readonly delayMs: number }
  | { readonly truncate: true }
  | { readonly body: string | Uint8Array; readonly headers?: Readonly<Record<string, string>> };

export interface LocalServer {
  /** `http://127.0.0.1:<port>/` */
  readonly base: string;
  /** Routes by path without the leading `/` (query strings are ignored). */
  readonly routes: Map<string, Route>;
  /** Every request seen: path and headers. */
  readonly requests: { readonly path: string; readonly headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export async function startLocalServer(root: string): Promise<LocalServer> {
  const routes = new Map<string, Route>();
  const requests: { path: string; headers: IncomingHttpHeaders }[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).slice(1);
    requests.push({ path, headers: req.headers });
    const r = routes.get(path);
    const file = join(root, path);
    const fileData = (): Buffer | null => (path !== '' && !path.startsWith('.') && !path.includes('..') && existsSync(file) ? readFileSync(file) : null);
    if (r && 'status' in r && !('redirect' in r)) return void res.writeHead(r.status).end('nope');
    if (r && 'redirect' in r) return void res.writeHead(r.status ?? 301, { location: r.redirect }).end();
    if (r && 'body' in r) {
      const body = typeof r.body === 'string' ? Buffer.from(r.body) : Buffer.from(r.body);
      return void res.writeHead(200, { 'content-length': String(body.length), ...r.headers }).end(body);
    }
    const data = fileData();
    if (data === null) return void res.writeHead(404).end('not found');
    if (r && 'delayMs' in r) return void setTimeout(() => res.writeHead(200).end(data), r.delayMs);
    if (r && 'truncate' in r) {
      // Headers and part of the body go out, then the connection drops.
      res.writeHead(200, { 'content-length': data.length + 100 });
      res.flushHeaders();
      return void res.write(data, () => setTimeout(() => res.socket?.destroy(), 20));
    }
    res.writeHead(200, { 'content-length': data.length }).end(data);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/`;
  return {
    base,
    routes,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
