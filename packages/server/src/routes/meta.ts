/**
 * Unmetered routes: GET /healthz (no key: snapshot and store status, 503 when
 * either is missing, for load balancers; the snapshot's age and stale sources), GET /attribution, GET
 * /v1/openapi.json. Query parameters are ignored here (probes add their own).
 *
 * @module
 */
import { freshness, type SnapshotInfo } from '@ipintel/core';
import type { AppContext } from '../context.js';
import { problem } from '../http/problem.js';
import { header, json, type ApiRequest, type ApiResponse } from '../http/types.js';
import { openApiDocument } from '../openapi/document.js';
import { attributionResponse } from './attribution.js';

/** Longest wait for the store's answer to a health probe, ms. */
const PING_TIMEOUT_MS = 1000;

async function storeStatus(app: AppContext): Promise<'ok' | 'unavailable'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'unavailable'>((resolve) => {
    timer = setTimeout(() => resolve('unavailable'), PING_TIMEOUT_MS);
  });
  try {
    return await Promise.race([app.store.ping().then(() => 'ok' as const, () => 'unavailable' as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The snapshot's age and its sources older than their refresh interval, at
 * the server's clock (core's freshness()). Informational: stale data does not
 * make the server unhealthy (a load balancer must not drop it for that).
 */
function ages(info: SnapshotInfo, now: number): { age_s: number; stale_sources: string[] } {
  const f = freshness(info, now);
  return { age_s: f.snapshot_age_s, stale_sources: f.stale.map((s) => s.id) };
}

export async function healthRoute(app: AppContext): Promise<ApiResponse> {
  // Both read before the wait for the store: a snapshot swapped meanwhile must not lend its
  // load time to the build this answer describes.
  const intel = app.snapshot.current;
  const loadedAt = app.snapshot.loadedAt;
  const store = await storeStatus(app);
  const ok = intel !== undefined && store === 'ok';
  return json(ok ? 200 : 503, {
    status: ok ? 'ok' : 'unavailable',
    snapshot:
      intel === undefined
        ? { loaded: false, build_date: null, format_version: null, loaded_at: null, age_s: null, stale_sources: [] }
        : {
            loaded: true,
            build_date: intel.info.build_date,
            format_version: intel.info.format_version,
            loaded_at: new Date(loadedAt ?? 0).toISOString(),
            ...ages(intel.info, app.now()),
          },
    store: { kind: app.store.kind, status: store },
  });
}

export function attributionRoute(app: AppContext, req: ApiRequest): ApiResponse {
  const intel = app.snapshot.current;
  if (intel === undefined) return problem('snapshot_unavailable', 'no IP data snapshot is loaded yet; retry shortly', { 'retry-after': '5' }, app.problemTypeBase);
  return attributionResponse(intel.info, header(req, 'accept'));
}

let cached: { base: string; demoQuota: number | undefined; body: string } | undefined;

export function openApiRoute(app: AppContext): ApiResponse {
  const demoQuota = app.demoPlan?.quota;
  // Without a public URL, the mount path: a relative server URL, read against where the document is served.
  const base = app.publicBase !== '' ? app.publicBase : app.basePath;
  if (cached === undefined || cached.base !== base || cached.demoQuota !== demoQuota) {
    cached = { base, demoQuota, body: JSON.stringify(openApiDocument(base, demoQuota === undefined ? {} : { demoQuota })) };
  }
  return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300' }, body: cached.body };
}
