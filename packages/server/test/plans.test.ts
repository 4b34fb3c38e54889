/**
 * Quota periods (plans.ts): periodAt gives the UTC day or calendar month
 * that holds an instant, and its end, for any instant (property, against
 * Date's own UTC calendar); the last millisecond of a period and the first
 * of the next fall in two periods. periodAt keeps the last window per
 * period kind, so instants in any order must still get their own. The
 * default plans are the ones PRODUCT.md section 6 names.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PLANS, periodAt } from '../src/plans.js';

const DAY = 86_400_000;
/** 1970-01-01 to 9999-12-31: the instants whose ISO date has the plain form. */
const instant = fc.integer({ min: 0, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) });

describe('periodAt', () => {
  it('property: the day period of t is t\'s UTC date, ending at the next 00:00 UTC', () => {
    fc.assert(
      fc.property(instant, (t) => {
        const d = new Date(t);
        const w = periodAt('day', t);
        expect(w.key).toBe(`d${d.toISOString().slice(0, 10)}`);
        expect(w.endsAt).toBe(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1));
        expect(w.endsAt - DAY <= t && t < w.endsAt).toBe(true);
      }),
      { numRuns: 2000, seed: 7 },
    );
  });

  it('property: the month period of t is t\'s UTC year and month, ending at 00:00 UTC on the first of the next', () => {
    fc.assert(
      fc.property(instant, (t) => {
        const d = new Date(t);
        const w = periodAt('month', t);
        expect(w.key).toBe(`m${d.toISOString().slice(0, 7)}`);
        expect(w.endsAt).toBe(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
        expect(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) <= t && t < w.endsAt).toBe(true);
      }),
      { numRuns: 2000, seed: 7 },
    );
  });

  it('property: the last millisecond of a period and the first of the next are two periods, the next starting where the last ends', () => {
    fc.assert(
      fc.property(instant, fc.constantFrom('day' as const, 'month' as const), (t, period) => {
        const end = periodAt(period, t).endsAt;
        const last = periodAt(period, end - 1);
        const next = periodAt(period, end);
        expect(last.endsAt).toBe(end);
        expect(next.key).not.toBe(last.key);
        expect(next.endsAt).toBeGreaterThan(end);
      }),
      { numRuns: 1000, seed: 7 },
    );
  });

  it('turns at 00:00:00.000 UTC: on a month end, a leap day and a year end', () => {
    const at = (iso: string) => ({ day: periodAt('day', Date.parse(iso)).key, month: periodAt('month', Date.parse(iso)).key });
    expect(at('2026-03-31T23:59:59.999Z')).toEqual({ day: 'd2026-03-31', month: 'm2026-03' });
    expect(at('2026-04-01T00:00:00.000Z')).toEqual({ day: 'd2026-04-01', month: 'm2026-04' });
    expect(at('2028-02-29T23:59:59.999Z')).toEqual({ day: 'd2028-02-29', month: 'm2028-02' });
    expect(at('2028-03-01T00:00:00.000Z')).toEqual({ day: 'd2028-03-01', month: 'm2028-03' });
    expect(at('2026-12-31T23:59:59.999Z')).toEqual({ day: 'd2026-12-31', month: 'm2026-12' });
    expect(at('2027-01-01T00:00:00.000Z')).toEqual({ day: 'd2027-01-01', month: 'm2027-01' });
    expect(periodAt('month', Date.parse('2026-12-15T12:00:00Z')).endsAt).toBe(Date.parse('2027-01-01T00:00:00Z'));
  });
});

describe('the default plans', () => {
  it('are the plans of PRODUCT.md section 6: free 1,000 a UTC day; starter 750,000, pro 3,000,000, scale 10,000,000 a calendar month', () => {
    const quotas = Object.fromEntries(Object.entries(DEFAULT_PLANS).map(([name, p]) => [name, [p.quota, p.period]]));
    expect(quotas).toEqual({ free: [1_000, 'day'], starter: [750_000, 'month'], pro: [3_000_000, 'month'], scale: [10_000_000, 'month'] });
  });
});
