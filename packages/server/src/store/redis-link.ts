/**
 * The Redis store's link to Redis, beyond what ioredis does:
 *
 * - Every command is bounded: no answer within its timeout rejects it with
 *   StoreUnavailableError (ioredis's own commandTimeout is not used: it could
 *   reject a count that Redis may still run).
 * - Stalled Redis (alive but not answering: paused, swapping, a slow script):
 *   the first command that times out opens a circuit; until Redis answers a
 *   probe PING again (every PROBE_EVERY_MS), commands fail at once without
 *   being sent. Requests then get their 503 at once, and no backlog of
 *   commands builds up behind the stall.
 * - A lost connection rejects every command waiting for an answer at once.
 * - Redis's clock: the offset between this host's wall clock and Redis's TIME,
 *   measured on each connection and every CLOCK_EVERY_MS, with its
 *   uncertainty (half the round trip). The count script compares its
 *   deadline with TIME, so the deadline is given in Redis's clock.
 *
 * @module
 */
import type { Redis } from 'ioredis';
import { StoreUnavailableError } from './types.js';

const PROBE_EVERY_MS = 200;
const CLOCK_EVERY_MS = 15_000;
/** A clock reading with a longer round trip than this is not used. */
const CLOCK_MAX_RTT_MS = 200;
/** Uncertainty assumed before the first clock reading (same host: none; NTP-synchronised hosts: a few ms). */
const UNMEASURED_SLACK_MS = 250;

export interface RedisClock {
  /** Redis's TIME minus this host's Date.now(), ms. */
  readonly offset: number;
  /** How far `offset` may be off, ms. */
  readonly slack: number;
}

export class RedisLink {
  private stalledSince: number | undefined;
  private prober: NodeJS.Timeout | undefined;
  private probing = false;
  private clockTimer: NodeJS.Timeout | undefined;
  private readonly waiting = new Set<(e: Error) => void>();
  /** The clock mapping in use (offset 0 until measured). */
  clock: RedisClock = { offset: 0, slack: UNMEASURED_SLACK_MS };
  /** Settles after the first clock reading on a connection (successful or not). */
  clockRead: Promise<void> = Promise.resolve();
  /** Whether that first reading is done. */
  clockKnown = false;

  constructor(
    private readonly redis: Redis,
    private readonly where: string,
    private readonly onStall: (stalled: boolean) => void,
  ) {
    redis.on('ready', () => {
      this.clockKnown = false;
      this.clockRead = this.readClock().finally(() => (this.clockKnown = true));
      if (this.clockTimer === undefined) {
        this.clockTimer = setInterval(() => void this.readClock(), CLOCK_EVERY_MS);
        this.clockTimer.unref();
      }
    });
    redis.on('close', () => {
      const lost = new StoreUnavailableError(`Redis store (${where}): the connection was lost before the answer came`);
      for (const reject of this.waiting) reject(lost);
      this.waiting.clear();
    });
  }

  /** Whether commands are failing fast because Redis stopped answering. */
  get stalled(): boolean {
    return this.stalledSince !== undefined;
  }

  /**
   * Sends one command (`send` starts it) and waits at most `timeoutMs`.
   * `late` sees the answer if it comes after the caller was answered (the
   * count uses it to undo a count that landed too late).
   */
  call<T>(what: string, send: () => Promise<T>, timeoutMs: number, late?: (value: T) => void): Promise<T> {
    const fail = (why: string, cause?: unknown): StoreUnavailableError =>
      new StoreUnavailableError(`Redis store (${this.where}): could not ${what}: ${why}`, cause === undefined ? undefined : { cause });
    if (this.stalledSince !== undefined) {
      return Promise.reject(fail(`Redis has not answered since ${new Date(this.stalledSince).toISOString()}; not sent`));
    }
    if (timeoutMs <= 0) return Promise.reject(fail('no time left before the deadline; not sent'));
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const settle = (e: Error): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.waiting.delete(settle);
        reject(e);
      };
      const timer = setTimeout(() => {
        settle(fail(`no answer within ${timeoutMs} ms`));
        this.markStalled();
      }, timeoutMs);
      this.waiting.add(settle);
      let sent: Promise<T>;
      try {
        sent = send();
      } catch (e) {
        settle(fail((e as Error).message, e));
        return;
      }
      sent.then(
        (v) => {
          if (settled) {
            late?.(v);
            return;
          }
          settled = true;
          clearTimeout(timer);
          this.waiting.delete(settle);
          resolve(v);
        },
        (e: unknown) => settle(fail(e instanceof Error ? e.message : String(e), e)),
      );
    });
  }

  /** Stops the probe and clock timers. */
  close(): void {
    if (this.prober !== undefined) clearInterval(this.prober);
    if (this.clockTimer !== undefined) clearInterval(this.clockTimer);
    this.prober = undefined;
    this.clockTimer = undefined;
  }

  private markStalled(): void {
    if (this.stalledSince !== undefined) return;
    this.stalledSince = Date.now();
    this.onStall(true);
    this.prober = setInterval(() => void this.probe(), PROBE_EVERY_MS);
    this.prober.unref();
  }

  /** One PING at a time; an answer closes the circuit. */
  private async probe(): Promise<void> {
    if (this.probing || this.redis.status !== 'ready') return;
    this.probing = true;
    try {
      await this.redis.ping();
      if (this.stalledSince !== undefined) {
        this.stalledSince = undefined;
        if (this.prober !== undefined) clearInterval(this.prober);
        this.prober = undefined;
        this.onStall(false);
        await this.readClock();
      }
    } catch {
      // still not answering (or the connection broke: ioredis reconnects)
    } finally {
      this.probing = false;
    }
  }

  private async readClock(): Promise<void> {
    try {
      const t0 = Date.now();
      const [sec, usec] = await this.redis.time();
      const t1 = Date.now();
      if (t1 - t0 > CLOCK_MAX_RTT_MS) return;
      this.clock = { offset: Number(sec) * 1000 + Number(usec) / 1000 - (t0 + t1) / 2, slack: (t1 - t0) / 2 + 1 };
    } catch {
      // keep the last reading; the next ready or interval tries again
    }
  }
}
