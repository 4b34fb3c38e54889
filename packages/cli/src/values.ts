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
 * An ISO 8601 date or date-time, normalised to `toISOString()` form.
 *
 * @example
 * parseIsoDate('2026-01-02', '--build-date', 'build') // => '2026-01-02T00:00:00.000Z'
 */
export function parseIsoDate(text: string, flag: string, command: string): string {
  const t = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(t)) throw new UsageError(`${flag} takes an ISO 8601 date such as 2026-01-02 or 2026-01-02T00:00:00Z (got ${JSON.stringify(text)})`, command);
  return new Date(t).toISOString();
}
