/**
 * Graceful close of an http.Server under keep-alive load.
 *
 *   1. Stop accepting connections. http.Server#close would also close idle
 *      keep-alive connections at once (node >= 19); a client may be sending
 *      its next request on one at that very moment and gets ECONNRESET. So
 *      idle connections are left to their keep-alive timeout, which clients
 *      know from the Keep-Alive header and stop reusing before.
 *   2. Every answer not yet started, now or later on an open connection,
 *      carries `Connection: close`, so clients stop reusing their connections
 *      and each closes after its answer.
 *   3. When the last connection has closed, done; connections still open
 *      after `timeoutMs` are destroyed.
 *
 * @module
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface Drain {
  /** Call for every request, before the API handler (the standalone server does). */
  track(req: IncomingMessage, res: ServerResponse): void;
  /** Stops accepting and drains; resolves with the number of connections cut at the deadline. */
  drain(timeoutMs: number): Promise<number>;
}

export function drainable(server: Server): Drain {
  const unanswered = new Set<ServerResponse>();
  let draining = false;
  let open = 0;
  server.on('connection', (socket) => {
    open++;
    socket.once('close', () => open--);
  });
  return {
    track(_req, res) {
      if (draining) {
        res.setHeader('connection', 'close');
        return;
      }
      unanswered.add(res);
      // A response emits 'close' once, after 'finish' or when its connection closes first.
      res.on('close', () => void unanswered.delete(res));
    },
    drain(timeoutMs) {
      draining = true;
      for (const res of unanswered) if (!res.headersSent) res.setHeader('connection', 'close');
      unanswered.clear();
      return new Promise((resolve) => {
        let cut = 0;
        const deadline = setTimeout(() => {
          cut = open;
          server.closeAllConnections();
        }, timeoutMs);
        // The http close without its immediate close of idle connections (step 1): it still stops
        // listening and ends node's timeout checks, and its callback runs once every connection is gone.
        server.closeIdleConnections = () => {};
        server.close(() => {
          clearTimeout(deadline);
          resolve(cut);
        });
        delete (server as Partial<Server>).closeIdleConnections;
      });
    },
  };
}
