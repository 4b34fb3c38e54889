/**
 * Plans and quota periods (PRODUCT.md section 6). One table, configurable:
 * a server or the `keys` command may add plans (tests use a small `test`
 * plan) or override a default one.
 *
 * Periods are UTC: a `day` quota resets at 00:00 UTC, a `month` quota at
 * 00:00 UTC on the first day of the next calendar month.
 *
 * @module
 */

export type QuotaPeriod = 'day' | 'month';

export interface Plan {
  /** Successful lookups allowed per period. */
  readonly quota: number;
  readonly period: QuotaPeriod;
  /** Requests per second per key against bursts; 0 turns the limit off. */
  readonly ratePerSecond: number;
}

/** The default plans. */
export const DEFAULT_PLANS: Readonly<Record<string, Plan>> = Object.freeze({
  free: Object.freeze({ quota: 1_000, period: 'day', ratePerSecond: 10 }),
  starter: Object.freeze({ quota: 750_000, period: 'month', ratePerSecond: 100 }),
  pro: Object.freeze({ quota: 3_000_000, period: 'month', ratePerSecond: 100 }),
  scale: Object.freeze({ quota: 10_000_000, period: 'month', ratePerSecond: 100 }),
});

/** The default plans with `extra` added over them; validates every entry. */
export function resolvePlans(extra?: Readonly<Record<string, Plan>>): Readonly<Record<string, Plan>> {
  const plans: Record<string, Plan> = { ...DEFAULT_PLANS, ...extra };
  for (const [name, p] of Object.entries(plans)) {
    if (!/^[a-z][a-z0-9_-]{0,31}$/.test(name)) throw new TypeError(`plan name ${JSON.stringify(name)} must be lower-case letters, digits, - or _`);
    if (!Number.isSafeInteger(p.quota) || p.quota < 0) throw new TypeError(`plan ${name}: quota must be a non-negative integer`);
    if (p.period !== 'day' && p.period !== 'month') throw new TypeError(`plan ${name}: period must be "day" or "month"`);
    if (!Number.isSafeInteger(p.ratePerSecond) || p.ratePerSecond < 0) throw new TypeError(`plan ${name}: ratePerSecond must be a non-negative integer`);
  }
  return Object.freeze(plans);
}

/** One quota period: the counter's name and when it ends. */
export interface PeriodWindow {
  /** `d2026-03-07` or `m2026-03`. */
  readonly key: string;
  /** End of the period, ms since the epoch (exclusive). */
  readonly endsAt: number;
}

const pad = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** The period that contains `now`. Cached per (period, UTC day) since it changes once a day. */
export function periodAt(period: QuotaPeriod, now: number): PeriodWindow {
  const dayStart = now - (now % 86_400_000);
  const cached = period === 'day' ? dayCache : monthCache;
  if (cached.dayStart === dayStart) return cached.window;
  const d = new Date(dayStart);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const window: PeriodWindow =
    period === 'day'
      ? { key: `d${y}-${pad(m + 1)}-${pad(d.getUTCDate())}`, endsAt: dayStart + 86_400_000 }
      : { key: `m${y}-${pad(m + 1)}`, endsAt: Date.UTC(y, m + 1, 1) };
  cached.dayStart = dayStart;
  cached.window = window;
  return window;
}

const dayCache = { dayStart: NaN, window: { key: '', endsAt: 0 } as PeriodWindow };
const monthCache = { dayStart: NaN, window: { key: '', endsAt: 0 } as PeriodWindow };
