/**
 * Undoing counts whose requests were answered 503 (the Redis store's part of
 * "counted iff answered 200").
 *
 * Each count the script makes leaves a marker: the count's id and size in a
 * per-account, per-second hash (`{account}:c:<second>`, kept MARKER_TTL_MS).
 * When the store answered a count's request with 503 without knowing whether
 * Redis ran it (no answer in time, or the connection broke after sending),
 * the count is entered here. Once its deadline has passed, so that Redis can
 * no longer run it, the refund script checks the marker: if the count ran,
 * it is taken back (DECRBY) and the marker deleted, in one step, so a count
 * is undone at most once. A count whose late answer says it ran is undone at
 * once. Entries wait while Redis is unreachable; one still not settled when
 * its marker expires, or when the store closes (after a bounded last try,
 * drain()), is reported (`unreconciled`) and dropped.
 *
 * drain() waits for the round and the undoing already under way: a round
 * holds its counts outside the pending list while it runs, so a drain that
 * looked only at the list could end while counts were out, and those put
 * back after it would never be checked nor reported.
 *
 * @module
 */

/** How long a count's marker is kept, ms. */
export const MARKER_TTL_MS = 120_000;
const RUN_EVERY_MS = 250;
/** How often drain() tries again while Redis is not back yet, ms. */
const DRAIN_EVERY_MS = 50;

export interface UncertainCount {
  readonly usageKey: string;
  readonly markerKey: string;
  readonly id: string;
  readonly n: number;
  readonly account: string;
  /** Redis cannot run the count after this (Date.now() time). */
  readonly notBefore: number;
  /** Its marker is gone after this. */
  readonly expires: number;
}

export const REFUND_LUA = `
local n = redis.call('HGET', KEYS[2], ARGV[1])
if not n then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('DECRBY', KEYS[1], n)
return tonumber(n)`;

export class Reconciler {
  private pending: UncertainCount[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The round under way, if any (one at a time). */
  private round: Promise<void> | undefined;
  /** Undoing of counts whose late answer said they ran, under way. */
  private readonly undoing = new Set<Promise<void>>();
  /** Set once drain() is done: a count arriving after it is reported at once. */
  private drained = false;

  constructor(
    /** Runs the refund script; resolves with the lookups taken back (0: the count never ran, or was undone already). */
    private readonly refund: (c: UncertainCount) => Promise<number>,
    private readonly report: (event: 'late_count' | 'unreconciled', error: Error) => void,
  ) {}

  /** A count whose request got a 503 and whose fate is unknown. */
  add(c: UncertainCount): void {
    if (this.drained) {
      this.reportUnchecked(c);
      return;
    }
    this.pending.push(c);
    if (this.timer === undefined) {
      this.timer = setInterval(() => void this.run(), RUN_EVERY_MS);
      this.timer.unref();
    }
  }

  /** A count that Redis ran although its request got a 503: undo it now. */
  late(c: UncertainCount): void {
    const undo = this.settle(c)
      .catch(() => this.add(c))
      .finally(() => this.undoing.delete(undo));
    this.undoing.add(undo);
  }

  /** Counts still waiting to be checked. */
  get size(): number {
    return this.pending.length;
  }

  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * For the store's close: keeps checking the counts still waiting (each once
   * it can no longer run) for at most `ms`, then reports those left as
   * `unreconciled`. Dropped silently instead, a count whose request got a 503
   * just before a graceful stop would stay counted with nothing logged.
   */
  async drain(ms: number): Promise<void> {
    const end = Date.now() + ms;
    for (;;) {
      // Whatever is under way first: its counts come back to the list (or are settled).
      await Promise.all([this.round, ...this.undoing]);
      const idle = this.pending.length === 0 && this.round === undefined && this.undoing.size === 0;
      if (idle || Date.now() >= end) break;
      await this.run();
      if (this.pending.length > 0) await new Promise((r) => setTimeout(r, DRAIN_EVERY_MS));
    }
    this.close();
    this.drained = true;
    for (const c of this.pending) this.reportUnchecked(c);
    this.pending = [];
  }

  private reportUnchecked(c: UncertainCount): void {
    this.report('unreconciled', new Error(`could not check a count of ${c.n} for account ${c.account} whose request was answered 503 before the store closed; it may stay counted`));
  }

  private async settle(c: UncertainCount): Promise<void> {
    const n = await this.refund(c);
    if (n > 0) this.report('late_count', new Error(`a count of ${n} for account ${c.account} whose request was answered 503 was undone`));
  }

  /** Starts a round, or joins the one under way. */
  private run(): Promise<void> {
    this.round ??= this.oneRound().finally(() => (this.round = undefined));
    return this.round;
  }

  private async oneRound(): Promise<void> {
    const now = Date.now();
    const batch = this.pending;
    this.pending = []; // counts added while this round runs go here
    const keep: UncertainCount[] = [];
    for (const c of batch) {
      if (now < c.notBefore) keep.push(c);
      else if (now > c.expires) this.report('unreconciled', new Error(`could not check a count of ${c.n} for account ${c.account} whose request was answered 503 before its marker expired; it may stay counted`));
      else {
        try {
          await this.settle(c);
        } catch {
          keep.push(c); // Redis unreachable or stalled: next round
        }
      }
    }
    this.pending = keep.concat(this.pending);
    if (this.pending.length === 0) this.close();
  }
}
