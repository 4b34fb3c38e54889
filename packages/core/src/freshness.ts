/**
 * How old a snapshot and its sources are. Each source row carries the
 * refresh interval its feed declares (`refresh`: `12h`, `1d`, `7d`, ...;
 * docs/snapshot-format.md); a source is **stale** when its data date plus
 * that interval is before the moment asked about. That moment is always the
 * present (the clock of whoever asks: `ipintel info`, the build summary,
 * `GET /healthz`), never the build date: a snapshot built from fresh data
 * goes stale as it ages, and that is what an operator needs to see. The
 * snapshot's own age is the present minus its build date.
 *
 * A source with no data date, or with no interval (a snapshot written
 * before the field existed), is not judged: it is listed as `unjudged`,
 * never called fresh or stale.
 *
 * Pure, no I/O: the caller passes the time (a finite number of ms since the
 * epoch; anything else is `invalid_input`).
 *
 * @module
 */
import { IpIntelError, quoteInput } from './errors.js';
import type { SourceInfo } from './types.js';

/**
 * A refresh interval in milliseconds: a whole number (1-9999) of hours or
 * days; null for anything else.
 *
 * @example
 * refreshMs('7d') // => 604800000
 * refreshMs('daily') // => null
 */
export function refreshMs(text: string): number | null {
  const m = /^([1-9]\d{0,3})([hd])$/.exec(text);
  return m ? Number(m[1]) * (m[2] === 'h' ? 3_600_000 : 86_400_000) : null;
}

/** A source older than its refresh interval. */
export interface StaleSource {
  readonly id: string;
  readonly data_date: string;
  readonly refresh: string;
  /** Whole days from the data date to the moment judged. */
  readonly age_days: number;
}

export interface Freshness {
  /** The moment judged against, ISO. */
  readonly at: string;
  /** Whole seconds from the build date to `at` (0 if the build date is later). */
  readonly snapshot_age_s: number;
  /** Sources whose data date plus refresh interval is before `at`, in source order. */
  readonly stale: readonly StaleSource[];
  /** Ids of the sources that cannot be judged (no data date, no or no valid interval). */
  readonly unjudged: readonly string[];
}

const DAY_MS = 86_400_000;

/**
 * The freshness of a snapshot (its `info`) at time `now` (ms since the epoch).
 *
 * @example
 * freshness(intel.info, Date.now()).stale.map((s) => s.id) // => ['routeviews-pfx2as', ...]
 */
export function freshness(info: { readonly build_date: string; readonly sources: readonly SourceInfo[] }, now: number): Freshness {
  // A moment that is no time would judge nothing stale (a string, null: the epoch) or fail in new Date() with a bare RangeError.
  if (typeof now !== 'number' || !Number.isFinite(now)) throw new IpIntelError('invalid_input', `freshness needs the moment to judge at in ms since the epoch, got ${typeof now === 'number' ? String(now) : quoteInput(now)}`);
  const stale: StaleSource[] = [];
  const unjudged: string[] = [];
  for (const s of info.sources) {
    const dated = s.data_date === null ? Number.NaN : Date.parse(s.data_date);
    const interval = s.refresh === undefined ? null : refreshMs(s.refresh);
    if (Number.isNaN(dated) || interval === null || s.data_date === null || s.refresh === undefined) {
      unjudged.push(s.id);
      continue;
    }
    if (dated + interval < now) stale.push({ id: s.id, data_date: s.data_date, refresh: s.refresh, age_days: Math.floor((now - dated) / DAY_MS) });
  }
  const built = Date.parse(info.build_date);
  return {
    at: new Date(now).toISOString(),
    snapshot_age_s: Number.isNaN(built) ? 0 : Math.max(0, Math.floor((now - built) / 1000)),
    stale,
    unjudged,
  };
}
