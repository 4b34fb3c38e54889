/**
 * RFC 9457 problem details: the one shape of every error answer, and the
 * catalogue of stable error codes (docs/api.md lists the same table).
 *
 * Why a catalogue: clients branch on `code`, so a code's status and title are
 * fixed here once; a handler only supplies the `detail` text.
 *
 * @module
 */
import type { ApiResponse } from './types.js';

/** Every error code the API answers with, and its HTTP status and title. */
export const PROBLEMS = {
  missing_ip: [400, 'Missing IP address'],
  invalid_ip: [400, 'Invalid IP address'],
  invalid_format: [400, 'Invalid format'],
  invalid_body: [400, 'Invalid request body'],
  invalid_query: [400, 'Invalid query parameter'],
  malformed_request: [400, 'Malformed request'],
  missing_api_key: [401, 'Missing API key'],
  invalid_api_key: [401, 'Invalid API key'],
  key_not_active: [401, 'API key not active yet'],
  key_revoked: [403, 'API key revoked'],
  origin_not_allowed: [403, 'Origin not allowed'],
  not_found: [404, 'Not found'],
  method_not_allowed: [405, 'Method not allowed'],
  request_timeout: [408, 'Request timeout'],
  batch_too_large: [413, 'Batch too large'],
  body_too_large: [413, 'Request body too large'],
  unsupported_media_type: [415, 'Unsupported media type'],
  expectation_failed: [417, 'Expectation failed'],
  headers_too_large: [431, 'Request header fields too large'],
  quota_exceeded: [429, 'Quota exceeded'],
  rate_limited: [429, 'Rate limit exceeded'],
  internal_error: [500, 'Internal server error'],
  snapshot_unavailable: [503, 'No snapshot loaded'],
  explain_unavailable: [503, 'Explanation not available'],
  store_unavailable: [503, 'Key store unavailable'],
} as const satisfies Record<string, readonly [number, string]>;

export type ProblemCode = keyof typeof PROBLEMS;

/** Default `type` prefix: a URN, because RFC 9457 asks clients not to dereference `type`. */
export const DEFAULT_PROBLEM_TYPE_BASE = 'urn:ipintel:problem:';

export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: ProblemCode;
}

/** The body of a problem answer. */
export function problemBody(code: ProblemCode, detail: string, typeBase = DEFAULT_PROBLEM_TYPE_BASE): ProblemBody {
  const [status, title] = PROBLEMS[code];
  return { type: typeBase + code, title, status, detail, code };
}

/**
 * A complete problem answer.
 *
 * @example
 * problem('missing_ip', 'the query parameter `ip` is required').status // => 400
 */
export function problem(
  code: ProblemCode,
  detail: string,
  headers: Record<string, string> = {},
  typeBase = DEFAULT_PROBLEM_TYPE_BASE,
): ApiResponse {
  const body = problemBody(code, detail, typeBase);
  return {
    status: body.status,
    headers: { 'content-type': 'application/problem+json', 'cache-control': 'no-store', ...headers },
    body: JSON.stringify(body),
    code,
  };
}

/** Thrown inside handlers to answer with a problem; the router turns it into a response. */
export class ProblemError extends Error {
  readonly code: ProblemCode;
  readonly headers: Record<string, string>;
  constructor(code: ProblemCode, detail: string, headers: Record<string, string> = {}) {
    super(detail);
    this.code = code;
    this.headers = headers;
  }
}
