/**
 * Limits of the standalone server against slow and greedy clients, with their
 * defaults (docs/api.md, "Limits"). node:http's own defaults let a client
 * hold a socket for minutes (headers 60 s, request 300 s, checked every 30 s)
 * and open any number of them.
 *
 * @module
 */
import { createServer, type Server } from 'node:http';

export interface ServerLimits {
  /** Time to receive a request's headers, ms (default 10 000); then 408. */
  readonly headersTimeoutMs?: number;
  /** Time to receive a whole request, headers and body, ms (default 30 000); then 408. */
  readonly requestTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept, ms (default 5 000). */
  readonly keepAliveTimeoutMs?: number;
  /** Most open connections; more are closed as they arrive (default 1 024). */
  readonly maxConnections?: number;
  /** Largest request head (request line and headers), bytes (default 16 384); larger is a 431. */
  readonly maxHeaderBytes?: number;
  /** On close: how long requests in flight may take to finish before their connections are cut, ms (default 10 000). */
  readonly drainTimeoutMs?: number;
}

export const DEFAULT_LIMITS: Required<ServerLimits> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1024,
  maxHeaderBytes: 16_384,
  drainTimeoutMs: 10_000,
});

/** The limits with defaults filled in; throws TypeError for a value out of range. */
export function resolveLimits(given: ServerLimits): Required<ServerLimits> {
  const out = { ...DEFAULT_LIMITS };
  for (const name of Object.keys(DEFAULT_LIMITS) as (keyof ServerLimits)[]) {
    const v = given[name];
    if (v === undefined) continue;
    if (!Number.isSafeInteger(v) || v <= 0) throw new TypeError(`${name} must be a positive whole number, got ${String(v)}`);
    out[name] = v;
  }
  if (out.headersTimeoutMs > out.requestTimeoutMs) {
    throw new TypeError(`headersTimeoutMs (${out.headersTimeoutMs}) must not be larger than requestTimeoutMs (${out.requestTimeoutMs})`);
  }
  return out;
}

/**
 * An http.Server with the limits applied. `maxHeaders` is the API's header
 * count limit: node:http is told to parse one more, so that a request over
 * the limit is seen as such (and refused) rather than silently cut short.
 */
export function limitedServer(limits: Required<ServerLimits>, maxHeaders: number): Server {
  const server = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    maxHeaderSize: limits.maxHeaderBytes,
    // The Node handler refuses an HTTP/1.1 request without Host itself, as a problem (adapters/node.ts).
    requireHostHeader: false,
    // How often the timeouts are checked (node's default, 30 s, made them 30 s late).
    connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
  });
  server.maxConnections = limits.maxConnections;
  server.maxHeadersCount = maxHeaders + 1;
  // A client may end its side of the connection right after its request (as
  // `nc -N` and scripts do). node:http then drops the requests not yet
  // answered, unless its httpAllowHalfOpen is set (a property of
  // http.Server since node 0.x that @types/node leaves out): with it, the
  // answer is written and then the connection is closed. An answer waits for
  // its count's group commit (two event-loop turns with SQLite, a round trip
  // with Redis), so without it such a client would often get nothing.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  return server;
}
