/**
 * Authentication: which key a request presents, and whether it may be served.
 *
 * Where the key is read: the `x-api-key` header, else `Authorization: Bearer`
 * (two Authorization lines are a 400 malformed_request: node keeps the first).
 * A request that carries two different keys (in `x-api-key` and in one of
 * the other places) is a 401 invalid_api_key: which one a proxy in front
 * checked or logged is not ours to guess, as with two Authorization lines.
 * The `/thirdparty` alias routes also take `?token=` and HTTP Basic with the
 * key as the user name and an empty password (`curl -u KEY:`), as the provider
 * whose layout they answer in does; no other route does, so a request can
 * never be authenticated by a parameter its route then refuses as unknown.
 * The access log never sees the key (log.ts).
 *
 * @module
 */
import type { ApiRequest } from './http/types.js';
import { header } from './http/types.js';
import { basicAuthKey } from './http/basic-auth.js';
import { repeatedField } from './http/single-field.js';
import { ProblemError } from './http/problem.js';
import { keyState } from './keys/manage.js';
import { keyId } from './keys/secret.js';
import type { Plan } from './plans.js';
import type { KeyCache } from './keys/cache.js';
import type { KeyRecord } from './store/types.js';

const WWW_AUTHENTICATE = { 'www-authenticate': 'Bearer realm="ipintel"' };

/**
 * The key presented by a request, or undefined. `tokenQuery` is the query of
 * a route that takes `?token=` and Basic credentials (the /thirdparty aliases),
 * else undefined: a `token` parameter elsewhere is no key (and the missing-key
 * answer says why). Malformed Basic credentials throw 401 invalid_api_key.
 */
export function presentedKey(req: ApiRequest, tokenQuery: URLSearchParams | undefined): string | undefined {
  const h = header(req, 'x-api-key');
  if (h !== undefined && h !== '') {
    const key = h.trim();
    // Rare: a second key beside x-api-key. Looked for only when an Authorization line or a token is sent.
    if (header(req, 'authorization') !== undefined || tokenQuery?.has('token') === true) {
      const other = keyBesideHeader(req, tokenQuery);
      if (other !== undefined && other !== key) {
        throw new ProblemError('invalid_api_key', 'the request carries two different API keys (x-api-key and another); send one', WWW_AUTHENTICATE);
      }
    }
    return key;
  }
  return keyBesideHeader(req, tokenQuery);
}

/** The key of the Authorization line (Bearer; Basic on the token routes) or of `?token=` on those routes, or undefined. */
function keyBesideHeader(req: ApiRequest, tokenQuery: URLSearchParams | undefined): string | undefined {
  const auth = header(req, 'authorization');
  // node:http keeps the first of two Authorization lines (a Fetch runtime joins them, which no key
  // matches): a proxy that reads the last would have passed another key than the one we check.
  if (repeatedField(req, 'authorization')) {
    throw new ProblemError('malformed_request', 'the request carries more than one Authorization header line; send exactly one', { connection: 'close' });
  }
  if (auth !== undefined && auth.length > 7 && auth.slice(0, 7).toLowerCase() === 'bearer ') return auth.slice(7).trim();
  if (tokenQuery !== undefined && auth !== undefined && auth.length >= 5 && auth.slice(0, 5).toLowerCase() === 'basic') {
    const key = basicAuthKey(auth.slice(5));
    if (typeof key !== 'string') throw new ProblemError('invalid_api_key', key.malformed, WWW_AUTHENTICATE);
    return key;
  }
  const token = tokenQuery?.get('token');
  return token === null || token === undefined || token === '' ? undefined : token;
}

/** The detail of a missing_api_key answer; names the routes that take `?token=` when one was sent elsewhere. */
export function missingKeyDetail(query: URLSearchParams | undefined): string {
  return query?.has('token') === true
    ? 'send your API key in the x-api-key header; the token query parameter is accepted only on the /thirdparty routes'
    : 'send your API key in the x-api-key header';
}

export interface Authenticated {
  readonly key: KeyRecord;
  readonly plan: Plan;
}

export interface AuthContext {
  readonly keys: KeyCache;
  readonly plans: Readonly<Record<string, Plan>>;
  readonly activationDelayMs: number;
}

/**
 * Checks the presented key; throws ProblemError (401/403/503) when it may not
 * be served. Store failures surface as StoreUnavailableError. A key whose
 * record is in the cache is answered at once (a value, not a promise: no
 * microtask hops on the hot path), any other after its store read; a key
 * refused before any read (missing, malformed) throws at once. Callers await
 * the result, which treats both alike.
 */
export function authenticate(
  presented: string | undefined,
  ctx: AuthContext,
  now: number,
  missingDetail = missingKeyDetail(undefined),
  deadline = Number.POSITIVE_INFINITY,
): Authenticated | Promise<Authenticated> {
  if (presented === undefined) throw new ProblemError('missing_api_key', missingDetail, WWW_AUTHENTICATE);
  const id = keyId(presented);
  if (id === null) throw new ProblemError('invalid_api_key', 'the API key is not in the form <prefix>_live_<32 characters>', WWW_AUTHENTICATE);
  const cached = ctx.keys.fresh(id);
  if (cached !== undefined) return admit(presented, cached, ctx, now);
  return ctx.keys.get(id, deadline).then((key) => admit(presented, key, ctx, now));
}

/** Whether the record read for a presented key lets it be served: the Authenticated, or a thrown ProblemError. */
function admit(presented: string, key: KeyRecord | null, ctx: AuthContext, now: number): Authenticated {
  // Unknown id and wrong secret answer alike and cost alike (one cached read, one equal-length
  // comparison and one hash comparison each: keys/cache.ts), so neither the answer nor its time
  // tells which ids exist.
  const matches = ctx.keys.verify(presented, key);
  if (key === null || !matches) {
    throw new ProblemError('invalid_api_key', 'the API key is not valid', WWW_AUTHENTICATE);
  }
  const state = keyState(key, now, ctx.activationDelayMs);
  if (state === 'revoked') {
    const why = key.replacedBy === null ? 'the API key was revoked' : `the API key was rotated and its grace period has ended; use the key ${key.replacedBy}`;
    throw new ProblemError('key_revoked', why);
  }
  if (state === 'pending') {
    const wait = Math.max(1, Math.ceil((key.createdAt + ctx.activationDelayMs - now) / 1000));
    throw new ProblemError('key_not_active', `the API key becomes active in ${wait} s (keys activate ${Math.round(ctx.activationDelayMs / 1000)} s after creation)`, {
      'retry-after': String(wait),
      ...WWW_AUTHENTICATE,
    });
  }
  const plan = ctx.plans[key.plan];
  if (plan === undefined || !Object.hasOwn(ctx.plans, key.plan)) {
    throw new ProblemError('invalid_api_key', `the API key's plan ${JSON.stringify(key.plan)} is not offered by this server`, WWW_AUTHENTICATE);
  }
  return { key, plan };
}
