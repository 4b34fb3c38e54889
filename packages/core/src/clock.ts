/**
 * The current UTC day (days since 1970-01-01), for `allocation_age_days`,
 * without reading the clock on every check (a clock read costs more than the
 * rest of an IPv4 lookup). One process-wide timer, unref'd, marks the day
 * stale at UTC midnight; a re-read every 256 calls covers long synchronous
 * loops in which the timer cannot run. A caller-supplied clock (`now` option)
 * is read on every call instead.
 *
 * @module
 */

const DAY_MS = 86_400_000;
let day = -1;
let calls = 0;
let timer: ReturnType<typeof setTimeout> | undefined;

function refresh(): void {
  const now = Date.now();
  day = Math.floor(now / DAY_MS);
  if (typeof setTimeout !== 'function') return;
  if (timer !== undefined) clearTimeout(timer);
  timer = setTimeout(() => {
    day = -1;
  }, (day + 1) * DAY_MS - now + 1);
  (timer as { unref?: () => void }).unref?.();
}

/** Today's UTC day number from the system clock. */
export function currentUtcDay(): number {
  if (day < 0 || (++calls & 255) === 0) refresh();
  return day;
}

export function utcDayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}
