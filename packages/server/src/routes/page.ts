/**
 * The web page (AppOptions.page, on by default): `GET /` and its files under
 * `/page/`. No key and nothing counted here: the page's script looks
 * addresses up through the metered API with the key the user types (or the
 * demo quota, demo.ts).
 *
 *   /                  index.html
 *   /page/page.js      the script (a file, so the CSP can forbid inline script)
 *   /page/page.css     the style sheet
 *   /page/icon.svg     the tab's icon (else browsers ask for /favicon.ico, a 404)
 *   /page/world.json   the offline world map (page/world-map.ts)
 *   /page/client.json  {ip, demo_quota, max_batch, explain}: the caller's address as this server
 *                      sees it (after trustProxy), for the "My address" button; whether
 *                      lookups can carry explanations (the snapshot has its explain sidecar)
 *
 * Every answer carries a Content-Security-Policy that allows only this
 * origin's script, style and fetches (no inline script, no external request),
 * and refuses framing. The files are read once from src/page (tests, which
 * run the sources) or dist/page (the build copies them there: tsup.config.ts).
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MAX_BATCH, type AppContext } from '../context.js';
import { problem } from '../http/problem.js';
import type { ApiRequest, ApiResponse } from '../http/types.js';
import { worldMapJson } from '../page/world-map.js';

/** The page's Content-Security-Policy: same-origin script, style, images and fetches only. */
export const PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS = {
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
} as const;

/** Static files: path -> [file name, content type]. */
const FILES: Readonly<Record<string, readonly [string, string]>> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/page/page.js': ['page.js', 'text/javascript; charset=utf-8'],
  '/page/page.css': ['page.css', 'text/css; charset=utf-8'],
  '/page/icon.svg': ['icon.svg', 'image/svg+xml'],
};

const GENERATED = ['/page/world.json', '/page/client.json'];

/** Whether `path` is one of the page's paths (the router asks before its API table). */
export function isPagePath(path: string): boolean {
  return Object.hasOwn(FILES, path) || GENERATED.includes(path);
}

let dir: string | undefined;
const files = new Map<string, string>();

/** The folder of the page's files: dist/page next to the bundle, else src/page next to this module's folder. */
function pageDir(): string | undefined {
  if (dir !== undefined) return dir;
  for (const candidate of ['./page/', '../page/']) {
    const d = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${d}index.html`)) return (dir = d);
  }
  return undefined;
}

function fileBody(name: string): string | undefined {
  let body = files.get(name);
  if (body === undefined) {
    const d = pageDir();
    if (d === undefined) return undefined;
    body = readFileSync(`${d}${name}`, 'utf8');
    files.set(name, body);
  }
  return body;
}

export function pageRoute(ctx: AppContext, req: ApiRequest, path: string): ApiResponse {
  if (!ctx.page) return problem('not_found', 'this server does not serve the web page; the API is under /v1, see /v1/openapi.json', {}, ctx.problemTypeBase);
  if (path === '/page/client.json') {
    const body = { ip: req.remoteAddress ?? null, demo_quota: ctx.demoPlan?.quota ?? null, max_batch: MAX_BATCH, explain: ctx.snapshot.current?.canExplain() ?? false };
    return { status: 200, headers: { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }, body: JSON.stringify(body) };
  }
  if (path === '/page/world.json') {
    return { status: 200, headers: { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=86400' }, body: worldMapJson() };
  }
  const [name, type] = FILES[path]!;
  const body = fileBody(name);
  if (body === undefined) return problem('not_found', 'the web page\'s files are missing from this installation of @ipintel/server', {}, ctx.problemTypeBase);
  return { status: 200, headers: { ...SECURITY_HEADERS, 'content-type': type, 'cache-control': 'no-cache' }, body };
}
