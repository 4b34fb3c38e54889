/**
 * Data dates later than the build machine's clock. Such a date names a time
 * that has not come (a publisher's typo, a mirror whose clock runs ahead),
 * and kept as it is it would do harm far from its own feed: the newest data
 * date becomes the build date (roles.ts `newestDate`), so one feed dated
 * 2062 would make every dated VPN list look decades old and leave it out.
 * So it is read as a date that names no real time: the source row records
 * none, `dateUnreadable` keeps the text (the VPN age rule then leaves that
 * list out: its age is unknown, not zero), and the build says so.
 *
 * @module
 */
import type { Found, FeedResult } from '../feeds/types.js';

/**
 * How far past the clock a data date may lie and still be taken as written:
 * a date-only stamp (`2026-12-06`, read as its UTC midnight) written in a
 * zone up to 14 hours ahead of UTC, or a clock a little behind the publisher's.
 */
export const FUTURE_SLACK_MS = 86_400_000;

/** Milliseconds of a recorded data date (`YYYY-MM-DD` as its UTC midnight, or an ISO timestamp); NaN when it is neither. */
export function timeOfDataDate(date: string): number {
  return Date.parse(date.length === 10 ? `${date}T00:00:00Z` : date);
}

/**
 * The result as it is, or, when its data date lies more than
 * `FUTURE_SLACK_MS` past `now`, with no data date and the text in
 * `dateUnreadable`; `say` hears why.
 */
export function withoutFutureDate<F extends Found>(result: FeedResult<F>, now: number, say: (message: string) => void): FeedResult<F> {
  const date = result.source.data_date;
  if (date === null || !(timeOfDataDate(date) > now + FUTURE_SLACK_MS)) return result;
  say(`${result.source.id}: its data date ${JSON.stringify(date)} is after this machine's clock (${new Date(now).toISOString()}), so it is recorded as no date and its age as unknown`);
  return { ...result, dataDate: null, dateUnreadable: date, source: { ...result.source, data_date: null } };
}
