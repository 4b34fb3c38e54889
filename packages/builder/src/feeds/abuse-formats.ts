/**
 * Two abuse lists whose publishers' own files differ from the mirror copies
 * the team's collection holds, so that `--fetch` (the publisher's file) and
 * `--feeds` (the mirror's copy) both read. Each adapter tells the two apart
 * line by line and reads either.
 *
 * DShield `block.txt` (https://feeds.dshield.org/block.txt), the top 20
 * attacking /24s of the last three days:
 *
 * ```
 * #   DShield.org Recommended Block List
 * #    updated: Wed Jan 17 22:00:15 2018 UTC        (newer copies: 2026-07-14T20:45:40)
 * #    Columns (tab delimited): ...
 * Start	End	Netblock	Attacks	Name	Country	email   <- header line, not data
 * 77.72.82.0	77.72.82.255	24	1410	NETUP-AS	RU	abuse@example.net
 * ```
 *
 * A row is start and end of the block and its size (a prefix length; an old
 * header calls the column `Netmask`, so a dotted mask is read too); the block
 * must be exactly the prefix `start/size` with `end` its last address. The
 * mirror writes `a.b.c.0/24` per line instead.
 *
 * ThreatFox's ip:port export (`/export/csv/ip-port/recent/`, found on the
 * export index https://threatfox.abuse.ch/export/ by the declaration's
 * locator): a `#` banner with `# Last updated: 2026-08-22 16:18:29 UTC`,
 * the column names as a commented line, then quoted CSV records separated
 * by `", "`. Each `ip:port` IOC (`[v6]:port` for IPv6) gives its address;
 * an address listed with several ports is one entry. The mirror writes one
 * IP per line. Any other IOC type is rejected with a diagnostic.
 *
 * @module
 */
import { defaultRouteEntry, parseAddressValue, parseCidr } from './read/cidr.js';
import { isoFromCtimeUtc, isoFromZonelessUtc, lastUpdatedComment } from './read/dates.js';
import { listLines, uniquePrefixes, type CommentLine } from './read/lines.js';
import { excerpt } from './read/text.js';
import { FeedError } from '../errors.js';
import type { Diagnostic, Prefix, PrefixesFound } from './types.js';

/** An abuse entry listed once (the abuse role's value). */
type OneList = { readonly lists: number };
const ONE: OneList = Object.freeze({ lists: 1 });

/** The entries, or the typed error a file with none deserves (the same rule as every list: feed_empty, feed_format). */
function checked(feed: string, dataLines: number, prefixes: Prefix<OneList>[], rejected: Diagnostic[]): void {
  if (dataLines === 0) throw new FeedError(feed, 'feed_empty', 'no data line (empty list)');
  const first = rejected[0];
  if (prefixes.length === 0 && first !== undefined) {
    throw new FeedError(feed, 'feed_format', `no line is a list entry (line ${first.line}: ${first.message})`);
  }
}

// ------------------------------------------------------------------ DShield

/** The prefix length of DShield's third column: `24`, or a dotted mask `255.255.255.0`; null otherwise. */
function blockLength(text: string): number | null {
  if (/^\d{1,2}$/.test(text)) return Number(text) <= 32 ? Number(text) : null;
  const mask = parseAddressValue(text);
  if (mask === null || mask.version !== 4) return null;
  const ones = mask.value.toString(2).padStart(32, '0');
  return /^1*0*$/.test(ones) ? ones.indexOf('0') < 0 ? 32 : ones.indexOf('0') : null;
}

/** DShield's `updated:` comment: a ctime date in UTC, or a zone-less ISO time. */
function dshieldDate(comments: readonly CommentLine[]): string | null {
  for (const c of comments) {
    const m = /^updated:\s*(.+)$/i.exec(c.text);
    if (m) return isoFromCtimeUtc(m[1]!) ?? isoFromZonelessUtc(m[1]!);
  }
  return lastUpdatedComment(comments);
}

/** Reads DShield's block list: the publisher's tab-separated rows or the mirror's CIDR lines (see the module header). */
export function parseDshieldBlock(data: Uint8Array | string, feed: string): PrefixesFound<OneList> {
  const { lines, comments } = listLines(data, { trailingComments: false });
  const prefixes: Prefix<OneList>[] = [];
  const rejected: Diagnostic[] = [];
  let dataLines = 0;
  for (const l of lines) {
    const reject = (message: string): void => void rejected.push({ feed, line: l.line, message });
    if (!l.text.includes('\t')) {
      dataLines++;
      const c = parseCidr(l.text);
      const whole = c.ok ? defaultRouteEntry(c.length, l.text) : null;
      if (!c.ok) reject(c.message);
      else if (c.hostBitsSet) reject(`host bits set: ${excerpt(l.text)}`);
      else if (whole !== null) reject(whole);
      else prefixes.push({ version: c.version, start: c.start, length: c.length, value: ONE });
      continue;
    }
    const f = l.text.split('\t').map((x) => x.trim());
    if (/^start$/i.test(f[0]!)) continue; // the column header
    dataLines++;
    const start = parseAddressValue(f[0]!);
    const end = parseAddressValue(f[1] ?? '');
    const length = blockLength(f[2] ?? '');
    const whole = length === null ? null : defaultRouteEntry(length, `${f[0]}/${f[2]}`);
    if (start === null || start.version !== 4) reject(`not an IPv4 start address: ${excerpt(f[0]!)}`);
    else if (end === null || end.version !== 4) reject(`not an IPv4 end address: ${excerpt(f[1] ?? '')}`);
    else if (length === null) reject(`not a block size: ${excerpt(f[2] ?? '')}`);
    else if (whole !== null) reject(whole);
    else {
      const size = 1n << BigInt(32 - length);
      if (start.value % size !== 0n || end.value !== start.value + size - 1n) reject(`${f[0]}-${f[1]} is not the /${length} block it names`);
      else prefixes.push({ version: 4, start: start.value, length, value: ONE });
    }
  }
  checked(feed, dataLines, prefixes, rejected);
  return { prefixes, rejected, dataDate: dshieldDate(comments) };
}

// ----------------------------------------------------------------- ThreatFox

/** The fields of one ThreatFox CSV record (`"a", "b", ...`), or null when a quote is not closed. */
export function threatfoxFields(line: string): string[] | null {
  const out: string[] = [];
  const field = /\s*"((?:[^"]|"")*)"\s*(,|$)/y;
  field.lastIndex = 0;
  while (field.lastIndex < line.length) {
    const m = field.exec(line);
    if (!m) return null;
    out.push(m[1]!.replaceAll('""', '"'));
    if (m[2] === '') break;
  }
  return field.lastIndex === line.length ? out : null;
}

/** The address of an `ip:port` IOC (`1.2.3.4:443`, `[2001:db8::1]:443`), or null. */
function iocAddress(text: string): { version: 4 | 6; value: bigint } | null {
  const m = /^\[([0-9a-fA-F:.]+)\]:\d{1,5}$/.exec(text) ?? /^([0-9.]+):\d{1,5}$/.exec(text);
  return m ? parseAddressValue(m[1]!) : null;
}

/** Reads ThreatFox: the publisher's ip:port CSV export or the mirror's one IP per line (see the module header). */
export function parseThreatfox(data: Uint8Array | string, feed: string): PrefixesFound<OneList> {
  const { lines, comments } = listLines(data, { trailingComments: false });
  // The column names are a commented line; the export's documented order is the fallback.
  const header = comments.find((c) => c.text.startsWith('"first_seen_utc"'));
  const columns = (header && threatfoxFields(header.text)) ?? ['first_seen_utc', 'ioc_id', 'ioc_value', 'ioc_type'];
  const valueAt = columns.indexOf('ioc_value');
  const typeAt = columns.indexOf('ioc_type');
  const prefixes: Prefix<OneList>[] = [];
  const rejected: Diagnostic[] = [];
  let csv = 0;
  for (const l of lines) {
    const reject = (message: string): void => void rejected.push({ feed, line: l.line, message });
    if (!l.text.startsWith('"')) {
      const c = l.text.includes('/') ? null : parseCidr(l.text);
      if (c === null) reject(`expected a single address, got a prefix: ${excerpt(l.text)}`);
      else if (!c.ok) reject(c.message);
      else prefixes.push({ version: c.version, start: c.start, length: c.length, value: ONE });
      continue;
    }
    csv++;
    const f = threatfoxFields(l.text);
    if (f === null || f.length <= Math.max(valueAt, typeAt)) {
      reject(`not a ThreatFox CSV record: ${excerpt(l.text)}`);
      continue;
    }
    if (f[typeAt] !== 'ip:port') {
      reject(`IOC type ${JSON.stringify(f[typeAt])}, not ip:port`);
      continue;
    }
    const a = iocAddress(f[valueAt]!);
    if (a === null) reject(`not an ip:port IOC: ${excerpt(f[valueAt]!)}`);
    else prefixes.push({ version: a.version, start: a.value, length: a.version === 4 ? 32 : 128, value: ONE });
  }
  checked(feed, lines.length, prefixes, rejected);
  // The mirror's `# Last updated: <ISO>` (kept as written), else the banner's `Last updated: 2026-08-22 16:18:29 UTC  #`.
  const banner = comments.map((c) => /^Last updated:\s*(.+?)\s*#?$/i.exec(c.text)?.[1]).find((x) => x !== undefined);
  const dataDate = lastUpdatedComment(comments) ?? (banner === undefined ? null : isoFromZonelessUtc(banner));
  const unique = uniquePrefixes(prefixes);
  return {
    prefixes: unique,
    rejected,
    dataDate,
    ...(csv > 0 ? { note: `the publisher's ip:port export: ${csv} IOCs, ${unique.length} distinct addresses (ports dropped)` } : {}),
  };
}
