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
import { batchRoute, checkRoute, thirdpartyRoute } from './lookup.js';
import { attributionRoute, healthRoute, openApiRoute } from './meta.js';
import { isPagePath, pageRoute } from './page.js';

/** Whether `path` is one of the /thirdparty alias shapes: /thirdparty[/json], /thirdparty/{ip}[/json]. */
function isThirdparty(path: string): boolean {
  if (path !== '/thirdparty' && !path.startsWith('/thirdparty/')) return false;
  const rest = path.slice('/thirdparty'.length).split('/');
  return rest.length <= 2 || (rest.length === 3 && rest[2] === 'json');
}

/** The methods `path` answers (as an Allow header value), or undefined when there is no such endpoint. */
export function methodsOf(path: string): string | undefined {
  switch (path) {
    case '/v1/check':
      return 'GET';
    case '/v1/check/batch':
      return 'POST';
    case '/healthz':
    case '/attribution':
    case '/v1/openapi.json':
      return 'GET, HEAD';
  }
  if (isPagePath(path)) return 'GET, HEAD';
  return isThirdparty(path) ? 'GET' : undefined;
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
    const shown = path.length > 128 ? `${path.slice(0, 128)}…` : path;
    return problem('not_found', `no such endpoint: ${shown}; see /v1/openapi.json`, {}, ctx.problemTypeBase);
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
  }
  if (isPagePath(path)) return pageRoute(ctx, req, path);
  return thirdpartyRoute(ctx, req, path, query, rc);
}
