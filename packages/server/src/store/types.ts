/**
 * The store interface: keys and usage counters. Two implementations (SQLite,
 * Redis) pass one test suite. Every method may reject with
 * StoreUnavailableError; the server then fails closed (503 store_unavailable).
 *
 * Counting contract: `consume` is atomic. Within one call the store checks
 * the per-second window and the quota and adds `n` only if both allow it, as
 * one step, so concurrent calls from any number of processes never admit
 * more than the quota.
 *
 * @module
 */

/** One API key as stored: never the key itself, only its hash. */
export interface KeyRecord {
  /** Public id: the first 10 random characters of the key. */
  readonly id: string;
  /** Hex SHA-256 of the full key. */
  readonly hash: string;
  /** The key's prefix (`ipi`). */
  readonly prefix: string;
  readonly plan: string;
  readonly name: string | null;
  /** Usage is counted per account; a rotated key keeps its account (and so its quota use). */
  readonly account: string;
  /** Creation time, ms since the epoch. The key is active from createdAt + activation delay. */
  readonly createdAt: number;
  /** From this time the key answers `key_revoked`; null while not revoked. */
  readonly revokedAt: number | null;
  /** Id of the key that replaced this one by rotation. */
  readonly replacedBy: string | null;
}

export interface ConsumeRequest {
  readonly account: string;
  /** Period counter name, e.g. `d2026-03-07` (see plans.ts). */
  readonly period: string;
  /** End of the period (ms): counters may expire some time after it. */
  readonly periodEndsAt: number;
  /** Lookups allowed in the period. */
  readonly quota: number;
  /** Lookups to add (0: only read the counter and take a rate token). */
  readonly n: number;
  /** Requests allowed per second (0: no limit). */
  readonly ratePerSecond: number;
  /** The current second (Math.floor(now / 1000)): the rate window. */
  readonly second: number;
  /**
   * Wall-clock time (ms since the epoch, Date.now) after which this count must
   * not happen. A store that cannot count by then rejects with
   * StoreUnavailableError, and the count cannot land afterwards (Redis checks
   * the deadline inside its script), so a request answered 503 is never
   * counted. Default: the store's own command timeout.
   */
  readonly deadline?: number;
}

export interface ConsumeResult {
  /** `ok`: counted. Otherwise nothing was counted. */
  readonly outcome: 'ok' | 'quota_exceeded' | 'rate_limited';
  /** Lookups used in the period after this call. */
  readonly used: number;
}

export interface Store {
  /** `sqlite` or `redis`. */
  readonly kind: string;
  /** Where the store is, without credentials (for logs and /healthz). */
  readonly location: string;
  getKey(id: string): Promise<KeyRecord | null>;
  /** Adds a key; resolves false when the id is taken. */
  insertKey(key: KeyRecord): Promise<boolean>;
  listKeys(): Promise<KeyRecord[]>;
  /**
   * Sets when the key stops working, only ever moving it earlier; `replacedBy`
   * is recorded when given and the key has none yet (the first rotation wins:
   * rotateKey reads it back to tell whether its rotation lost a race).
   * Resolves false when no such key exists.
   */
  revokeKey(id: string, at: number, replacedBy?: string): Promise<boolean>;
  /**
   * Atomic check-and-count. Resolves only with a committed outcome; when it
   * rejects, nothing stays counted: SQLite counts nothing, and a Redis count
   * whose fate is unknown (its reply late or lost) is checked once it can no
   * longer run and undone if it ran (redis.ts, redis-reconcile.ts; the one
   * gap, a check not possible before the count's marker expires, is logged).
   */
  consume(req: ConsumeRequest): Promise<ConsumeResult>;
  /** Lookups used by `account` in `period`. */
  usage(account: string, period: string): Promise<number>;
  /** Resolves when the store answers; rejects with StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The store could not be reached or did not answer in time. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
