/**
 * build/future-dates.ts: a data date past the build machine's clock is
 * recorded as none, so it can neither become the build date nor age the
 * dated VPN lists out of a build (a feed dated 2062 would otherwise do both).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromFolder, type Acquire } from '../src/acquire.js';
import { FUTURE_SLACK_MS, timeOfDataDate, withoutFutureDate } from '../src/build/future-dates.js';
import { loadInputs } from '../src/build/load.js';
import { newestDate } from '../src/build/roles.js';
import type { FeedResult } from '../src/feeds/types.js';
import { FIXTURES } from './feeds/helpers.js';

const source = (data_date: string | null) => ({
  id: 'f',
  publisher: 'P',
  url: 'https://example.test/',
  licence: 'L',
  attribution_required: false,
  evidence: 'inferred' as const,
  data_date,
  entries: 1,
});
const result = (data_date: string | null): FeedResult => ({ rejected: [], dataDate: data_date, source: source(data_date) });

/** The fixture feeds with ARIN's file dated `arinDate` and the az0 VPN list dated 2026-08-01 (fresh at the fixtures' date). */
const editedFixtures = (arinDate: string): Acquire => {
  const folder = fromFolder(FIXTURES);
  return async (feed) => {
    const got = await folder(feed);
    if (got === null) return null;
    const text = new TextDecoder().decode(got.bytes);
    if (feed.id === 'rir-arin') return { ...got, bytes: new TextEncoder().encode(text.replace('|20260822|', `|${arinDate}|`)) };
    if (feed.id === 'az0-vpn') return { ...got, bytes: new TextEncoder().encode(text.replace('# 2025-08-31T13:25:28Z', '# 2026-08-01T00:00:00Z')) };
    return got;
  };
};
const load = (arinDate: string, now: string, said: string[] = []) =>
  loadInputs({ acquire: editedFixtures(arinDate), tables: FIXTURES, buildDate: null, attributionUrl: 'u', now: () => Date.parse(now), progress: (m) => said.push(m) });
const az0Prefixes = (i: Awaited<ReturnType<typeof load>>['input']) => i.vpn.filter((x) => /windscribe/i.test(x.value.brand ?? '')).length;

describe('data dates past the clock', () => {
  it('a feed dated in the future neither sets the build date nor leaves the dated VPN list out', async () => {
    const said: string[] = [];
    const { input, reports } = await load('20620822', '2026-09-01T00:00:00Z', said);
    // The newest of the dates that have come (2026-08-22, a few feeds' files), not ARIN's.
    expect(input.buildDate.slice(0, 10)).toBe('2026-08-22');
    expect(input.buildDate).toBe(newestDate(reports.flatMap((r) => (r.source === null ? [] : [r.source]))));
    expect(reports.find((r) => r.id === 'rir-arin')!.source!.data_date).toBeNull();
    expect(az0Prefixes(input)).toBeGreaterThan(0);
    expect(said.some((m) => m.includes('rir-arin') && m.includes('"2062-08-22" is after this machine\'s clock'))).toBe(true);
    // The same date, once the clock has passed it, is taken as written: the build date, and the VPN list 21 years old.
    const later = await load('20620822', '2063-01-01T00:00:00Z');
    expect(later.input.buildDate).toBe('2062-08-22T00:00:00.000Z');
    expect(later.reports.find((r) => r.id === 'rir-arin')!.source!.data_date).toBe('2062-08-22');
    expect(az0Prefixes(later.input)).toBe(0);
  });

  it('a dated VPN list whose date lies in the future is left out: its age is unknown, not zero', async () => {
    const said: string[] = [];
    const { input } = await loadInputs({
      acquire: editedFixtures('20260822'),
      tables: FIXTURES,
      buildDate: null,
      attributionUrl: 'u',
      now: () => Date.parse('2026-07-01T00:00:00Z'), // before az0's edited date (2026-08-01)
      progress: (m) => said.push(m),
    });
    expect(az0Prefixes(input)).toBe(0);
    expect(said.some((m) => m.startsWith('leaving out az0-vpn') && m.includes('lies in the future'))).toBe(true);
  });

  it('a date keeps its value exactly when it is at most FUTURE_SLACK_MS past the clock', () => {
    const day = fc.integer({ min: Date.parse('1990-01-01'), max: Date.parse('2090-01-01') });
    fc.assert(
      fc.property(day, day, fc.boolean(), (t, now, dateOnly) => {
        const iso = new Date(t).toISOString();
        const date = dateOnly ? iso.slice(0, 10) : iso;
        const r = withoutFutureDate(result(date), now, () => {});
        const future = timeOfDataDate(date) > now + FUTURE_SLACK_MS;
        expect(r.source.data_date).toBe(future ? null : date);
        expect(r.dateUnreadable).toBe(future ? date : undefined);
        expect(r.dataDate).toBe(future ? null : date);
      }),
    );
  });

  it('so the build date newestDate picks never lies past the clock and its slack', () => {
    const day = fc.integer({ min: Date.parse('1990-01-01'), max: Date.parse('2090-01-01') });
    fc.assert(
      fc.property(fc.array(day, { maxLength: 8 }), day, (times, now) => {
        const kept = times.map((t) => withoutFutureDate(result(new Date(t).toISOString()), now, () => {}).source);
        expect(Date.parse(newestDate(kept))).toBeLessThanOrEqual(now + FUTURE_SLACK_MS);
      }),
    );
  });

  it('a result with no date, or an unparsable one, is returned as it is', () => {
    for (const d of [null, 'not a date']) {
      const r = result(d);
      expect(withoutFutureDate(r, 0, () => {})).toBe(r);
    }
  });
});
