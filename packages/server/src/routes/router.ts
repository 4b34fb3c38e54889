/**
 * Which handler answers a path and method. `methodsOf` is the one table of
 * endpoints and their methods: the router, its 405 `Allow` header and CORS
 * preflights (http/cors.ts) all read it.
 *
 * @module
 */
import type { AppContext, RequestLog } from '../context.js';
import { problem } from '../http/problem.js';
import type { ApiRequest, ApiResponse } from '../http/types.js';
import { batchRoute, checkRoute } from './lookup.js';
import { attributionRoute, healthRoute, openApiRoute } from './meta.js';
import { isPagePath, pageRoute } from './page.js';
import { thirdpartyBatchRoute } from './thirdparty-batch.js';
import { parseThirdpartyPath, unknownFieldDetail } from './thirdparty-fields.js';
import { thirdpartyRoute } from './thirdparty.js';

const THIRDPARTY = '/thirdparty';
const THIRDPARTY_BATCH = '/thirdparty/batch';

/** The part of `path` after `/thirdparty` when it is under the alias, else undefined. */
function thirdpartyRest(path: string): string | undefined {
  return path === THIRDPARTY || path.startsWith(`${THIRDPARTY}/`) ? path.slice(THIRDPARTY.length) : undefined;
}

/** The methods `path` answers (as an Allow header value), or undefined when there is no such endpoint. */
export function methodsOf(path: string): string | undefined {
  switch (path) {
    case '/v1/check':
      return 'GET';
    case '/v1/check/batch':
    case THIRDPARTY_BATCH:
      return 'POST';
    case '/healthz':
    case '/attribution':
    case '/v1/openapi.json':
      return 'GET, HEAD';
  }
  if (isPagePath(path)) return 'GET, HEAD';
  const rest = thirdpartyRest(path);
  return rest !== undefined && parseThirdpartyPath(rest) !== undefined ? 'GET' : undefined;
}

/** Splits a request URL into path and query (without the `?`). */
export function splitUrl(url: string): { path: string; query: string } {
  const qi = url.indexOf('?');
  return qi < 0 ? { path: url, query: '' } : { path: url.slice(0, qi), query: url.slice(qi + 1) };
}

export function route(ctx: AppContext, req: ApiRequest, rc: RequestLog): ApiResponse | Promise<ApiResponse> {
  const { path, query } = splitUrl(req.url);
  const allow = methodsOf(path);
  if (allow === undefined) {
    const rest = thirdpartyRest(path);
    const fieldDetail = rest === undefined ? undefined : unknownFieldDetail(rest);
    const shown = path.length > 128 ? `${path.slice(0, 128)}…` : path;
    return problem('not_found', fieldDetail ?? `no such endpoint: ${shown}; see /v1/openapi.json`, {}, ctx.problemTypeBase);
  }
  if (!allow.split(', ').includes(req.method)) {
    return problem('method_not_allowed', `${req.method.slice(0, 16)} is not allowed here; allowed: ${allow}`, { allow }, ctx.problemTypeBase);
  }
  switch (path) {
    case '/v1/check':
      return checkRoute(ctx, req, query, rc);
    case '/v1/check/batch':
      return batchRoute(ctx, req, query, rc);
    case '/healthz':
      return healthRoute(ctx);
    case '/attribution':
      return attributionRoute(ctx, req);
    case '/v1/openapi.json':
      return openApiRoute(ctx);
    case THIRDPARTY_BATCH:
      return thirdpartyBatchRoute(ctx, req, query, rc);
  }
  if (isPagePath(path)) return pageRoute(ctx, req, path);
  // methodsOf admitted it: a GET route of the alias.
  return thirdpartyRoute(ctx, req, parseThirdpartyPath(thirdpartyRest(path)!)!, query, rc);
}
