/**
 * A short-lived, per-process cache of key records, so the hot path does not
 * read the store for the key on every request.
 *
 * Consistency: a record is reused for at most `ttlMs` (default 1000 ms), so a
 * revocation or rotation made elsewhere (the CLI, another host) takes effect
 * on every server within that time. Activation needs no invalidation: it is
 * computed from createdAt at each request.
 *
 * No existence oracle: an unknown id is cached (as null) exactly like a known
 * one, so both cost one store read per TTL and the answer time does not tell
 * which ids exist; `hashOf(null)` gives a hash no key can match, so the caller
 * makes the same comparison on both paths. The cache is bounded: past
 * MAX_ENTRIES the oldest entry makes room (a flood of guessed ids evicts old
 * entries, known or not alike).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { StoreUnavailableError, type KeyRecord, type Store } from '../store/types.js';

const MAX_ENTRIES = 10_000;

export class KeyCache {
  private readonly entries = new Map<string, { record: KeyRecord | null; until: number }>();
  /** Stored hashes decoded to bytes once per record, for the constant-time compare. */
  private readonly hashes = new WeakMap<KeyRecord, Uint8Array>();
  /** What an unknown id is compared against: random, so no presented key matches it. */
  private readonly noKey = new Uint8Array(randomBytes(32));

  constructor(
    private readonly store: Store,
    private readonly ttlMs: number,
  ) {}

  /**
   * The key record for `id` (from the cache when fresh), or null. A store
   * read not answered by `deadline` (Date.now() time) rejects with
   * StoreUnavailableError (the read is abandoned, which is harmless).
   */
  async get(id: string, deadline = Number.POSITIVE_INFINITY): Promise<KeyRecord | null> {
    if (this.ttlMs <= 0) return beforeDeadline(this.store.getKey(id), deadline);
    const hit = this.entries.get(id);
    // Wall-clock time, not the injectable request clock: the TTL bounds real staleness.
    const t = Date.now();
    if (hit !== undefined && hit.until > t) return hit.record;
    const record = await beforeDeadline(this.store.getKey(id), deadline);
    this.entries.delete(id);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(id, { record, until: t + this.ttlMs });
    return record;
  }

  /** The record's hash as bytes (decoded once per record); for null, a hash nothing matches. */
  hashOf(record: KeyRecord | null): Uint8Array {
    if (record === null) return this.noKey;
    let h = this.hashes.get(record);
    if (h === undefined) {
      h = Buffer.from(record.hash, 'hex');
      this.hashes.set(record, h);
    }
    return h;
  }
}

/** `p`, or a StoreUnavailableError once `deadline` (Date.now() time) has passed. */
function beforeDeadline<T>(p: Promise<T>, deadline: number): Promise<T> {
  if (deadline === Number.POSITIVE_INFINITY) return p;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError('the key store did not answer in time')), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
