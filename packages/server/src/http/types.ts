/**
 * The socket-less request and response objects the routing core works on.
 * The Node and Fetch adapters translate to and from them, and tests build
 * them directly, so every route is testable without a socket.
 *
 * @module
 */

/** One HTTP request, as the routing core sees it. */
export interface ApiRequest {
  /** Upper-case method. */
  readonly method: string;
  /** Path and query relative to where the API is mounted, e.g. `/v1/check?ip=8.8.8.8`. */
  readonly url: string;
  /** Header values by lower-case name. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** Reads the body: at most `limit` bytes; resolves `null` when the body is longer. */
  readonly readBody?: (limit: number) => Promise<Uint8Array | null>;
  /** The client's address (used by `/thirdparty/json`, which answers for the caller). */
  readonly remoteAddress?: string | undefined;
  /** Header fields as received, repeats included, when the adapter knows (over the limit: 431). */
  readonly headerCount?: number;
  /**
   * The header lines as received (name, value, name, value, ...), repeats included, when the
   * adapter has them (node's rawHeaders): `headers` keeps one line of a field such as
   * Content-Type, and a second one must be refused, not ignored (single-field.ts).
   */
  readonly rawHeaders?: readonly string[];
}

/** Most header fields a request may carry (AppOptions.maxHeaders). */
export const DEFAULT_MAX_HEADERS = 100;
/** Most bytes of a body read before the key is accepted (AppOptions.maxBodyBeforeAuthBytes). */
export const DEFAULT_MAX_BODY_BEFORE_AUTH = 16_384;

/** One HTTP response from the routing core. */
export interface ApiResponse {
  readonly status: number;
  /** Header values by lower-case name. */
  readonly headers: Record<string, string>;
  readonly body: string;
  /** The problem code of an error answer (for the access log). */
  readonly code?: string;
  /** The adapter should close the connection (a request body was left unread). */
  readonly close?: boolean;
}

/** Reads one header as a single string (the first value when repeated). */
export function header(req: ApiRequest, name: string): string | undefined {
  const v = req.headers[name];
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : v[0];
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } as const;

/** A JSON answer; `extra` headers are added to the JSON ones. */
export function json(status: number, body: unknown, extra?: Record<string, string>): ApiResponse {
  return {
    status,
    headers: extra === undefined ? { ...JSON_HEADERS } : { ...JSON_HEADERS, ...extra },
    body: JSON.stringify(body),
  };
}

/** A ready-made `(request) => response` test helper body from a string or bytes. */
export function bodyReader(body: string | Uint8Array | undefined): (limit: number) => Promise<Uint8Array | null> {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body ?? new Uint8Array(0);
  return (limit) => Promise.resolve(bytes.length > limit ? null : bytes);
}
