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
 *      and each closes after its answer. The node adapter asks `draining()`
 *      as it writes each answer (createNodeHandler's `closeConnections`).
 *      There is no registry of unanswered responses: a Set holding each
 *      response until its 'close' made V8 keep ~1.7 MB of every young
 *      collection's garbage alive into the old generation under keep-alive
 *      load, and young collections 3.5-4.5x longer (~15% of the server's
 *      time; docs/design.md, "Sixteenth round").
 *   3. When the last connection has closed, done; connections still open
 *      after `timeoutMs` are destroyed.
 *
 * @module
 */
import type { Server } from 'node:http';

export interface Drain {
  /** Whether `drain` has begun: every answer written from now on must carry `Connection: close`. */
  readonly draining: () => boolean;
  /** Stops accepting and drains; resolves with the number of connections cut at the deadline. */
  drain(timeoutMs: number): Promise<number>;
}

export function drainable(server: Server): Drain {
  let draining = false;
  let open = 0;
  server.on('connection', (socket) => {
    open++;
    socket.once('close', () => open--);
  });
  return {
    draining: () => draining,
    drain(timeoutMs) {
      draining = true;
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
