/**
 * Data dates as publishers state them, turned into the one form a snapshot
 * records: an ISO-8601 UTC timestamp (`2026-08-22T16:14:02Z`). Pure and
 * strict: a text that is not the expected form gives null (the adapter then
 * records `data_date: null`), never a guess and never the build machine's
 * local time zone. The form includes a real calendar date and time of day:
 * `2025-13-31T13:25:28Z` or `2026-02-30` has the shape but names no time,
 * and gives null too (every reader checks its fields round-trip through
 * `Date.UTC`, which would roll them over).
 *
 * @module
 */

/**
 * 9999-12-31T23:59:59Z in Unix seconds: the last time the form above can
 * write (later years print as `+010000-...`, and past year 275760
 * toISOString throws RangeError).
 */
const MAX_ISO_SECONDS = 253_402_300_799;

/**
 * Unix seconds (Team Cymru `# last updated 1710089701`, Spamhaus `timestamp`)
 * to ISO UTC; null unless a non-negative integer up to year 9999. (A JSON
 * number such as `syncToken: 9007199254740991` threw RangeError out of the
 * adapter; milliseconds given for seconds read as the year 58606.)
 *
 * @example
 * isoFromEpochSeconds(1710089701) // => '2024-03-10T16:55:01Z'
 */
export function isoFromEpochSeconds(seconds: unknown): string | null {
  const n = typeof seconds === 'string' && /^\d{1,12}$/.test(seconds) ? Number(seconds) : seconds;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > MAX_ISO_SECONDS) return null;
  return new Date(n * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * Unix milliseconds (Google `syncToken`) to ISO UTC without the fraction;
 * null unless a non-negative integer.
 *
 * @example
 * isoFromEpochMillis('1787429142000') // => '2026-08-22T20:05:42Z'
 */
export function isoFromEpochMillis(ms: unknown): string | null {
  const n = typeof ms === 'string' && /^\d{1,15}$/.test(ms) ? Number(ms) : ms;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) return null;
  return isoFromEpochSeconds(Math.floor(n / 1000));
}

/** `YYYY-MM-DD` for a valid calendar date given as `YYYYMMDD` (RIR files, file names), else null. */
export function compactDate(text: string): string | null {
  // Years start at 1000: a leading zero is a misread field, not year 0999.
  if (text.length !== 8 || !/^[1-9]\d{7}$/.test(text)) return null;
  const y = Number(text.slice(0, 4));
  const m = Number(text.slice(4, 6));
  const d = Number(text.slice(6, 8));
  if (y < 1 || m < 1 || m > 12 || d < 1 || d > 31) return null;
  const t = new Date(Date.UTC(y, m - 1, d));
  if (t.getUTCMonth() !== m - 1) return null; // 20230231
  return `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}`;
}

/**
 * Data date of a package versioned by date, as the ip-location-db packages
 * are (`2.3.2026061719` -> `2026-06-17`); null for any other version.
 */
export function versionDate(version: string): string | null {
  const m = /^\d+\.\d+\.(\d{8})\d{2}$/.exec(version);
  return m ? compactDate(m[1]!) : null;
}

/**
 * A zone-less ISO time as Google and Apple write `creationTime`
 * (`2026-08-21T14:45:42.000000`), read as UTC (the files carry no zone; Google
 * generates them in UTC), to ISO UTC without the fraction. A space for the
 * `T` and a ` UTC` suffix are read too (ThreatFox: `2026-08-22 16:05:11 UTC`).
 *
 * @example
 * isoFromZonelessUtc('2026-08-21T14:45:42.000000') // => '2026-08-21T14:45:42Z'
 * isoFromZonelessUtc('2026-08-22 16:05:11 UTC')    // => '2026-08-22T16:05:11Z'
 */
export function isoFromZonelessUtc(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z| UTC)?$/.exec(text.trim());
  if (!m) return null;
  return utcIso(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * An RFC 5322 date as IPsum writes it (`Sat, 22 Aug 2026 03:00:29 +0200`) to
 * ISO UTC.
 *
 * @example
 * isoFromRfc5322('Sat, 22 Aug 2026 03:00:29 +0200') // => '2026-08-22T01:00:29Z'
 */
export function isoFromRfc5322(text: string): string | null {
  const m = /^(?:[A-Z][a-z]{2}, )?(\d{1,2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})$/.exec(
    text.trim(),
  );
  if (!m) return null;
  const month = MONTHS.indexOf(m[2]!);
  if (month < 0) return null;
  // The local fields must be a real time (31 Feb rolled over to 3 Mar before); the offset a real one (+2360 is not).
  const local = utcIso(+m[3]!, month + 1, +m[1]!, +m[4]!, +m[5]!, +m[6]!);
  if (local === null || +m[8]! > 23 || +m[9]! > 59) return null;
  const offsetMs = (m[7] === '-' ? -1 : 1) * (+m[8]! * 60 + +m[9]!) * 60_000;
  return new Date(Date.parse(local) - offsetMs).toISOString().replace('.000Z', 'Z');
}

/**
 * A C `ctime` date in UTC as DShield writes `updated:` (`Wed Jan 17 22:00:15
 * 2018 UTC`; the day may be space-padded) to ISO UTC.
 *
 * @example
 * isoFromCtimeUtc('Tue Jan  2 04:21:21 2024 UTC') // => '2024-01-02T04:21:21Z'
 */
export function isoFromCtimeUtc(text: string): string | null {
  const m = /^[A-Z][a-z]{2} ([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})(?: UTC| GMT)?$/.exec(text.trim());
  if (!m) return null;
  const month = MONTHS.indexOf(m[1]!);
  if (month < 0) return null;
  return utcIso(+m[6]!, month + 1, +m[2]!, +m[3]!, +m[4]!, +m[5]!);
}

/**
 * An ISO-8601 UTC timestamp as feeds write it (`2026-08-22T16:25:09.973Z`,
 * rpki-client's `buildtime`, az0's header), kept as written when it names a
 * real time; null otherwise, `2025-13-31T13:25:28Z` included.
 *
 * @example
 * isoUtcTimestamp('2026-08-22T16:25:09.973Z') // => '2026-08-22T16:25:09.973Z'
 * isoUtcTimestamp('2099-13-45T99:99:99Z')     // => null
 */
export function isoUtcTimestamp(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?Z$/.exec(text);
  return m !== null && utcIso(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!) !== null ? text : null;
}

/**
 * The ISO timestamp of a `# Last updated: 2026-08-22T16:25:09.973Z` header
 * line (the idleadmin/ThreatFeed mirror's fetch time), kept as written;
 * null when no comment has that form with a real time (`isoUtcTimestamp`).
 */
export function lastUpdatedComment(comments: readonly { readonly text: string }[]): string | null {
  for (const c of comments) {
    const m = /^Last updated:\s*(\S+)$/i.exec(c.text);
    const iso = m === null ? null : isoUtcTimestamp(m[1]);
    if (iso !== null) return iso;
  }
  return null;
}

/**
 * ISO UTC of calendar fields (month 1-12), or null for impossible ones that
 * `Date.UTC` would roll over (Feb 30, hour 99). The year is compared too:
 * `Date.UTC` reads years 0-99 as 1900-1999.
 */
function utcIso(y: number, mo: number, d: number, h: number, mi: number, sec: number): string | null {
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, sec));
  const same =
    t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d && t.getUTCHours() === h && t.getUTCMinutes() === mi && t.getUTCSeconds() === sec;
  if (!Number.isFinite(t.getTime()) || !same) return null;
  return t.toISOString().replace('.000Z', 'Z');
}

/**
 * A data date as a feeds folder's manifest (`sources.json`) records it, in
 * the form a source row carries: a calendar date `YYYY-MM-DD`, or an ISO UTC
 * time (`2026-08-22T09:44Z` gains its seconds: `2026-08-22T09:44:00Z`).
 * Null for anything else: a time with no zone names no one instant.
 *
 * @example
 * isoFromRecordedDate('2025-11-06') // => '2025-11-06'
 * isoFromRecordedDate('2026-08-22T09:44Z') // => '2026-08-22T09:44:00Z'
 * isoFromRecordedDate('2026-08-21T14:45:42') // => null
 */
export function isoFromRecordedDate(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (day !== null) return utcIso(+day[1]!, +day[2]!, +day[3]!, 0, 0, 0) === null ? null : text;
  const minutes = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})Z$/.exec(text);
  return isoUtcTimestamp(minutes !== null ? `${minutes[1]}:00Z` : text);
}
