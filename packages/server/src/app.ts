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
import { accessLog } from './access-log.js';
import { resolvePlans, type Plan } from './plans.js';
import { methodsOf, route, splitUrl } from './routes/router.js';
import { clientAddressResolver, unmappedPeer, type TrustProxy } from './http/client-address.js';
import { corsPolicy } from './http/cors.js';
import { demoPlan as demoPlanOf } from './demo.js';
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
   * Longest a request waits for each store call (its key read, its count), ms (default 1000);
   * then 503 store_unavailable, and the count cannot land later (docs/api.md, Stores).
   */
  readonly storeTimeoutMs?: number;
  /** How long a key record read from the store is reused, ms (default 1000; 0 = read every time). Bounds how long a revocation takes to reach this process. */
  readonly keyCacheMs?: number;
  /** Prefix of problem `type` URIs (default `urn:ipintel:problem:`). */
  readonly problemTypeBase?: string;
  /**
   * Origins browsers may call the API from (`https://app.example.com`, or `*` for any);
   * default none (no CORS headers, OPTIONS is a 405). Each is brought to the form browsers
   * send (lower case, no default port, no trailing slash), and a request's Origin must be
   * that form exactly; an entry with a path, query or user throws TypeError. See
   * http/cors.ts and http/origin.ts.
   */
  readonly corsOrigins?: readonly string[];
  /**
   * Reverse proxies in front of the server, whose X-Forwarded-For names the client: a number
   * of hops, or addresses and CIDR blocks (`loopback`, `private` allowed). Default none: the
   * client is the connection's peer. See http/client-address.ts.
   */
  readonly trustProxy?: TrustProxy;
  /**
   * Lookups per client address per UTC day served without a key (an IPv6 client counts per
   * /64); default none: every lookup needs a key. A request that presents a key is judged by
   * it. See demo.ts.
   */
  readonly demoQuota?: number;
  /** Serve the web page at `/` (default true). See routes/page.ts. */
  readonly page?: boolean;
}

export interface App {
  /** Answers one request. Never throws. */
  handle(req: ApiRequest): Promise<ApiResponse>;
  /** Settles after the first snapshot load attempt. */
  readonly ready: Promise<void>;
  /** Reloads the snapshot file now (what SIGHUP does); resolves once a reload started after the call is done. */
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
 * const app = createApp({ store: 'sqlite:./ipintel.sqlite' }); // the default snapshot, as open()
 * const res = await app.handle({ method: 'GET', url: '/healthz', headers: {} }); // res.status => 200
 */
export function createApp(options: AppOptions = {}): App {
  const logger = options.logger === false ? silentLogger() : options.logger ?? defaultLogger();
  const now = options.now ?? Date.now;
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const publicBase = options.baseUrl === undefined ? '' : options.baseUrl.replace(/\/+$/, '') + basePath;
  const attributionUrl = publicBase === '' ? undefined : `${publicBase}/attribution`;
  // Preloaded (every column decoded and checked at load, docs/design.md "Loading"): a reload refuses a
  // damaged file before it replaces the one in service, and no request pays for the first IPv6 decode.
  const loadOptions = attributionUrl === undefined ? { now, preload: true } : { now, attributionUrl, preload: true };
  const plans = resolvePlans(options.plans); // validates before anything is opened
  const storeTimeoutMs = positive('storeTimeoutMs', options.storeTimeoutMs ?? 1000);
  const problemTypeBase = options.problemTypeBase ?? DEFAULT_PROBLEM_TYPE_BASE;
  const cors = corsPolicy(options.corsOrigins, problemTypeBase);
  const clientOf = clientAddressResolver(options.trustProxy);
  const demoPlan = demoPlanOf(options.demoQuota);

  const ownStore = options.store === undefined || typeof options.store === 'string';
  let storeDown = false;
  const store =
    typeof options.store === 'object'
      ? options.store
      : openStoreSync(options.store ?? defaultStoreSpec(), {
          onEvent: (event, error) => {
            if (event === 'late_count') {
              logger.warn({ err: error?.message }, 'store: a count whose request was answered 503 was undone');
              return;
            }
            if (event === 'unreconciled') {
              logger.error({ err: error?.message }, 'store: a count whose request was answered 503 could not be checked');
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
    problemTypeBase,
    publicBase,
    basePath,
    demoPlan,
    page: options.page ?? true,
  };

  // Decided once: a disabled access log costs the request path nothing.
  const logAccess = logger.isLevelEnabled('info') ? accessLog(logger) : undefined;
  const maxHeaders = options.maxHeaders ?? DEFAULT_MAX_HEADERS;

  async function handle(given: ApiRequest): Promise<ApiResponse> {
    const t0 = performance.now();
    const rc: RequestLog = { keyId: undefined, lookups: 0 };
    const client = clientOf === undefined ? unmappedPeer(given.remoteAddress) : clientOf(given.remoteAddress, given.headers['x-forwarded-for']);
    const req = client === given.remoteAddress ? given : { ...given, remoteAddress: client };
    let res: ApiResponse;
    let preflight: ApiResponse | undefined;
    try {
      // Refused, not truncated: a key after the limit must not go unseen.
      if (req.headerCount !== undefined && req.headerCount > maxHeaders) {
        res = { ...problem('headers_too_large', `a request may carry at most ${maxHeaders} header fields`, {}, problemTypeBase), close: true };
      } else if (!expectable(req)) {
        res = { ...problem('expectation_failed', 'the only Expect value this server meets is 100-continue', {}, problemTypeBase), close: true };
      } else if (cors !== undefined && (preflight = cors.preflight(req, methodsOf, splitUrl(req.url).path)) !== undefined) {
        res = preflight;
      } else res = await route(ctx, req, rc);
    } catch (e) {
      res = failure(ctx, e, req);
    }
    if (cors !== undefined && preflight === undefined) res = cors.decorate(req, res);
    // A HEAD answer carries the length its GET's body would have (RFC 9110 9.3.2, 8.6), not 0.
    if (req.method === 'HEAD') res = { ...res, headers: { ...res.headers, 'content-length': String(Buffer.byteLength(res.body)) }, body: '' };
    if (logAccess !== undefined) {
      const ms = Math.round((performance.now() - t0) * 100) / 100;
      logAccess(req.method, loggableUrl(req.url), res.status, res.code, rc.keyId, rc.lookups, client, ms);
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
