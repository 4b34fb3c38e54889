import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isIsoUtcTime } from '../src/clock.js';

const DAY = 86_400_000;

describe('currentUtcDay', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.resetModules();
  });

  it('is the UTC day of the system clock', async () => {
    const { currentUtcDay } = await import('../src/clock.js');
    // Read between two readings of the clock, which 00:00 UTC may separate.
    const before = Math.floor(Date.now() / DAY);
    const day = currentUtcDay();
    const after = Math.floor(Date.now() / DAY);
    expect([before, after]).toContain(day);
  });

  it('moves to the next day at UTC midnight when the event loop runs (timer)', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-22T23:59:59.000Z') });
    const { currentUtcDay } = await import('../src/clock.js');
    const before = currentUtcDay();
    vi.advanceTimersByTime(2000);
    expect(currentUtcDay()).toBe(before + 1);
  });

  it('moves to the next day within 256 calls in a loop that never yields (no timer runs)', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-22T23:59:59.000Z'), toFake: ['Date'] });
    const { currentUtcDay } = await import('../src/clock.js');
    const before = currentUtcDay();
    vi.setSystemTime(Date.parse('2026-11-23T00:00:01.000Z'));
    let seen = before;
    for (let i = 0; i < 256; i++) seen = currentUtcDay();
    expect(seen).toBe(before + 1);
  });
});

describe('currentUtcDay timer', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.resetModules();
  });

  it('arms one timer per day, not one per re-read, and still turns the day at midnight after many calls', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-22T12:00:00.000Z') });
    const arm = vi.spyOn(globalThis, 'setTimeout');
    const { currentUtcDay } = await import('../src/clock.js');
    const first = currentUtcDay();
    for (let i = 0; i < 10_000; i++) currentUtcDay();
    expect(arm).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(12 * 3600 * 1000 + 1000);
    expect(currentUtcDay()).toBe(first + 1);
    for (let i = 0; i < 10_000; i++) currentUtcDay();
    expect(arm).toHaveBeenCalledTimes(2);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(24 * 3600 * 1000);
    expect(currentUtcDay()).toBe(first + 2);
  });
});

describe('isIsoUtcTime (the form of a build date)', () => {
  it('property: what toISOString writes for any moment from year 0 to 9999 is one', () => {
    fc.assert(fc.property(fc.integer({ min: Date.UTC(0, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) }), (t) => isIsoUtcTime(new Date(t).toISOString())));
  });

  it('property: the same moment written another way is not (no milliseconds, a date alone, an offset, a space, lower case)', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(9999, 11, 31) }), (t) => {
        const iso = new Date(t).toISOString();
        for (const other of [iso.slice(0, 19) + 'Z', iso.slice(0, 10), iso.replace('Z', '+00:00'), iso.replace('T', ' '), iso.toLowerCase(), ` ${iso}`, `${iso}\n`]) {
          expect(isIsoUtcTime(other), other).toBe(false);
        }
      }),
    );
  });

  it('refuses days and hours that do not exist, and what is no string', () => {
    for (const v of ['2026-02-30T00:00:00.000Z', '2026-13-01T00:00:00.000Z', '2026-01-01T24:00:00.000Z', '2026-01-01T00:60:00.000Z', 'x', '', null, 1_787_000_000_000, undefined]) {
      expect(isIsoUtcTime(v), String(v)).toBe(false);
    }
    expect(isIsoUtcTime('2024-02-29T23:59:59.999Z')).toBe(true);
  });
});
