/**
 * RPKI adapter: the validated ROA payload set (VRPs) and RFC 6811 route
 * origin validation against it.
 *
 * Publisher's format: rpki-client's JSON output (`output/json`, the format of
 * https://console.rpki-client.org/vrps.json), here bzip2-compressed:
 * `{"metadata":{"buildtime":...,"vrps":n,"uniquevrps":n,...},
 *   "roas":[{"asn":13335,"prefix":"1.0.0.0/24","maxLength":24,"ta":"apnic","expires":1753453058},...],
 *   "bgpsec_keys":[...],"aspas":[...],...}`.
 * `asn` is an integer (older exports, and Routinator's, write `"AS13335"`;
 * both are read). The file is bzip2 (seek-bzip), gzip or plain JSON,
 * detected by magic number. Rules: a VRP is (prefix, maxLength, asn); the
 * same VRP under several trust anchors counts once (`duplicates`); a ROA
 * with host bits set, maxLength outside length..32/128 or a bad ASN is
 * rejected with a diagnostic. When metadata.uniquevrps disagrees with the
 * number read, a diagnostic (line 0) says so.
 *
 * Origin validation (RFC 6811 section 2): a ROA *covers* a route when the
 * ROA prefix contains the route prefix (same family, ROA length <= route
 * length, equal leading bits). A route is *matched* by a covering ROA when
 * the route length <= maxLength and the ROA's ASN equals the route's origin
 * AS, and the origin is not NONE (an AS_SET origin; modelled as null) and
 * not AS0: AS0 ROAs (RFC 6483 section 4) therefore never match anything.
 * Result: `valid` if some covering ROA matches, else `invalid` if some ROA
 * covers, else `not-found`.
 *
 * @module
 */
import { FeedError } from '../../errors.js';
import { defineFeed } from '../declare.js';
import { parseCidr } from '../read/cidr.js';
import { unpackFeed } from '../read/compression.js';
import { isoUtcTimestamp } from '../read/dates.js';
import { parseJson } from '../read/json.js';
import type { Diagnostic, Found } from '../types.js';

/** One validated ROA payload. `start` has its host bits cleared. */
export interface Roa {
  readonly version: 4 | 6;
  readonly start: bigint;
  readonly length: number;
  readonly maxLength: number;
  readonly asn: number;
}

/** Result of reading a VRP export. */
export interface RoasFound extends Found {
  readonly roas: Roa[];
  /** VRPs listed more than once (same prefix, maxLength and ASN, e.g. under two trust anchors). */
  readonly duplicates: number;
}

function readAsn(v: unknown): number {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 && v <= 0xffffffff ? v : -1;
  if (typeof v === 'string' && /^(AS)?(0|[1-9]\d{0,9})$/i.test(v)) {
    const n = Number(v.replace(/^AS/i, ''));
    return n <= 0xffffffff ? n : -1;
  }
  return -1;
}

/**
 * Reads an rpki-client JSON VRP export (bzip2, gzip or plain). Throws
 * `FeedError` when the file is not JSON or has no `roas` array. The data
 * date is `metadata.buildtime`, when it is a real UTC date and time (else
 * null, and a line-0 diagnostic says so). Diagnostic
 * `line` is the 1-based index of the ROA in `roas`.
 */
export function parseRpkiJson(data: Uint8Array, feed: string): RoasFound {
  const doc = parseJson(feed, unpackFeed(feed, data));
  if (typeof doc !== 'object' || doc === null || !Array.isArray((doc as { roas?: unknown }).roas)) {
    throw new FeedError(feed, 'feed_format', 'expected an object with a "roas" array (rpki-client JSON)');
  }
  const list = (doc as { roas: unknown[] }).roas;
  const metadata = (doc as { metadata?: Record<string, unknown> }).metadata ?? {};
  const roas: Roa[] = [];
  const rejected: Diagnostic[] = [];
  // Prefix text -> VRPs read for it (rpki-client writes prefixes canonically).
  const seen = new Map<string, Roa[]>();
  let duplicates = 0;
  for (let i = 0; i < list.length; i++) {
    const r = list[i] as { asn?: unknown; prefix?: unknown; maxLength?: unknown } | null;
    const line = i + 1;
    if (typeof r !== 'object' || r === null || typeof r.prefix !== 'string') {
      rejected.push({ feed, line, message: 'ROA without a prefix string' });
      continue;
    }
    const p = parseCidr(r.prefix);
    if (!p.ok || p.hostBitsSet || r.prefix.indexOf('/') < 0 || p.length === 0) {
      // A /0 would cover every route of its family: each one it does not match would become invalid.
      const why = !p.ok ? p.message : p.hostBitsSet ? 'host bits set' : p.length === 0 ? 'a ROA for a whole address family (/0)' : 'no prefix length';
      rejected.push({ feed, line, message: `bad prefix ${JSON.stringify(r.prefix)}: ${why}` });
      continue;
    }
    const asn = readAsn(r.asn);
    if (asn < 0) {
      rejected.push({ feed, line, message: `bad asn ${JSON.stringify(r.asn)}` });
      continue;
    }
    const bits = p.version === 4 ? 32 : 128;
    const maxLength = r.maxLength === undefined ? p.length : r.maxLength;
    if (typeof maxLength !== 'number' || !Number.isInteger(maxLength) || maxLength < p.length || maxLength > bits) {
      rejected.push({ feed, line, message: `maxLength ${JSON.stringify(r.maxLength)} outside ${p.length}..${bits} for ${r.prefix}` });
      continue;
    }
    const same = seen.get(r.prefix);
    if (same?.some((x) => x.asn === asn && x.maxLength === maxLength)) {
      duplicates++;
      continue;
    }
    const roa: Roa = { version: p.version, start: p.start, length: p.length, maxLength, asn };
    if (same) same.push(roa);
    else seen.set(r.prefix, [roa]);
    roas.push(roa);
  }
  if (typeof metadata.uniquevrps === 'number' && metadata.uniquevrps !== roas.length) {
    rejected.push({ feed, line: 0, message: `metadata.uniquevrps is ${metadata.uniquevrps}, read ${roas.length} unique VRPs` });
  }
  // A buildtime that names no real time (`2099-13-45T99:99:99Z`) is no date: said, not recorded.
  const buildtime = isoUtcTimestamp(metadata.buildtime);
  if (buildtime === null && metadata.buildtime !== undefined) {
    rejected.push({ feed, line: 0, message: `metadata.buildtime ${JSON.stringify(metadata.buildtime).slice(0, 60)} is not a UTC date and time; data date unknown` });
  }
  return { roas, rejected, duplicates, dataDate: buildtime };
}

// ---------------------------------------------------------------------------
// Route origin validation

export type OriginValidity = 'valid' | 'invalid' | 'not-found';

interface FamilyIndex {
  /** Distinct ROA prefix lengths, ascending. */
  readonly lengths: number[];
  /** length -> key of the ROA prefix (see `prefixKey`) -> ROAs with that prefix. */
  readonly byLength: Map<number, Map<number | string, Roa[]>>;
}

/** ROAs indexed for `validateOrigin`: per family, per prefix length, by prefix. */
export interface RoaIndex {
  readonly v4: FamilyIndex;
  readonly v6: FamilyIndex;
  readonly size: number;
}

/**
 * Map key of the first `len` bits of an address given as its top two
 * 32-bit words (`hi`, `mid`) and as a bigint (`value`): the bits as a
 * number while they fit in 53 bits (IPv4 always, IPv6 up to /52: nearly
 * every ROA), else a string. Numbers keep the index and the lookups free of
 * bigint hashing, which V8 does slowly.
 */
function prefixKey(version: 4 | 6, hi: number, mid: number, value: bigint, len: number): number | string {
  if (len <= 32) return Math.floor(hi / POW2[32 - len]!);
  if (len <= 52) return hi * POW2[len - 32]! + Math.floor(mid / POW2[64 - len]!);
  return (value >> BigInt((version === 4 ? 32 : 128) - len)).toString(36);
}

const POW2: readonly number[] = Array.from({ length: 33 }, (_, k) => 2 ** k);

/** Top 32 bits of an address (all of IPv4). */
function hiWord(version: 4 | 6, value: bigint): number {
  return version === 4 ? Number(value) : Number(value >> 96n);
}

/** Bits 32..63 of an IPv6 address (0 for IPv4). */
function midWord(version: 4 | 6, value: bigint): number {
  return version === 4 ? 0 : Number((value >> 64n) & 0xffffffffn);
}

/** Builds the lookup index (a map per distinct ROA prefix length). */
export function buildRoaIndex(roas: readonly Roa[]): RoaIndex {
  const v4: FamilyIndex = { lengths: [], byLength: new Map() };
  const v6: FamilyIndex = { lengths: [], byLength: new Map() };
  for (const roa of roas) {
    const fam = roa.version === 4 ? v4 : v6;
    let byKey = fam.byLength.get(roa.length);
    if (!byKey) fam.byLength.set(roa.length, (byKey = new Map<number | string, Roa[]>()));
    const key = prefixKey(roa.version, hiWord(roa.version, roa.start), midWord(roa.version, roa.start), roa.start, roa.length);
    const list = byKey.get(key);
    if (list) list.push(roa);
    else byKey.set(key, [roa]);
  }
  for (const fam of [v4, v6]) fam.lengths.push(...[...fam.byLength.keys()].sort((a, b) => a - b));
  return { v4, v6, size: roas.length };
}

/** A route: its prefix (host bits cleared) is what is validated. */
export interface RoutePrefix {
  readonly version: 4 | 6;
  readonly start: bigint;
  readonly length: number;
}

/**
 * RFC 6811 origin validation of `route` announced by `origin` (null = NONE,
 * e.g. an AS_SET origin, which no ROA matches). Walks only the ROA prefix
 * lengths present in the set that are <= the route's length (at most
 * 33 / 129), one map lookup each.
 */
export function validateOrigin(index: RoaIndex, route: RoutePrefix, origin: number | null): OriginValidity {
  const fam = route.version === 4 ? index.v4 : index.v6;
  let covered = false;
  const hi = hiWord(route.version, route.start);
  const mid = midWord(route.version, route.start);
  const lengths = fam.lengths;
  for (let i = 0; i < lengths.length; i++) {
    const len = lengths[i]!;
    if (len > route.length) break;
    const list = fam.byLength.get(len)!.get(prefixKey(route.version, hi, mid, route.start, len));
    if (!list) continue;
    covered = true;
    if (origin === null || origin === 0) continue;
    for (const roa of list) {
      if (roa.asn === origin && route.length <= roa.maxLength) return 'valid';
    }
  }
  return covered ? 'invalid' : 'not-found';
}

/** The same rule by scanning every ROA: the reference for tests. */
export function validateOriginNaive(roas: readonly Roa[], route: RoutePrefix, origin: number | null): OriginValidity {
  const bits = route.version === 4 ? 32 : 128;
  let covered = false;
  for (const roa of roas) {
    if (roa.version !== route.version || roa.length > route.length) continue;
    const shift = BigInt(bits - roa.length);
    if (route.start >> shift !== roa.start >> shift) continue;
    covered = true;
    if (origin !== null && origin !== 0 && roa.asn === origin && route.length <= roa.maxLength) return 'valid';
  }
  return covered ? 'invalid' : 'not-found';
}

// ---------------------------------------------------------------------------
// Declaration

export const RPKI_VRPS = defineFeed({
  id: 'rpki-vrps',
  publisher: 'rpki-client (validated ROA payloads of the five RIR trust anchors)',
  url: 'https://console.rpki-client.org/vrps.json',
  licence: 'RPKI objects are public; VRPs under the ARIN trust anchor fall under the ARIN Relying Party Agreement',
  attribution_required: false,
  evidence: 'authoritative',
  format: 'rpki-client JSON ({metadata, roas: [{asn, prefix, maxLength, ta}]}), bzip2, gzip or plain',
  refresh: '1d',
  role: 'rpki',
  use: 'build',
  origin: 'feeds',
  path: 'rpki/rpki-client-vrps-20250720T100145Z.json.bz2',
  download: { url: 'https://console.rpki-client.org/vrps.json' },
  parse: parseRpkiJson,
});
