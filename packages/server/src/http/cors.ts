/**
 * CORS, for browsers calling the API from other origins (off unless
 * `corsOrigins` is set).
 *
 * - A preflight (OPTIONS with Origin and Access-Control-Request-Method) from
 *   an allowed origin to a known path, for a method the path takes, answers
 *   204 with the path's methods, the request headers the API reads
 *   (x-api-key, authorization, content-type) and a 10-minute max age. It
 *   needs no key and counts nothing. From another origin it answers 403
 *   origin_not_allowed; to an unknown path, 404; for a method the path does
 *   not take, 405 method_not_allowed with Allow, which fails the preflight
 *   in the browser whatever the method (the Fetch standard's CORS-preflight
 *   fetch fails on a status that is not ok).
 * - Every other answer to an allowed origin, errors included, carries
 *   Access-Control-Allow-Origin and exposes the RateLimit-* and Retry-After
 *   headers, so a page can read problems and quotas. Answers vary on Origin.
 * - Origins match exactly, as browsers serialise them; the configured ones
 *   are brought to that form at start-up (origin.ts).
 * - No credentials mode: the key travels in a header, never in a cookie.
 *
 * @module
 */
import { browserOrigin } from './origin.js';
import { problem } from './problem.js';
import { header, type ApiRequest, type ApiResponse } from './types.js';

const ALLOW_HEADERS = 'x-api-key, authorization, content-type';
const EXPOSE_HEADERS = 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After';
const MAX_AGE_S = '600';

export interface Cors {
  /** The answer to a preflight, or undefined when `req` is not one. */
  preflight(req: ApiRequest, methodsOf: (path: string) => string | undefined, path: string): ApiResponse | undefined;
  /** `res` with the CORS headers `req`'s origin gets. */
  decorate(req: ApiRequest, res: ApiResponse): ApiResponse;
}

/**
 * The CORS policy for `origins` (origins such as `https://app.example.com`, or `*` for any);
 * undefined when the list is empty. Each entry is brought to the form browsers send
 * (origin.ts: lower case, no default port, no slash), and a request's Origin must be that
 * form exactly: browsers send nothing else. Throws TypeError for an entry that is not an origin.
 */
export function corsPolicy(origins: readonly string[] | undefined, problemTypeBase: string): Cors | undefined {
  if (origins === undefined || origins.length === 0) return undefined;
  const any = origins.includes('*');
  const allowed = new Set<string>();
  for (const o of origins) if (o !== '*') allowed.add(browserOrigin(o));
  // Echoed as sent, which is the allowed form itself (the CORS check compares it byte for byte).
  const allowOrigin = (origin: string | undefined): string | undefined => {
    if (origin === undefined) return undefined;
    if (any) return '*';
    return allowed.has(origin) ? origin : undefined;
  };
  const vary = (res: ApiResponse, also = ''): Record<string, string> => (any ? {} : { vary: res.headers['vary'] === undefined ? `Origin${also}` : `${res.headers['vary']}, Origin${also}` });
  return {
    preflight(req, methodsOf, path) {
      if (req.method !== 'OPTIONS') return undefined;
      const origin = header(req, 'origin');
      const asked = header(req, 'access-control-request-method');
      if (origin === undefined || asked === undefined) return undefined;
      const allow = allowOrigin(origin);
      if (allow === undefined) {
        return problem('origin_not_allowed', `requests from ${JSON.stringify(origin.slice(0, 128))} are not allowed by this server's CORS settings`, {}, problemTypeBase);
      }
      const methods = methodsOf(path);
      if (methods === undefined) return { ...problem('not_found', 'no such endpoint; see /v1/openapi.json', {}, problemTypeBase) };
      // Not a 204 without the method: a browser reads Access-Control-Allow-Methods only for a
      // method that is not CORS-safelisted, and GET, HEAD and POST are, so it would pass the
      // preflight and send the request. A status that is not ok fails every preflight.
      // Methods compare case-sensitively, as the router compares them (RFC 9110, 9.1).
      if (!methods.split(', ').includes(asked)) {
        return problem('method_not_allowed', `${asked.slice(0, 16)} is not allowed here; allowed: ${methods}`, { allow: methods }, problemTypeBase);
      }
      const base: ApiResponse = { status: 204, headers: {}, body: '' };
      return {
        ...base,
        headers: {
          'access-control-allow-origin': allow,
          'access-control-allow-methods': methods,
          'access-control-allow-headers': ALLOW_HEADERS,
          'access-control-max-age': MAX_AGE_S,
          ...vary(base, ', Access-Control-Request-Method, Access-Control-Request-Headers'),
        },
      };
    },
    decorate(req, res) {
      const allow = allowOrigin(header(req, 'origin'));
      const headers: Record<string, string> = { ...res.headers, ...vary(res) };
      if (allow !== undefined) {
        headers['access-control-allow-origin'] = allow;
        headers['access-control-expose-headers'] = EXPOSE_HEADERS;
      }
      return { ...res, headers };
    },
  };
}
