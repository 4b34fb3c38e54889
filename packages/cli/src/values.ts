/**
 * Flag values that need more than a `choices` list: durations and ports.
 * Each throws the CLI's UsageError (exit 2), naming the flag.
 *
 * @module
 */
import { UsageError } from './errors.js';

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A duration: a number of seconds, or a number with ms, s, m or h.
 *
 * @example
 * parseDuration('90s', '--grace', 'keys') // => 90000
 * parseDuration('500ms', '--activation-delay', 'serve') // => 500
 */
export function parseDuration(text: string, flag: string, command: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text);
  if (m === null) throw new UsageError(`${flag} takes a duration such as 60, 60s, 500ms, 2m or 1h (got ${JSON.stringify(text)})`, command);
  return Math.round(Number(m[1]) * UNIT_MS[m[2] ?? 's']!);
}

/**
 * A TCP port, 0..65535 (0: the system picks a free one).
 *
 * @example
 * parsePort('8080', '--port', 'serve') // => 8080
 */
export function parsePort(text: string, flag: string, command: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 65_535) throw new UsageError(`${flag} takes a number from 0 to 65535 (got ${JSON.stringify(text)})`, command);
  return n;
}

/**
 * A whole number of at least `min` (default 1), e.g. a count of connections or bytes.
 *
 * @example
 * parseCount('1024', '--max-connections', 'serve') // => 1024
 */
export function parseCount(text: string, flag: string, command: string, min = 1): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || !Number.isSafeInteger(n)) throw new UsageError(`${flag} takes a whole number of at least ${min} (got ${JSON.stringify(text)})`, command);
  return n;
}

/**
 * A comma-separated list of non-empty items, trimmed.
 *
 * @example
 * parseList('https://a.example, https://b.example', '--cors-origin', 'serve') // => ['https://a.example', 'https://b.example']
 */
export function parseList(text: string, flag: string, command: string): string[] {
  const items = text.split(',').map((t) => t.trim());
  if (items.some((t) => t === '')) throw new UsageError(`${flag} takes a comma-separated list without empty items (got ${JSON.stringify(text)})`, command);
  return items;
}

/**
 * A positive number of seconds, as milliseconds.
 *
 * @example
 * parseSeconds('60', '--timeout', 'build') // => 60000
 */
export function parseSeconds(text: string, flag: string, command: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0)) throw new UsageError(`${flag} takes a positive number of seconds (got ${JSON.stringify(text)})`, command);
  return n * 1000;
}

/**
 * An ISO 8601 date or date-time, normalised to `toISOString()` form. A time without an offset is
 * UTC, as every date a snapshot holds (Date.parse would read it in the machine's zone). Fields that
 * name no moment (`2026-02-30`, `24:00`, an offset of `+25:00`) are refused, not rolled over into
 * the next month or day as Date.parse does.
 *
 * @example
 * parseIsoDate('2026-01-02', '--build-date', 'build') // => '2026-01-02T00:00:00.000Z'
 */
export function parseIsoDate(text: string, flag: string, command: string): string {
  const m = ISO_DATE.exec(text);
  const t = m === null ? Number.NaN : isoMoment(m);
  if (Number.isNaN(t)) throw new UsageError(`${flag} takes an ISO 8601 date such as 2026-01-02 or 2026-01-02T00:00:00Z (got ${JSON.stringify(text)})`, command);
  return new Date(t).toISOString();
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|([+-])(\d{2}):?(\d{2}))?)?$/;
const FIRST_MOMENT = new Date(0).setUTCFullYear(0, 0, 1); // 0000-01-01T00:00:00.000Z
const LAST_MOMENT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The moment an ISO_DATE match names, in ms since the epoch, or NaN when its fields name none. */
function isoMoment(m: RegExpExecArray): number {
  const n = (i: number): number => (m[i] === undefined ? 0 : Number(m[i]));
  const [year, month, day, hour, minute, second] = [n(1), n(2), n(3), n(4), n(5), n(6)];
  const at = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads years 0-99 as 1900-1999.
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second, 0);
  const rolled = at.getUTCFullYear() !== year || at.getUTCMonth() !== month - 1 || at.getUTCDate() !== day || at.getUTCHours() !== hour || at.getUTCMinutes() !== minute || at.getUTCSeconds() !== second;
  const offsetHours = n(10);
  const offsetMinutes = n(11);
  if (rolled || offsetHours > 23 || offsetMinutes > 59) return Number.NaN;
  const fraction = m[7] === undefined ? 0 : Math.floor(Number(`0${m[7]}`) * 1000);
  const offset = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const t = at.getTime() + fraction - offset;
  // Outside 0000-9999 toISOString writes a six-digit year, which no snapshot takes.
  return t >= FIRST_MOMENT && t <= LAST_MOMENT ? t : Number.NaN;
}
