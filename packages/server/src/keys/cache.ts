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
 * Proven keys: once a presented key has matched a record's hash, the key is
 * kept with that record object (for as long as the record is cached), and the
 * next request presenting it is verified by a constant-time comparison with
 * it instead of a SHA-256 (~2 us of a request's ~15 us in the routing core;
 * docs/design.md). A key that does not match costs the same whatever its id:
 * one equal-length constant-time comparison (with the proven key, or with
 * random bytes when there is none) and then the hash comparison, which fails.
 * A rotated or revoked key is a new record, read from the store after the
 * TTL, with nothing proven yet. The process holds the plaintext of keys it is
 * presented anyway; this keeps one per cached record a little longer.
 *
 * @module
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { keyMatches } from './secret.js';
import { StoreUnavailableError, type KeyRecord, type Store } from '../store/types.js';

const MAX_ENTRIES = 10_000;

export class KeyCache {
  private readonly entries = new Map<string, { record: KeyRecord | null; until: number }>();
  /** Stored hashes decoded to bytes once per record, for the constant-time compare. */
  private readonly hashes = new WeakMap<KeyRecord, Uint8Array>();
  /** What an unknown id is compared against: random, so no presented key matches it. */
  private readonly noKey = new Uint8Array(randomBytes(32));
  /** The last presented key that matched each record's hash, as bytes. */
  private readonly proven = new WeakMap<KeyRecord, Buffer>();
  /** Random bytes per key length: what a key is compared with when its record has no proven key of that length. */
  private readonly decoys = new Map<number, Buffer>();

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
    const hit = this.fresh(id);
    if (hit !== undefined) return hit;
    // Wall-clock time, not the injectable request clock: the TTL bounds real staleness.
    const t = Date.now();
    const record = await beforeDeadline(this.store.getKey(id), deadline);
    this.entries.delete(id);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(id, { record, until: t + this.ttlMs });
    return record;
  }

  /** The cached record for `id` (null: an unknown id) while it is fresh; undefined when it must be read (get). */
  fresh(id: string): KeyRecord | null | undefined {
    if (this.ttlMs <= 0) return undefined;
    const hit = this.entries.get(id);
    // Wall-clock time, not the injectable request clock: the TTL bounds real staleness.
    return hit !== undefined && hit.until > Date.now() ? hit.record : undefined;
  }

  /**
   * Whether `presented` is the key of `record` (null: an unknown id, never).
   * See the module comment for why every mismatch costs the same.
   */
  verify(presented: string, record: KeyRecord | null): boolean {
    const given = Buffer.from(presented, 'latin1');
    const known = record === null ? undefined : this.proven.get(record);
    const same = known !== undefined && known.length === given.length;
    if (timingSafeEqual(same ? known : this.decoy(given.length), given) && same) return true;
    const ok = keyMatches(presented, this.hashOf(record));
    if (ok && record !== null) this.proven.set(record, given);
    return ok;
  }

  private decoy(length: number): Buffer {
    let d = this.decoys.get(length);
    if (d === undefined) {
      d = randomBytes(length);
      this.decoys.set(length, d);
    }
    return d;
  }

  /** The record's hash as bytes (decoded once per record); for null, a hash nothing matches. */
  private hashOf(record: KeyRecord | null): Uint8Array {
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
