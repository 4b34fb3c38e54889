/**
 * Freshness: a source is stale when its data date plus its refresh interval
 * is before the moment asked about; undated sources and rows without an
 * interval (snapshots written before the field) are not judged; the
 * snapshot's age is that moment minus its build date. Old snapshots, whose
 * source rows have no `refresh`, still load.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { modelFromPrefixes, sourceRow as row } from '@ipintel/testkit';
import { encodeSnapshot } from '@ipintel/core/writer';
import { freshness, IpIntelError, loadSnapshot, refreshMs } from '../src/index.js';

const at = (iso: string): number => Date.parse(iso);

describe('refreshMs', () => {
  it('reads whole hours and days, nothing else', () => {
    expect(refreshMs('12h')).toBe(12 * 3_600_000);
    expect(refreshMs('7d')).toBe(7 * 86_400_000);
    for (const bad of ['0d', '1w', 'daily', '1.5d', '', ' 1d', '10000d']) expect(refreshMs(bad), bad).toBeNull();
  });
});

describe('freshness', () => {
  const info = {
    build_date: '2026-08-22T00:00:00.000Z',
    sources: [
      row('tor', '2026-08-22T16:18:35Z', '1d'),
      row('rir', '2026-08-21', '1d'),
      row('aws', '2026-08-21T07:37:05Z', '7d'),
      row('undated', null, '1d'),
      row('old-row', '2026-01-01'),
    ],
  };

  it('flags the sources past data date + interval, with their age in days; does not judge what it cannot', () => {
    const f = freshness(info, at('2026-08-23T12:00:00Z'));
    expect(f).toEqual({
      at: '2026-08-23T12:00:00.000Z',
      snapshot_age_s: 36 * 3600,
      stale: [{ id: 'rir', data_date: '2026-08-21', refresh: '1d', age_days: 2 }],
      unjudged: ['undated', 'old-row'],
    });
  });

  it('ages with the clock: the same snapshot a month later has every dated source stale', () => {
    expect(freshness(info, at('2026-09-22T00:00:00Z')).stale.map((s) => s.id)).toEqual(['tor', 'rir', 'aws']);
  });

  it('a build date after the clock gives age 0, not a negative age', () => {
    expect(freshness(info, at('2026-08-01T00:00:00Z')).snapshot_age_s).toBe(0);
  });

  it('property: a dated source with an interval is stale exactly when now > date + interval', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e12 }), fc.integer({ min: 1, max: 400 }), fc.constantFrom('h', 'd'), fc.integer({ min: -1e10, max: 1e10 }), (date, n, unit, offset) => {
        const refresh = `${n}${unit}`;
        const dataDate = new Date(date).toISOString();
        const now = date + refreshMs(refresh)! + offset;
        const f = freshness({ build_date: dataDate, sources: [row('s', dataDate, refresh)] }, now);
        expect(f.stale.length === 1).toBe(offset > 0);
        expect(f.unjudged).toEqual([]);
      }),
    );
  });

  it('reads a snapshot whose source rows have no refresh (written before the field): nothing is judged', () => {
    const model = { ...modelFromPrefixes([], [], 1), sources: [row('geo', '2026-01-01')] };
    const intel = loadSnapshot(encodeSnapshot(model));
    expect(intel.info.sources[0]).not.toHaveProperty('refresh');
    expect(freshness(intel.info, at('2027-01-01T00:00:00Z'))).toMatchObject({ stale: [], unjudged: ['geo'] });
  });
});

describe('freshness: the moment asked about', () => {
  // Before: a moment that is no time (NaN from a broken clock, a date string, nothing) threw new Date()'s bare
  // RangeError "Invalid time value" (for NaN and undefined) or judged with a string (every source unjudged as fresh).
  it('is a finite number of ms since the epoch; anything else is invalid_input', () => {
    const info = { build_date: '2026-08-22T00:00:00.000Z', sources: [row('tor', '2026-08-22T16:18:35Z', '1d')] };
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, undefined, '2026-09-01', null, 1n]) {
      expect(() => freshness(info, bad as unknown as number), String(bad)).toThrow(expect.objectContaining({ code: 'invalid_input' }) as Error);
      expect(() => freshness(info, bad as unknown as number)).toThrow(IpIntelError);
    }
    expect(freshness(info, Date.parse('2026-09-01T00:00:00Z')).stale.map((s) => s.id)).toEqual(['tor']);
  });
});
