/**
 * `--build-date`'s reader (values.ts parseIsoDate): an ISO 8601 date or date-time, normalised to
 * toISOString form; a time without an offset is UTC; fields that name no moment are refused, not
 * rolled over as Date.parse rolls 2026-02-30 into March.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { parseIsoDate } from '../src/values.js';

const read = (text: string): string => parseIsoDate(text, '--build-date', 'build');
const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
const FIRST = new Date(0).setUTCFullYear(0, 0, 1);
const LAST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

describe('parseIsoDate', () => {
  it('property: any moment of years 0-9999, written with any offset (or none, or Z), reads back as that moment', () => {
    fc.assert(
      fc.property(fc.integer({ min: FIRST + 86_400_000, max: LAST - 86_400_000 }), fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }), fc.constantFrom('Z', '', 'offset'), (t0, offset, zone) => {
        const t = t0 - (t0 % 1000);
        const shown = new Date(t + (zone === 'offset' ? offset * 60_000 : 0));
        const sign = offset < 0 ? '-' : '+';
        const suffix = zone === 'offset' ? `${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}` : zone;
        const text = `${pad(shown.getUTCFullYear(), 4)}-${pad(shown.getUTCMonth() + 1)}-${pad(shown.getUTCDate())}T${pad(shown.getUTCHours())}:${pad(shown.getUTCMinutes())}:${pad(shown.getUTCSeconds())}${suffix}`;
        expect(read(text)).toBe(new Date(t).toISOString());
      }),
    );
  });

  it('a date alone is its UTC midnight; a time without an offset is UTC, whatever the machine\'s zone', () => {
    expect(read('2026-01-02')).toBe('2026-01-02T00:00:00.000Z');
    const zone = process.env['TZ'];
    try {
      process.env['TZ'] = 'America/New_York'; // Node reads TZ again when it is set
      expect(new Date(2026, 0, 2).getTimezoneOffset()).toBe(300);
      expect(read('2026-01-02T10:20')).toBe('2026-01-02T10:20:00.000Z');
    } finally {
      if (zone === undefined) delete process.env['TZ'];
      else process.env['TZ'] = zone;
    }
    expect(read('2026-01-02 10:20:30.5')).toBe('2026-01-02T10:20:30.500Z');
    expect(read('0050-06-01')).toBe('0050-06-01T00:00:00.000Z'); // not 1950
  });

  it('refuses fields that name no moment, and moments outside years 0-9999, as a usage error', () => {
    for (const text of ['2026-02-30', '2025-02-29', '2026-13-01', '2026-00-10', '2026-01-00', '2026-01-01T24:00', '2026-01-01T23:60', '2026-01-01T23:59:60', '2026-01-01T00:00+24:00', '2026-01-01T00:00+05:60', '9999-12-31T23:00-05:00', 'yesterday', '']) {
      expect(() => read(text), text).toThrow(UsageError);
      expect(() => read(text), text).toThrow(/--build-date takes an ISO 8601 date/);
    }
    expect(read('2024-02-29')).toBe('2024-02-29T00:00:00.000Z');
  });
});
