/**
 * Routing adapters: which AS originates a prefix, and which organisation
 * holds an address range.
 *
 * Publishers' formats read here (see feeds/SOURCES.md):
 * - CAIDA RouteViews prefix-to-AS (`routeviews-rv2-*.pfx2as.gz`): gzip text,
 *   one line per prefix, `prefix<TAB>length<TAB>origin`. The origin field is
 *   `a` (one origin), `a_b` (MOAS: several origins seen for the prefix) or
 *   `a,b` (an AS_SET at the end of the path); both forms combine
 *   (`209_3356,6223`). Rule: every AS number in the field becomes an origin,
 *   in field order, without repeats.
 * - RIPE RIS whois dump (`riswhoisdump.IPv6.gz`): `%` comment header (with the
 *   generation time), then `origin<TAB>prefix<TAB>peers` where origin may be
 *   an AS_SET `{a,b}` and peers = how many RIS peers saw the route. Rule:
 *   the default route is dropped, rows seen by fewer than `RIS_MIN_PEERS`
 *   peers are dropped (see there), and the rows left for one prefix (MOAS)
 *   are merged into one `origins` list, most-seen origin first.
 * - sapics ip-location-db ASN CSV (`asn-ipv4.csv`, `asn-ipv6.csv`, also in
 *   the npm package `@ip-location-db/asn`): no header,
 *   `range_start,range_end,asn,org`, inclusive ranges, org optionally quoted
 *   RFC 4180 style (`"Cloudflare, Inc."`, `"LLC ""SPUTNIK"""`). Rule: ranges
 *   must ascend without overlap; a range overlapping its predecessor is
 *   clipped to the part after it (reported), one wholly inside it dropped.
 * - iptoasn (`ip2asn-v6.tsv.gz`): `range_start<TAB>range_end<TAB>asn<TAB>cc<TAB>description`;
 *   AS 0 rows ("Not routed") are skipped, `None`/`Unknown` countries are null.
 * - Bitcoin Core asmap decoded text: `prefix AS<n>`, prefixes may nest
 *   (longest match wins, left to the consumer).
 *
 * All adapters take the file's bytes (gzip is detected by its magic and
 * unpacked with fflate, so plain text works too), never throw for a bad
 * line (it becomes a `Diagnostic`) and throw `FeedError` only when the file
 * as a whole is unreadable.
 *
 * @module
 */
import { gunzipSync } from 'fflate';
import { createRequire } from 'node:module';
import { feedText, parseAddressValue, parseCidr } from './cidr.js';
import type { FeedSpec } from './spec.js';
import { FeedError } from './types.js';
import type { Diagnostic, Prefix, PrefixFeed, SourceMeta } from './types.js';

// ---------------------------------------------------------------------------
// Shared byte and line helpers (also used by bgptools.ts, rpki.ts and rir.ts)

/** Header fields of a gzip member (RFC 1952) that carry provenance. */
export interface GzipHeader {
  /** FNAME, the original file name, when stored. */
  readonly name: string | null;
  /** MTIME as an ISO timestamp, or null when 0 (not stored). */
  readonly mtime: string | null;
}

/** Whether the bytes start with the gzip magic number. */
export function isGzip(data: Uint8Array): boolean {
  return data.length >= 10 && data[0] === 0x1f && data[1] === 0x8b;
}

/** Whether the bytes start with a bzip2 stream header (`BZh1`..`BZh9`). */
export function isBzip2(data: Uint8Array): boolean {
  return data.length >= 4 && data[0] === 0x42 && data[1] === 0x5a && data[2] === 0x68 && data[3]! >= 0x31 && data[3]! <= 0x39;
}

/** Reads FNAME and MTIME from a gzip header; null when the bytes are not gzip. */
export function gzipHeader(data: Uint8Array): GzipHeader | null {
  if (!isGzip(data)) return null;
  const flags = data[3]!;
  const mtimeSec = (data[4]! | (data[5]! << 8) | (data[6]! << 16)) + data[7]! * 0x1000000;
  let pos = 10;
  if (flags & 4) pos += 2 + (data[pos]! | (data[pos + 1]! << 8)); // FEXTRA
  let name: string | null = null;
  if (flags & 8) {
    let end = pos;
    while (end < data.length && data[end] !== 0) end++;
    name = new TextDecoder('latin1').decode(data.subarray(pos, end));
  }
  return { name, mtime: mtimeSec === 0 ? null : new Date(mtimeSec * 1000).toISOString().replace('.000Z', 'Z') };
}

let bunzip: ((input: Uint8Array, output?: undefined, multistream?: boolean) => Uint8Array) | undefined;

/**
 * The feed's bytes with any gzip or bzip2 layer removed (detected by magic
 * number, so a plain copy of the same file works as well).
 */
export function unpackFeed(feed: string, data: Uint8Array): Uint8Array {
  if (isGzip(data)) {
    try {
      return gunzipSync(data);
    } catch (e) {
      throw new FeedError(feed, `gzip data unreadable: ${(e as Error).message}`);
    }
  }
  if (isBzip2(data)) {
    // seek-bzip ships no types; it is CommonJS, so load it through require.
    bunzip ??= (createRequire(import.meta.url)('seek-bzip') as { decode: typeof bunzip }).decode;
    try {
      return bunzip!(data, undefined, true);
    } catch (e) {
      throw new FeedError(feed, `bzip2 data unreadable: ${(e as Error).message}`);
    }
  }
  return data;
}

/** Parses an unsigned decimal without sign, spaces or leading zeros; -1 when it is not one (or above `max`). */
export function parseUint(text: string, max: number): number {
  const n = text.length;
  if (n === 0 || n > 10 || (n > 1 && text.charCodeAt(0) === 48)) return -1;
  let v = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v > max ? -1 : v;
}

/** Highest AS number (32-bit ASNs, RFC 6793). */
export const MAX_ASN = 0xffffffff;

/** A short, quoted excerpt of a bad line for a diagnostic. */
export function excerpt(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
}

/** `YYYY-MM-DD` for a valid calendar date given as `YYYYMMDD`, else null. */
export function compactDate(text: string): string | null {
  if (text.length !== 8) return null;
  const y = parseUint(text.slice(0, 4), 9999);
  const m = Number(text.slice(4, 6));
  const d = Number(text.slice(6, 8));
  if (y < 1 || !(m >= 1 && m <= 12) || !(d >= 1 && d <= 31) || !/^\d{8}$/.test(text)) return null;
  const t = new Date(Date.UTC(y, m - 1, d));
  if (t.getUTCMonth() !== m - 1) return null; // 20230231
  return `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}`;
}

const HOST_MASK: readonly (readonly bigint[])[] = [
  [], [], [], [],
  Array.from({ length: 33 }, (_, len) => (1n << BigInt(32 - len)) - 1n),
  [],
  Array.from({ length: 129 }, (_, len) => (1n << BigInt(128 - len)) - 1n),
];

/** Host-bit mask of a prefix length (`(1 << (bits - length)) - 1`), from a table. */
export function hostMask(version: 4 | 6, length: number): bigint {
  return HOST_MASK[version]![length]!;
}

const POW2: readonly bigint[] = Array.from({ length: 129 }, (_, k) => 1n << BigInt(k));
const TWO32 = 1n << 32n;
const TWO64 = 1n << 64n;

/** Bit length of a positive bigint. */
function bitLength(x: bigint): number {
  let n = 0;
  if (x >= TWO64) {
    x >>= 64n;
    n += 64;
  }
  while (x >= TWO32) {
    x >>= 32n;
    n += 32;
  }
  return n + 32 - Math.clz32(Number(x));
}

/**
 * Appends the fewest CIDR prefixes covering the inclusive range
 * [first, last] to `out`, all with `value`. Same result as cidr.ts's
 * `rangeToPrefixes` (a property test checks it), but several times faster:
 * IPv4 is split with numbers, IPv6 with a handful of bigint operations per
 * prefix instead of one per bit. Expects first <= last within the family.
 */
export function pushRangePrefixes<V>(out: Prefix<V>[], version: 4 | 6, first: bigint, last: bigint, value: V): void {
  if (version === 4) {
    let cur = Number(first);
    const end = Number(last);
    while (cur <= end) {
      const low = cur & -cur; // lowest set bit as int32 (bit 31 -> -2^31)
      const tz = cur === 0 ? 32 : 31 - Math.clz32(low);
      const count = end - cur + 1;
      const span = count >= 0x100000000 ? 32 : 31 - Math.clz32(count);
      const k = tz < span ? tz : span;
      out.push({ version, start: BigInt(cur), length: 32 - k, value });
      cur += 2 ** k;
    }
    return;
  }
  let cur = first;
  while (cur <= last) {
    const tz = cur === 0n ? 128 : bitLength(cur & -cur) - 1;
    const span = bitLength(last - cur + 1n) - 1;
    const k = tz < span ? tz : span;
    out.push({ version, start: cur, length: 128 - k, value });
    cur += POW2[k]!;
  }
}

/** Calls `fn` for each line (LF or CRLF) with its 1-based number; a final empty line is not a line. */
function eachLine(text: string, fn: (line: string, lineNo: number) => void): void {
  let pos = 0;
  let lineNo = 0;
  const n = text.length;
  while (pos < n) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = n;
    const stop = end > pos && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    fn(text.slice(pos, stop), ++lineNo);
    pos = end + 1;
  }
}

function source(meta: SourceMeta, entries: number): PrefixFeed<never>['source'] {
  return { ...meta, entries };
}

/** Options every parser here accepts. */
export interface ParseOptions {
  /** Source id used in diagnostics and `source.id` (defaults per feed). */
  readonly id?: string;
  /** Data date when the bytes do not carry one (file name, package version). */
  readonly dataDate?: string | null;
}

/** A prefix feed that also counts rows it read but deliberately did not use. */
export type SkippingPrefixFeed<V> = PrefixFeed<V> & {
  /** Well-formed rows left out by the adapter's rule (never errors). */
  readonly skipped: number;
};

// ---------------------------------------------------------------------------
// CAIDA RouteViews pfx2as

/** Origin ASes of a routed prefix. */
export interface OriginsValue {
  readonly origins: readonly number[];
}

/**
 * Parses a CAIDA `a_b,c` origin field to its distinct AS numbers, or null.
 * `_` separates MOAS origins, `,` the members of an AS_SET.
 */
export function parseOriginField(text: string): number[] | null {
  const out: number[] = [];
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 95;
    if (c !== 95 /* _ */ && c !== 44 /* , */) continue;
    const asn = parseUint(text.slice(start, i), MAX_ASN);
    if (asn < 0) return null;
    if (!out.includes(asn)) out.push(asn);
    start = i + 1;
  }
  return out;
}

const PFX2AS_META: SourceMeta = {
  id: 'routeviews-pfx2as',
  publisher: 'CAIDA (RouteViews Prefix-to-AS)',
  url: 'https://publicdata.caida.org/datasets/routing/routeviews-prefix2as/',
  licence: 'CAIDA RouteViews Prefix-to-AS: public data, cite CAIDA (https://www.caida.org/about/legal/aua/)',
  attribution_required: true,
  data_date: null,
  evidence: 'authoritative',
};

/** File-name date `...-20240406-1200...` as an ISO timestamp. */
function pfx2asNameDate(name: string | null): string | null {
  const m = name ? /(\d{8})-(\d{2})(\d{2})/.exec(name) : null;
  const day = m ? compactDate(m[1]!) : null;
  return day ? `${day}T${m![2]}:${m![3]}:00Z` : null;
}

/**
 * Reads a CAIDA RouteViews pfx2as file (IPv4 `routeviews-rv2` or IPv6
 * `routeviews6`). The data date is the one in the gzip header's stored file
 * name (`routeviews-rv2-20240406-1200.pfx2as` = 2024-04-06T12:00Z), else
 * `options.dataDate`.
 */
export function parsePfx2as(data: Uint8Array, options: ParseOptions = {}): PrefixFeed<OriginsValue> {
  const feed = options.id ?? PFX2AS_META.id;
  const text = feedText(unpackFeed(feed, data));
  const prefixes: Prefix<OriginsValue>[] = [];
  const rejected: Diagnostic[] = [];
  const originCache = new Map<string, OriginsValue | null>();
  eachLine(text, (line, lineNo) => {
    if (line === '' || line.charCodeAt(0) === 35 /* # */) return;
    const t1 = line.indexOf('\t');
    const t2 = t1 < 0 ? -1 : line.indexOf('\t', t1 + 1);
    if (t2 < 0 || line.indexOf('\t', t2 + 1) >= 0) {
      rejected.push({ feed, line: lineNo, message: `expected prefix<TAB>length<TAB>origin: ${excerpt(line)}` });
      return;
    }
    const addr = parseAddressValue(line.slice(0, t1));
    if (!addr) {
      rejected.push({ feed, line: lineNo, message: `not an address: ${excerpt(line.slice(0, t1))}` });
      return;
    }
    const length = parseUint(line.slice(t1 + 1, t2), addr.version === 4 ? 32 : 128);
    if (length < 0) {
      rejected.push({ feed, line: lineNo, message: `bad prefix length: ${excerpt(line.slice(t1 + 1, t2))}` });
      return;
    }
    if ((addr.value & hostMask(addr.version, length)) !== 0n) {
      rejected.push({ feed, line: lineNo, message: `host bits set in ${line.slice(0, t1)}/${length}` });
      return;
    }
    const originText = line.slice(t2 + 1);
    let value = originCache.get(originText);
    if (value === undefined) {
      const origins = parseOriginField(originText);
      value = origins && Object.freeze({ origins: Object.freeze(origins) });
      originCache.set(originText, value);
    }
    if (!value) {
      rejected.push({ feed, line: lineNo, message: `bad origin AS field: ${excerpt(originText)}` });
      return;
    }
    prefixes.push({ version: addr.version, start: addr.value, length, value });
  });
  const header = gzipHeader(data);
  const date = pfx2asNameDate(header?.name ?? null) ?? options.dataDate ?? null;
  return { source: source({ ...PFX2AS_META, id: feed, data_date: date }, prefixes.length), prefixes, rejected };
}

// ---------------------------------------------------------------------------
// RIPE RIS whois dump

/**
 * Minimum number of RIS peers that must see a route for it to count as
 * announced. The dump lists every (origin, prefix) any single RIS peer
 * carried: besides the global table that includes each peer's internal
 * more-specifics, leaks, typos and private-ASN routes, which are seen by a
 * handful of peers only (in the 2024-12-20 IPv6 dump 14,550 of 270,345 rows
 * were seen by exactly 1 peer, while globally routed prefixes are seen by
 * hundreds: the maximum is 453). Ten peers is a conservative low-visibility
 * cut: it keeps every prefix that is propagated beyond a few networks and
 * drops the long tail of single-peer noise (230,748 rows, 228,726 prefixes
 * survive in that dump).
 */
export const RIS_MIN_PEERS = 10;

const RIS_META: SourceMeta = {
  id: 'ris-whois-ipv6',
  publisher: 'RIPE NCC Routing Information Service (RIS)',
  url: 'https://www.ris.ripe.net/dumps/riswhoisdump.IPv6.gz',
  licence: 'RIPE NCC RIS data: free to use with attribution (RIPE NCC terms of service)',
  attribution_required: true,
  data_date: null,
  evidence: 'authoritative',
  note: `routes seen by fewer than ${RIS_MIN_PEERS} RIS peers and the default route are left out`,
};

const MONTHS: Readonly<Record<string, string>> = {
  Jan: '01', Feb: '02', Mar: '03', Apr: '04', May: '05', Jun: '06',
  Jul: '07', Aug: '08', Sep: '09', Oct: '10', Nov: '11', Dec: '12',
};

/** `% This file was generated at Fri Dec 20 10:06:01 UTC 2024.` -> `2024-12-20T10:06:01Z`. */
function risGeneratedAt(line: string): string | null {
  const m = /generated at \w{3} (\w{3}) +(\d{1,2}) (\d\d:\d\d:\d\d) UTC (\d{4})/.exec(line);
  const month = m ? MONTHS[m[1]!] : undefined;
  if (!m || !month) return null;
  return `${m[4]}-${month}-${m[2]!.padStart(2, '0')}T${m[3]}Z`;
}

/** Parses a RIS origin field: `3320` or an AS_SET `{7860,8111}`. */
function parseRisOrigin(text: string): number[] | null {
  if (text.charCodeAt(0) === 123 /* { */) {
    if (text.charCodeAt(text.length - 1) !== 125 || text.length < 3) return null;
    const out: number[] = [];
    for (const part of text.slice(1, -1).split(',')) {
      const asn = parseUint(part, MAX_ASN);
      if (asn < 0) return null;
      if (!out.includes(asn)) out.push(asn);
    }
    return out;
  }
  const asn = parseUint(text, MAX_ASN);
  return asn < 0 ? null : [asn];
}

/**
 * Reads a RIPE RIS whois dump (`riswhoisdump.IPv6.gz` or `.IPv4.gz`).
 * `skipped` counts default-route rows and rows under `RIS_MIN_PEERS`
 * (`options.minPeers` overrides it, for tests and studies). Each prefix is
 * output once, at its first row, with `origins` ordered by peers
 * (descending), then AS number.
 */
export function parseRisWhois(
  data: Uint8Array,
  options: ParseOptions & { readonly minPeers?: number } = {},
): SkippingPrefixFeed<OriginsValue> & { readonly rows: number } {
  const feed = options.id ?? RIS_META.id;
  const minPeers = options.minPeers ?? RIS_MIN_PEERS;
  const text = feedText(unpackFeed(feed, data));
  const rejected: Diagnostic[] = [];
  interface Acc { readonly version: 4 | 6; readonly start: bigint; readonly length: number; readonly peers: Map<number, number> }
  const byPrefix = new Map<string, Acc>();
  let date: string | null = null;
  let rows = 0;
  let skipped = 0;
  eachLine(text, (line, lineNo) => {
    if (line === '') return;
    if (line.charCodeAt(0) === 37 /* % */) {
      date ??= risGeneratedAt(line);
      return;
    }
    rows++;
    const t1 = line.indexOf('\t');
    const t2 = t1 < 0 ? -1 : line.indexOf('\t', t1 + 1);
    if (t2 < 0 || line.indexOf('\t', t2 + 1) >= 0) {
      rejected.push({ feed, line: lineNo, message: `expected origin<TAB>prefix<TAB>peers: ${excerpt(line)}` });
      return;
    }
    const origins = parseRisOrigin(line.slice(0, t1));
    if (!origins) {
      rejected.push({ feed, line: lineNo, message: `bad origin AS field: ${excerpt(line.slice(0, t1))}` });
      return;
    }
    const prefixText = line.slice(t1 + 1, t2);
    const p = parseCidr(prefixText);
    if (!p.ok || p.hostBitsSet || prefixText.indexOf('/') < 0) {
      const why = !p.ok ? p.message : p.hostBitsSet ? 'host bits set' : 'no prefix length';
      rejected.push({ feed, line: lineNo, message: `bad prefix ${excerpt(prefixText)}: ${why}` });
      return;
    }
    const peers = parseUint(line.slice(t2 + 1), Number.MAX_SAFE_INTEGER);
    if (peers < 0) {
      rejected.push({ feed, line: lineNo, message: `bad peer count: ${excerpt(line.slice(t2 + 1))}` });
      return;
    }
    if (p.length === 0 || peers < minPeers) {
      skipped++;
      return;
    }
    const key = `${p.version}:${p.start.toString(16)}/${p.length}`;
    let acc = byPrefix.get(key);
    if (!acc) {
      acc = { version: p.version, start: p.start, length: p.length, peers: new Map() };
      byPrefix.set(key, acc);
    }
    for (const asn of origins) acc.peers.set(asn, Math.max(acc.peers.get(asn) ?? 0, peers));
  });
  const prefixes: Prefix<OriginsValue>[] = [];
  for (const acc of byPrefix.values()) {
    let origins: number[];
    if (acc.peers.size === 1) origins = [acc.peers.keys().next().value!];
    else origins = [...acc.peers].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([asn]) => asn);
    prefixes.push({ version: acc.version, start: acc.start, length: acc.length, value: Object.freeze({ origins: Object.freeze(origins) }) });
  }
  const dataDate = date ?? options.dataDate ?? null;
  const meta: SourceMeta = {
    ...RIS_META,
    id: feed,
    data_date: dataDate,
    note: `routes seen by fewer than ${minPeers} RIS peers and the default route are left out`,
  };
  return { source: source(meta, prefixes.length), prefixes, rejected, skipped, rows };
}

// ---------------------------------------------------------------------------
// sapics ip-location-db ASN CSV

/** Origin AS and its organisation name. */
export interface AsnOrgValue {
  readonly asn: number;
  readonly org: string;
}

/** One inclusive range of the ASN CSV. */
export interface AsnRange {
  readonly version: 4 | 6;
  readonly first: bigint;
  readonly last: bigint;
  readonly asn: number;
  readonly org: string;
}

/** The ASN CSV in its own (range) form. */
export interface AsnRangeFeed {
  readonly source: PrefixFeed<never>['source'];
  readonly ranges: AsnRange[];
  readonly rejected: Diagnostic[];
}

/** The npm package that ships the ASN CSVs (the build's default source), and its file per IP version. */
export const IP_LOCATION_DB_ASN_PACKAGE = '@ip-location-db/asn';
export const IP_LOCATION_DB_ASN_FILES = { 4: 'asn-ipv4.csv', 6: 'asn-ipv6.csv' } as const;

/** Data date of an ip-location-db package version: `2.3.2026061719` -> `2026-06-17`. */
export function ipLocationDbVersionDate(version: string): string | null {
  const m = /^\d+\.\d+\.(\d{8})\d{2}$/.exec(version);
  return m ? compactDate(m[1]!) : null;
}

const IPLOCDB_META: SourceMeta = {
  id: 'ip-location-db-asn',
  publisher: 'sapics/ip-location-db (RouteViews pfx2as + RIR delegations + DB-IP ASN Lite)',
  url: 'https://www.npmjs.com/package/@ip-location-db/asn',
  licence: 'CC BY 4.0 (RouteViews, NRO, DB-IP: attribution with a link to https://db-ip.com)',
  attribution_required: true,
  data_date: null,
  evidence: 'authoritative',
  note: 'RE-PROCESSED merge (IPv4 priority RouteViews > RIR > DB-IP): covered is not the same as announced',
};

/** Unquotes one RFC 4180 CSV field (`"a ""b"", c"` -> `a "b", c`); null if the quoting is broken. */
export function unquoteCsvField(text: string): string | null {
  if (text.charCodeAt(0) !== 34) return text.indexOf('"') < 0 ? text : null;
  if (text.length < 2 || text.charCodeAt(text.length - 1) !== 34) return null;
  const inner = text.slice(1, -1);
  if (inner.indexOf('"') < 0) return inner;
  // Every quote inside must be doubled.
  for (let i = 0; i < inner.length; i++) {
    if (inner.charCodeAt(i) === 34) {
      if (inner.charCodeAt(i + 1) !== 34) return null;
      i++;
    }
  }
  return inner.replaceAll('""', '"');
}

/**
 * Reads an ip-location-db ASN CSV (`range_start,range_end,asn,org`) into
 * ranges. Rows must ascend: a row that starts at or before the end of the
 * previous range is clipped to start after it (diagnostic), dropped when
 * nothing is left (diagnostic). A row whose start is below the previous
 * row's start is out of order and dropped (diagnostic).
 */
export function parseAsnCsvRanges(data: Uint8Array, options: ParseOptions = {}): AsnRangeFeed {
  const feed = options.id ?? IPLOCDB_META.id;
  const text = feedText(unpackFeed(feed, data));
  const ranges: AsnRange[] = [];
  const rejected: Diagnostic[] = [];
  // The `asn,org` tail of a row -> its parsed value (80k organisations share 515k rows).
  const tails = new Map<string, AsnOrgValue | string>();
  let prevVersion = 0;
  let prevFirst = -1n;
  let prevLast = -1n;
  eachLine(text, (line, lineNo) => {
    if (line === '') return;
    const c1 = line.indexOf(',');
    const c2 = c1 < 0 ? -1 : line.indexOf(',', c1 + 1);
    const c3 = c2 < 0 ? -1 : line.indexOf(',', c2 + 1);
    if (c3 < 0) {
      rejected.push({ feed, line: lineNo, message: `expected range_start,range_end,asn,org: ${excerpt(line)}` });
      return;
    }
    const a = parseAddressValue(line.slice(0, c1));
    const b = parseAddressValue(line.slice(c1 + 1, c2));
    if (!a || !b || a.version !== b.version) {
      const why = !a ? `bad range start ${excerpt(line.slice(0, c1))}` : !b ? `bad range end ${excerpt(line.slice(c1 + 1, c2))}` : 'range start and end differ in IP version';
      rejected.push({ feed, line: lineNo, message: why });
      return;
    }
    if (b.value < a.value) {
      rejected.push({ feed, line: lineNo, message: `range end ${line.slice(c1 + 1, c2)} before start ${line.slice(0, c1)}` });
      return;
    }
    const tail = line.slice(c2 + 1);
    let value = tails.get(tail);
    if (value === undefined) {
      const asn = parseUint(line.slice(c2 + 1, c3), MAX_ASN);
      const org = unquoteCsvField(line.slice(c3 + 1));
      if (asn < 0) value = `bad AS number ${excerpt(line.slice(c2 + 1, c3))}`;
      else if (org === null) value = `bad CSV quoting in org ${excerpt(line.slice(c3 + 1))}`;
      else value = Object.freeze({ asn, org });
      tails.set(tail, value);
    }
    if (typeof value === 'string') {
      rejected.push({ feed, line: lineNo, message: value });
      return;
    }
    let first = a.value;
    if (a.version === prevVersion) {
      if (first < prevFirst) {
        rejected.push({ feed, line: lineNo, message: `out of order: starts before the previous row's start` });
        return;
      }
      if (first <= prevLast) {
        if (b.value <= prevLast) {
          rejected.push({ feed, line: lineNo, message: `range lies inside the previous row's range; dropped` });
          return;
        }
        first = prevLast + 1n;
        rejected.push({
          feed,
          line: lineNo,
          message: `range overlaps the previous row's range; clipped to start after it (${first - a.value} addresses dropped)`,
        });
      }
    }
    prevVersion = a.version;
    prevFirst = first;
    prevLast = b.value;
    ranges.push({ version: a.version, first, last: b.value, asn: value.asn, org: value.org });
  });
  return { source: source({ ...IPLOCDB_META, id: feed, data_date: options.dataDate ?? null }, ranges.length), ranges, rejected };
}

/** The ranges as CIDR prefixes (fewest per range); ranges with equal asn and org share one value object. */
export function asnRangesToPrefixes(ranges: readonly AsnRange[]): Prefix<AsnOrgValue>[] {
  const out: Prefix<AsnOrgValue>[] = [];
  const values = new Map<number, Map<string, AsnOrgValue>>();
  for (const r of ranges) {
    let byOrg = values.get(r.asn);
    if (!byOrg) values.set(r.asn, (byOrg = new Map()));
    let value = byOrg.get(r.org);
    if (!value) byOrg.set(r.org, (value = Object.freeze({ asn: r.asn, org: r.org })));
    pushRangePrefixes(out, r.version, r.first, r.last, value);
  }
  return out;
}

/** Reads an ip-location-db ASN CSV as prefixes (derived from `parseAsnCsvRanges`). */
export function parseAsnCsv(data: Uint8Array, options: ParseOptions = {}): PrefixFeed<AsnOrgValue> {
  const r = parseAsnCsvRanges(data, options);
  const prefixes = asnRangesToPrefixes(r.ranges);
  return { source: { ...r.source, entries: prefixes.length }, prefixes, rejected: r.rejected };
}

// ---------------------------------------------------------------------------
// iptoasn ip2asn TSV

/** iptoasn row value. `country` is null for `None` / `Unknown`. */
export interface Ip2AsnValue {
  readonly asn: number;
  readonly country: string | null;
  readonly org: string;
}

const IPTOASN_META: SourceMeta = {
  id: 'iptoasn-ipv6',
  publisher: 'iptoasn.com',
  url: 'https://iptoasn.com/data/ip2asn-v6.tsv.gz',
  licence: 'PDDL 1.0 (iptoasn.com)',
  attribution_required: false,
  data_date: null,
  evidence: 'authoritative',
};

/**
 * Reads an iptoasn `ip2asn-v4/v6/combined.tsv(.gz)` file
 * (`range_start<TAB>range_end<TAB>AS_number<TAB>country_code<TAB>AS_description`).
 * Rows with AS 0 (`Not routed`) are counted in `skipped`. The data date is
 * `options.dataDate`, else the gzip header's MTIME.
 */
export function parseIp2Asn(data: Uint8Array, options: ParseOptions = {}): SkippingPrefixFeed<Ip2AsnValue> {
  const feed = options.id ?? IPTOASN_META.id;
  const text = feedText(unpackFeed(feed, data));
  const prefixes: Prefix<Ip2AsnValue>[] = [];
  const rejected: Diagnostic[] = [];
  const values = new Map<string, Ip2AsnValue>();
  let skipped = 0;
  eachLine(text, (line, lineNo) => {
    if (line === '') return;
    const f = line.split('\t');
    if (f.length !== 5) {
      rejected.push({ feed, line: lineNo, message: `expected 5 tab-separated fields, got ${f.length}: ${excerpt(line)}` });
      return;
    }
    const a = parseAddressValue(f[0]!);
    const b = parseAddressValue(f[1]!);
    const asn = parseUint(f[2]!, MAX_ASN);
    if (!a || !b || a.version !== b.version || b.value < a.value || asn < 0) {
      const why = !a || !b || a.version !== b.version || b.value < a.value ? 'bad address range' : 'bad AS number';
      rejected.push({ feed, line: lineNo, message: `${why}: ${excerpt(line)}` });
      return;
    }
    if (asn === 0) {
      skipped++;
      return;
    }
    const tail = line.slice(f[0]!.length + f[1]!.length + 2);
    let value = values.get(tail);
    if (!value) {
      const cc = f[3]!;
      const country = cc === 'None' || cc === 'Unknown' || cc === '' ? null : cc;
      values.set(tail, (value = Object.freeze({ asn, country, org: f[4]! })));
    }
    pushRangePrefixes(prefixes, a.version, a.value, b.value, value);
  });
  const date = options.dataDate ?? gzipHeader(data)?.mtime ?? null;
  return { source: source({ ...IPTOASN_META, id: feed, data_date: date }, prefixes.length), prefixes, rejected, skipped };
}

// ---------------------------------------------------------------------------
// Bitcoin Core asmap, decoded

/** An origin AS. */
export interface AsnValue {
  readonly asn: number;
}

const ASMAP_META: SourceMeta = {
  id: 'asmap',
  publisher: 'Bitcoin Core asmap project (Kartograf)',
  url: 'https://github.com/bitcoin-core/asmap-data',
  licence: 'MIT (asmap-data); inputs under ARIN RPA, IRR and CAIDA terms',
  attribution_required: false,
  data_date: null,
  evidence: 'inferred',
  note: 'RE-PROCESSED (decoded from asmap bytecode); mixes RPKI, IRR and BGP data, so mapped is not announced; prefixes nest (longest match)',
};

/**
 * Reads the text form of a Bitcoin Core asmap (`asmap-tool.py decode`):
 * `prefix AS<n>` per line. The data date (the map's launch time) is not in
 * the text: pass `options.dataDate`.
 */
export function parseAsmapDecoded(data: Uint8Array, options: ParseOptions = {}): PrefixFeed<AsnValue> {
  const feed = options.id ?? ASMAP_META.id;
  const text = feedText(unpackFeed(feed, data));
  const prefixes: Prefix<AsnValue>[] = [];
  const rejected: Diagnostic[] = [];
  const values = new Map<number, AsnValue>();
  eachLine(text, (line, lineNo) => {
    if (line === '' || line.charCodeAt(0) === 35) return;
    const sp = line.indexOf(' ');
    if (sp < 0 || line.charCodeAt(sp + 1) !== 65 || line.charCodeAt(sp + 2) !== 83 || line.indexOf(' ', sp + 1) >= 0) {
      rejected.push({ feed, line: lineNo, message: `expected "prefix AS<n>": ${excerpt(line)}` });
      return;
    }
    const p = parseCidr(line.slice(0, sp));
    const asn = parseUint(line.slice(sp + 3), MAX_ASN);
    if (!p.ok || p.hostBitsSet || asn < 0) {
      const why = !p.ok ? p.message : p.hostBitsSet ? 'host bits set' : 'bad AS number';
      rejected.push({ feed, line: lineNo, message: `${why}: ${excerpt(line)}` });
      return;
    }
    let value = values.get(asn);
    if (!value) values.set(asn, (value = Object.freeze({ asn })));
    prefixes.push({ version: p.version, start: p.start, length: p.length, value });
  });
  return { source: source({ ...ASMAP_META, id: feed, data_date: options.dataDate ?? null }, prefixes.length), prefixes, rejected };
}

// ---------------------------------------------------------------------------
// Registry

/**
 * The routing feeds, with paths relative to the feeds directory. The
 * ip-location-db files are copies of the npm package `@ip-location-db/asn`
 * 2.3.2026061719 (`asn-ipv4.csv`, `asn-ipv6.csv`), the build's default
 * source: read from the package, pass `ipLocationDbVersionDate(version)`
 * as the data date.
 */
export const BGP_FEEDS: readonly FeedSpec[] = [
  {
    id: 'routeviews-pfx2as',
    path: 'bgp/routeviews-rv2-20240406-1200.pfx2as.gz',
    url: PFX2AS_META.url,
    kind: 'prefix',
    parse: (data) => parsePfx2as(data, { dataDate: '2024-04-06T12:00:00Z' }),
  },
  {
    id: 'ris-whois-ipv6',
    path: 'bgp/riswhoisdump.IPv6-20241220.gz',
    url: RIS_META.url,
    kind: 'prefix',
    parse: (data) => parseRisWhois(data),
  },
  {
    id: 'ip-location-db-asn-ipv4',
    path: 'bgp/ip-location-db-asn-ipv4.csv',
    url: 'https://www.npmjs.com/package/@ip-location-db/asn',
    kind: 'prefix',
    parse: (data) => parseAsnCsv(data, { id: 'ip-location-db-asn-ipv4', dataDate: '2026-06-17' }),
  },
  {
    id: 'ip-location-db-asn-ipv6',
    path: 'bgp/ip-location-db-asn-ipv6.csv',
    url: 'https://www.npmjs.com/package/@ip-location-db/asn',
    kind: 'prefix',
    parse: (data) => parseAsnCsv(data, { id: 'ip-location-db-asn-ipv6', dataDate: '2026-06-17' }),
  },
  {
    id: 'iptoasn-ipv6',
    path: 'bgp/iptoasn-ip2asn-v6-20231208.tsv.gz',
    url: IPTOASN_META.url,
    kind: 'prefix',
    parse: (data) => parseIp2Asn(data),
  },
  {
    id: 'asmap',
    path: 'bgp/asmap/1764864000_asmap_unfilled-decoded.txt.gz',
    url: ASMAP_META.url,
    kind: 'prefix',
    parse: (data) => parseAsmapDecoded(data, { dataDate: '2025-12-04T16:00:00Z' }),
  },
];
