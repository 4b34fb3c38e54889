/**
 * Clocks for tests whose answers change with the UTC day or month: quota
 * counts (per day, per month) and `allocation_age_days`. On the real clock
 * such a test fails when the run crosses 00:00 UTC between two readings
 * (CI runs at any hour). Code with a clock option (core's `now`, the
 * server's `now`) gets one of these; code without one (worker threads,
 * child processes) is compared with `onOneUtcDay`.
 *
 * @module
 */

const DAY_MS = 86_400_000;

/** 2026-09-15T12:00:00.000Z: noon, mid-month, after every fixture's dates. */
export const TEST_NOON: number = Date.UTC(2026, 8, 15, 12);

/** A clock stopped at TEST_NOON. */
export const stoppedClock = (): number => TEST_NOON;

/** A clock that runs at real speed from a chosen instant. */
export interface SteadyClock {
  (): number;
  /** What it adds to `Date.now()`: another process or thread given it reads the same clock. */
  readonly offsetMs: number;
}

/**
 * A clock that reads `start` (default TEST_NOON) now and runs on at real
 * speed: per-second rate windows, activation delays and timeouts behave as
 * on the real clock, but a run (minutes) never meets a day or month boundary
 * unless the test moves past one itself.
 */
export function steadyClock(start: number = TEST_NOON): SteadyClock {
  const offsetMs = start - Date.now();
  return Object.assign(() => Date.now() + offsetMs, { offsetMs });
}

/** The UTC day (days since 1970-01-01) of the real clock. */
export const utcDayNow = (): number => Math.floor(Date.now() / DAY_MS);

/**
 * Runs `attempt` and, if it fails while the real UTC day changed during it,
 * runs it once more (after one turn of the event loop, so that core's day
 * timer has fired). For tests that compare what code without a clock option
 * wrote at one moment with what it, or check(), writes at another (rows that
 * carry `allocation_age_days`). The second attempt lies within one day (a
 * day is longer than any test), so it still fails on a real difference: put
 * everything the comparison reads inside `attempt`.
 */
export async function onOneUtcDay<T>(attempt: () => T | Promise<T>): Promise<T> {
  const day = utcDayNow();
  try {
    return await attempt();
  } catch (e) {
    if (utcDayNow() === day) throw e;
    await new Promise((resolve) => setTimeout(resolve, 1));
    return attempt();
  }
}
