/**
 * What every route needs: the resolved options of one app instance. Built once
 * by createApp (app.ts); routes only read it.
 *
 * @module
 */
import type { Logger } from 'pino';
import type { KeyCache } from './keys/cache.js';
import type { Plan } from './plans.js';
import type { SnapshotHolder } from './snapshot/holder.js';
import type { Store } from './store/types.js';

export interface AppContext {
  readonly store: Store;
  /** Key records, cached for a short time (keys/cache.ts). */
  readonly keys: KeyCache;
  readonly plans: Readonly<Record<string, Plan>>;
  readonly activationDelayMs: number;
  /** Per-second limits on (plans' ratePerSecond) or off. */
  readonly rateLimit: boolean;
  readonly maxBodyBytes: number;
  /** Longest a request waits for each store call, ms. */
  readonly storeTimeoutMs: number;
  readonly now: () => number;
  readonly snapshot: SnapshotHolder;
  readonly logger: Logger;
  readonly problemTypeBase: string;
  /** Public base URL plus mount path, for links (`''` when unknown). */
  readonly publicBase: string;
  /** The mount path (AppOptions.basePath, no trailing slash; `''` at the root): where the API is when no public URL is given. */
  readonly basePath: string;
  /** The plan of keyless requests (AppOptions.demoQuota), or undefined when a key is required (demo.ts). */
  readonly demoPlan: Plan | undefined;
  /** Whether `/` serves the web page (AppOptions.page). */
  readonly page: boolean;
}

/** Per-request facts for the access log, filled in by the routes. */
export interface RequestLog {
  keyId: string | undefined;
  lookups: number;
}

/** Most IPs one batch may carry (spec 4.2). */
export const MAX_BATCH = 100;
