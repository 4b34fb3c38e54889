import { afterEach, describe, expect, it, vi } from 'vitest';

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
