/**
 * The routing core: `createApp(options)` gives `handle(request) => response`
 * over plain objects (http/types.ts), with no socket in sight. The Node and
 * Fetch adapters and `startServer` wrap it; tests call it directly.
 *
 * handle() never throws: a ProblemError becomes its problem answer, an
 * unreachable store a 503 store_unavailable, anything else a logged 500.
 *
 * @module
 */
import { defaultSnapshotPath, open, type IpIntel } from '@ipintel/core';
import type { Logger } from 'pino';
import type { AppContext, RequestLog } from './context.js';
import { DEFAULT_PROBLEM_TYPE_BASE, problem, ProblemError } from './http/problem.js';
import { DEFAULT_MAX_HEADERS, header, type ApiRequest, type ApiResponse } from './http/types.js';
import { KeyCache } from './keys/cache.js';
import { DEFAULT_ACTIVATION_DELAY_MS } from './keys/manage.js';
import { defaultLogger, loggableUrl, silentLogger } from './log.js';
import { resolvePlans, type Plan } from './plans.js';
import { batchRoute, checkRoute, thirdpartyRoute } from './routes/lookup.js';
import { attributionRoute, healthRoute, openApiRoute } from './routes/meta.js';
import { SnapshotHolder } from './snapshot/holder.js';
import { defaultStoreSpec, openStoreSync } from './store/open.js';
import { StoreUnavailableError, type Store } from './store/types.js';

export interface AppOptions {
  /** A snapshot path (loaded, watched, hot-reloaded), a loaded IpIntel, or bytes. Default: core's default snapshot path. */
  readonly snapshot?: string | IpIntel | Uint8Array;
  /** `sqlite:PATH`, `redis://...`, or a Store (then the caller closes it). Default: defaultStoreSpec(). */
  readonly store?: string | Store;
  /** Time from key creation to activation, ms (default 60 000). */
  readonly activationDelayMs?: number;
  /** Plans added to or replacing the defaults (free, starter, pro, scale). */
  readonly plans?: Readonly<Record<string, Plan>>;
  /** Per-second limits per key (default true). */
  readonly rateLimit?: boolean;
  /** Largest request body, bytes (default 65 536). */
  readonly maxBodyBytes?: number;
  /**
   * Most bytes of a request body read before its key is accepted (Node adapter; default
   * 16 384). A request answered without its body being read (refused key, 404, 405, 413)
   * gets `Connection: close`, and past this many more bytes its connection is cut.
   */
  readonly maxBodyBeforeAuthBytes?: number;
  /** Most header fields in a request (default 100); more is a 431 headers_too_large. */
  readonly maxHeaders?: number;
  /** A pino logger, or false for none (default: JSON lines on stdout). */
  readonly logger?: Logger | false;
  /** Clock, ms since the epoch (default Date.now). */
  readonly now?: () => number;
  /** Public base URL (e.g. `https://ip.example.com`): results link to `<baseUrl><basePath>/attribution`. */
  readonly baseUrl?: string;
  /** Path the API is mounted under (adapters strip it), e.g. `/ipintel`. */
  readonly basePath?: string;
  /** Watch the snapshot file for replacement (default true). */
  readonly watch?: boolean;
  /** Stat-poll interval of the watcher, ms (default 1000; 0 = fs.watch only). */
  readonly pollIntervalMs?: number;
  /**
   * Longest a request waits for the store (key read and count together), ms (default 1000);
   * then 503 store_unavailable, and the count cannot land later (docs/api.md, Stores).
   */
  readonly storeTimeoutMs?: number;
  /** How long a key record read from the store is reused, ms (default 1000; 0 = read every time). Bounds how long a revocation takes to reach this process. */
  readonly keyCacheMs?: number;
  /** Prefix of problem `type` URIs (default `urn:ipintel:problem:`). */
  readonly problemTypeBase?: string;
}

export interface App {
  /** Answers one request. Never throws. */
  handle(req: ApiRequest): Promise<ApiResponse>;
  /** Settles after the first snapshot load attempt. */
  readonly ready: Promise<void>;
  /** Reloads the snapshot file now (what SIGHUP does). */
  reloadSnapshot(): Promise<void>;
  readonly snapshot: SnapshotHolder;
  readonly store: Store;
  readonly logger: Logger;
  /** Stops watching and closes the store if the app opened it. */
  close(): Promise<void>;
}

/**
 * Builds the routing core.
 *
 * @example
 * const app = createApp({ snapshot: 'data/default.ipintel', store: 'sqlite:./ipintel.sqlite' });
 * const res = await app.handle({ method: 'GET', url: '/healthz', headers: {} }); // res.status => 200
 */
export function createApp(options: AppOptions = {}): App {
  const logger = options.logger === false ? silentLogger() : options.logger ?? defaultLogger();
  const now = options.now ?? Date.now;
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const publicBase = options.baseUrl === undefined ? '' : options.baseUrl.replace(/\/+$/, '') + basePath;
  const attributionUrl = publicBase === '' ? undefined : `${publicBase}/attribution`;
  const loadOptions = attributionUrl === undefined ? { now } : { now, attributionUrl };
  const plans = resolvePlans(options.plans); // validates before anything is opened
  const storeTimeoutMs = positive('storeTimeoutMs', options.storeTimeoutMs ?? 1000);

  const ownStore = options.store === undefined || typeof options.store === 'string';
  let storeDown = false;
  const store =
    typeof options.store === 'object'
      ? options.store
      : openStoreSync(options.store ?? defaultStoreSpec(), {
          onEvent: (event, error) => {
            if (event === 'late_count') {
              logger.error({ err: error?.message }, 'store: a count arrived after its deadline');
              return;
            }
            // One line per outage, not one per reconnect attempt.
            if ((event === 'error' || event === 'stalled') && !storeDown) logger.warn({ err: error?.message ?? 'not answering' }, event === 'stalled' ? 'store stalled' : 'store unreachable');
            if (event === 'ready' && storeDown) logger.info('store reachable again');
            storeDown = event === 'error' || event === 'stalled';
          },
        });

  const src = options.snapshot ?? defaultSnapshotPath();
  const holder =
    typeof src === 'string'
      ? new SnapshotHolder(
          src,
          {
            load: (path) => open(path, loadOptions),
            events: {
              loaded: (i) => logger.info({ snapshot: i.path, build_date: i.build_date, ms: i.ms }, 'snapshot loaded'),
              refused: (i) => logger.error({ snapshot: i.path, err: (i.error as Error)?.message ?? String(i.error) }, 'snapshot refused; keeping the one in service'),
              missing: (i) => logger.warn({ snapshot: i.path }, 'snapshot file not found'),
            },
            ...(options.watch === undefined ? {} : { watch: options.watch }),
            ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
          },
        )
      : new SnapshotHolder(undefined, { load: () => Promise.reject(new Error('no path')), events: noEvents }, src instanceof Uint8Array ? undefined : src);
  const ready =
    src instanceof Uint8Array
      ? open(src, loadOptions).then((intel) => {
          holder.current = intel;
          holder.loadedAt = Date.now();
        })
      : holder.start();

  const ctx: AppContext = {
    store,
    keys: new KeyCache(store, options.keyCacheMs ?? 1000),
    plans,
    activationDelayMs: options.activationDelayMs ?? DEFAULT_ACTIVATION_DELAY_MS,
    rateLimit: options.rateLimit ?? true,
    maxBodyBytes: options.maxBodyBytes ?? 65_536,
    storeTimeoutMs,
    now,
    snapshot: holder,
    logger,
    problemTypeBase: options.problemTypeBase ?? DEFAULT_PROBLEM_TYPE_BASE,
    publicBase,
  };

  // Decided once: a disabled access log costs the request path nothing.
  const accessLog = logger.isLevelEnabled('info');
  const maxHeaders = options.maxHeaders ?? DEFAULT_MAX_HEADERS;

  async function handle(req: ApiRequest): Promise<ApiResponse> {
    const t0 = performance.now();
    const rc: RequestLog = { keyId: undefined, lookups: 0 };
    let res: ApiResponse;
    try {
      // Refused, not truncated: a key after the limit must not go unseen.
      if (req.headerCount !== undefined && req.headerCount > maxHeaders) {
        res = { ...problem('headers_too_large', `a request may carry at most ${maxHeaders} header fields`, {}, ctx.problemTypeBase), close: true };
      } else if (!expectable(req)) {
        res = { ...problem('expectation_failed', 'the only Expect value this server meets is 100-continue', {}, ctx.problemTypeBase), close: true };
      } else res = await route(ctx, req, rc);
    } catch (e) {
      res = failure(ctx, e, req);
    }
    if (req.method === 'HEAD') res = { ...res, body: '' };
    if (accessLog) {
      const ms = Math.round((performance.now() - t0) * 100) / 100;
      logger.info({ method: req.method, url: loggableUrl(req.url), status: res.status, code: res.code, key_id: rc.keyId, lookups: rc.lookups, ms }, 'request');
    }
    return res;
  }

  return {
    handle,
    ready: ready.catch((e: unknown) => {
      logger.error({ err: (e as Error).message }, 'snapshot refused');
    }),
    reloadSnapshot: () => holder.reload(),
    snapshot: holder,
    store,
    logger,
    close: async () => {
      holder.close();
      if (ownStore) await store.close();
    },
  };
}

/** Whether the request's Expect header (if any) is one this server meets. */
const expectable = (req: ApiRequest): boolean => {
  const e = header(req, 'expect');
  return e === undefined || e.toLowerCase() === '100-continue';
};

function positive(name: string, v: number): number {
  if (!Number.isSafeInteger(v) || v <= 0) throw new TypeError(`${name} must be a positive whole number of ms, got ${String(v)}`);
  return v;
}

const noEvents = { loaded: () => {}, refused: () => {}, missing: () => {} };

function failure(ctx: AppContext, e: unknown, req: ApiRequest): ApiResponse {
  if (e instanceof ProblemError) return problem(e.code, e.message, e.headers, ctx.problemTypeBase);
  if (e instanceof StoreUnavailableError) {
    return problem('store_unavailable', 'the key and quota store cannot be reached; nothing was served or counted; retry shortly', { 'retry-after': '1' }, ctx.problemTypeBase);
  }
  ctx.logger.error({ err: e instanceof Error ? e.stack : String(e), url: loggableUrl(req.url) }, 'unexpected error');
  return problem('internal_error', 'an unexpected error occurred; it has been logged', {}, ctx.problemTypeBase);
}

const notAllowed = (ctx: AppContext, allow: string, method: string): ApiResponse =>
  problem('method_not_allowed', `${method.slice(0, 16)} is not allowed here; allowed: ${allow}`, { allow }, ctx.problemTypeBase);

const isGet = (m: string): boolean => m === 'GET' || m === 'HEAD';

function route(ctx: AppContext, req: ApiRequest, rc: RequestLog): ApiResponse | Promise<ApiResponse> {
  const url = req.url;
  const qi = url.indexOf('?');
  const path = qi < 0 ? url : url.slice(0, qi);
  const query = qi < 0 ? '' : url.slice(qi + 1);
  switch (path) {
    case '/v1/check':
      return req.method === 'GET' ? checkRoute(ctx, req, query, rc) : notAllowed(ctx, 'GET', req.method);
    case '/v1/check/batch':
      return req.method === 'POST' ? batchRoute(ctx, req, query, rc) : notAllowed(ctx, 'POST', req.method);
    case '/healthz':
      return isGet(req.method) ? healthRoute(ctx) : notAllowed(ctx, 'GET, HEAD', req.method);
    case '/attribution':
      return isGet(req.method) ? attributionRoute(ctx, req) : notAllowed(ctx, 'GET, HEAD', req.method);
    case '/v1/openapi.json':
      return isGet(req.method) ? openApiRoute(ctx) : notAllowed(ctx, 'GET, HEAD', req.method);
  }
  if (path === '/thirdparty' || path.startsWith('/thirdparty/')) {
    if (req.method !== 'GET') return notAllowed(ctx, 'GET', req.method);
    const res = thirdpartyRoute(ctx, req, path, query, rc);
    if (res !== undefined) return res;
  }
  const shown = path.length > 128 ? `${path.slice(0, 128)}…` : path;
  return problem('not_found', `no such endpoint: ${shown}; see /v1/openapi.json`, {}, ctx.problemTypeBase);
}
