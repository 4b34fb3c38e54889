/**
 * testkit's clocks for tests that count per UTC day or month: steadyClock
 * runs at real speed from its start, and onOneUtcDay repeats a comparison
 * only when it failed while the UTC day changed, and only once. The real
 * Date is faked and moved by hand here (timers stay real).
 */
import { onOneUtcDay, steadyClock, stoppedClock, TEST_NOON } from '@ipintel/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';

const LAST_MS = Date.parse('2026-03-31T23:59:59.999Z');
const MIDNIGHT = LAST_MS + 1;

afterEach(() => vi.useRealTimers());

describe('TEST_NOON and the clocks', () => {
  it('TEST_NOON is noon UTC, mid-month; the stopped clock reads it', () => {
    expect(new Date(TEST_NOON).toISOString()).toBe('2026-09-15T12:00:00.000Z');
    expect(stoppedClock()).toBe(TEST_NOON);
  });

  it('steadyClock reads its start, then moves as the real clock does; offsetMs is what it adds to Date.now()', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: LAST_MS });
    const clock = steadyClock();
    expect(clock()).toBe(TEST_NOON);
    expect(clock.offsetMs).toBe(TEST_NOON - LAST_MS);
    vi.setSystemTime(LAST_MS + 90_000);
    expect(clock()).toBe(TEST_NOON + 90_000);
    expect(steadyClock(5)()).toBe(5);
  });
});

describe('onOneUtcDay', () => {
  it('runs a comparison again once when it failed while the UTC day changed', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: LAST_MS });
    let runs = 0;
    const result = await onOneUtcDay(() => {
      runs++;
      if (runs === 1) {
        vi.setSystemTime(MIDNIGHT);
        throw new Error('rows of two days');
      }
      return 'same day';
    });
    expect(result).toBe('same day');
    expect(runs).toBe(2);
  });

  it('fails at once when the day did not change, and with the second failure when the repeat fails too', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: LAST_MS - 1 });
    let runs = 0;
    await expect(
      onOneUtcDay(() => {
        runs++;
        throw new Error('a real difference');
      }),
    ).rejects.toThrow('a real difference');
    expect(runs).toBe(1);

    runs = 0;
    await expect(
      onOneUtcDay(async () => {
        runs++;
        vi.setSystemTime(MIDNIGHT + runs);
        await Promise.resolve();
        throw new Error(`failure ${runs}`);
      }),
    ).rejects.toThrow('failure 2');
    expect(runs).toBe(2);
  });

  it('does not repeat a comparison that passed, whatever the clock did', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: LAST_MS });
    let runs = 0;
    await onOneUtcDay(() => {
      runs++;
      vi.setSystemTime(MIDNIGHT);
    });
    expect(runs).toBe(1);
  });
});
