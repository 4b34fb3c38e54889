/**
 * The metered pipeline every lookup route runs through:
 *
 *   1. authenticate the key (401/403; 503 when the store is down), or, for a
 *      request without one, take the caller's demo quota when there is one (demo.ts)
 *   2. do the work: parse, validate, look up (4xx; 503 without a snapshot); work
 *      that waited (a batch body) is followed by the key's check once more
 *   3. count: one atomic store call takes a rate token and adds the lookups
 *      that succeeded (0 for an error answer) if the quota allows all of them;
 *      the key read and the count each have storeTimeoutMs, past which the
 *      answer is 503 and the count cannot land (store/types.ts)
 *   4. answer with RateLimit-* headers; a refused count answers 429 and the
 *      looked-up results are dropped, so nothing is served uncounted
 *
 * @module
 */
import { authenticate, missingKeyDetail, presentedKey } from '../auth.js';
import type { AppContext, RequestLog } from '../context.js';
import { problem, ProblemError } from '../http/problem.js';
import type { ApiRequest, ApiResponse } from '../http/types.js';
import { demoCaller } from '../demo.js';
import { periodAt } from '../plans.js';

/** What the work step produced: a body (JSON unless `contentType` says otherwise) and the lookups it holds, or a problem. */
export type Outcome = { readonly body: string; readonly n: number; readonly contentType?: string } | { readonly problem: ProblemError };

const JSON_TYPE = 'application/json; charset=utf-8';

/** The request's query, and whether its route takes the key as `?token=`. */
export interface MeteredQuery {
  readonly params: URLSearchParams;
  readonly tokenAllowed: boolean;
}

export async function metered(
  app: AppContext,
  req: ApiRequest,
  query: MeteredQuery,
  rc: RequestLog,
  work: () => Outcome | Promise<Outcome>,
): Promise<ApiResponse> {
  const now = app.now();
  const presented = presentedKey(req, query.tokenAllowed ? query.params : undefined);
  // No key: the demo quota of the caller's address when the server offers one (demo.ts).
  const demo = presented === undefined && app.demoPlan !== undefined ? demoCaller(app.demoPlan, req.remoteAddress) : undefined;
  // Real time, not the injectable clock: the store's waits are bounded in real time.
  // A cached key and synchronous work are used as values, not awaited: no microtask hops on the hot path.
  const auth = demo === undefined ? authenticate(presented, app, now, missingKeyDetail(query.params), Date.now() + app.storeTimeoutMs) : { key: demo, plan: demo.plan };
  const { key, plan } = auth instanceof Promise ? await auth : auth;
  rc.keyId = key.id;
  let outcome: Outcome;
  let waited = false;
  try {
    const done = work();
    if (done instanceof Promise) {
      waited = true;
      outcome = await done;
    } else outcome = done;
  } catch (e) {
    if (!(e instanceof ProblemError)) throw e;
    outcome = { problem: e };
  }
  // Work that waited (a batch's body, which may take long to arrive) is followed by a second look
  // at the key, through the same cache: a key revoked meanwhile gets 403 key_revoked and nothing
  // is counted, as docs/api.md promises "from then on". The checks that answer at once skip it.
  if (waited && demo === undefined) {
    const again = authenticate(presented, app, app.now(), missingKeyDetail(query.params), Date.now() + app.storeTimeoutMs);
    if (again instanceof Promise) await again;
  }
  const n = 'n' in outcome ? outcome.n : 0;
  const window = periodAt(plan.period, now);
  const counted = await app.store.consume({
    account: key.account,
    period: window.key,
    periodEndsAt: window.endsAt,
    quota: plan.quota,
    n,
    ratePerSecond: app.rateLimit ? plan.ratePerSecond : 0,
    second: Math.floor(now / 1000),
    // From now, not from the request's start: reading a slow body must not use up the count's time.
    deadline: Date.now() + app.storeTimeoutMs,
  });
  const reset = Math.max(0, Math.ceil((window.endsAt - now) / 1000));
  const remaining = Math.max(0, plan.quota - counted.used);
  const limits: Record<string, string> = {
    'ratelimit-limit': String(plan.quota),
    'ratelimit-remaining': String(remaining),
    'ratelimit-reset': String(reset),
  };
  if (counted.outcome === 'rate_limited') {
    limits['retry-after'] = '1';
    return problem('rate_limited', `more than ${plan.ratePerSecond} requests in one second for this key; retry in a second`, limits, app.problemTypeBase);
  }
  if (counted.outcome === 'quota_exceeded') {
    limits['retry-after'] = String(reset);
    const when = new Date(window.endsAt).toISOString();
    const detail = `this request needs ${n} lookup${n === 1 ? '' : 's'} but ${remaining} of the ${plan.quota} in this ${plan.period} are left; nothing was counted; the quota resets at ${when}`;
    return problem('quota_exceeded', detail, limits, app.problemTypeBase);
  }
  if ('problem' in outcome) {
    const p = outcome.problem;
    const res = problem(p.code, p.message, { ...p.headers, ...limits }, app.problemTypeBase);
    return p.headers['connection'] === 'close' ? { ...res, close: true } : res;
  }
  rc.lookups = n;
  limits['content-type'] = outcome.contentType ?? JSON_TYPE;
  limits['cache-control'] = 'no-store';
  return { status: 200, headers: limits, body: outcome.body };
}
