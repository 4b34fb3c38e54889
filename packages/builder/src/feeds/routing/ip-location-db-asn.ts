/**
 * sapics ip-location-db ASN CSV (`asn-ipv4.csv`, `asn-ipv6.csv` of the npm
 * package `@ip-location-db/asn`): which organisation holds an address
 * range. The build's ASN table.
 *
 * Publisher's format: no header, `range_start,range_end,asn,org`,
 * inclusive ranges, org optionally quoted RFC 4180 style
 * (`"Cloudflare, Inc."`, `"LLC ""SPUTNIK"""`). Rules: a row of AS 0
 * (reserved, RFC 7607) is rejected; each file holds its own IP version only
 * (an IPv4 row, `::ffff:a.b.c.d` included, in the IPv6 file is rejected, as
 * is the reverse); ranges must ascend without overlap;
 * a range overlapping its predecessor is clipped to the part after it
 * (reported), one wholly inside it dropped.
 *
 * @module
 */
import { defineFeed } from '../declare.js';
import { parseAddressValue, pushRangePrefixes } from '../read/cidr.js';
import { unpackFeed } from '../read/compression.js';
import { unquoteCsvField } from '../read/csv.js';
import { MAX_ASN, parseUint } from '../read/numbers.js';
import { eachLine, excerpt, feedText } from '../read/text.js';
import type { Diagnostic, Found, Prefix } from '../types.js';

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
export interface AsnRangesFound extends Found {
  readonly ranges: AsnRange[];
}

/**
 * Reads an ip-location-db ASN CSV (`range_start,range_end,asn,org`) of IP
 * `version` into ranges. A row of the other version is dropped
 * (diagnostic): core reads `::ffff:a.b.c.d` as IPv4, so the IPv6 file
 * could otherwise give IPv4 addresses an AS, and mixed rows escaped the
 * order check below. Rows must ascend: a row that starts at or before the
 * end of the previous range is clipped to start after it (diagnostic),
 * dropped when nothing is left (diagnostic). A row whose start is below the
 * previous row's start is out of order and dropped (diagnostic).
 */
export function parseAsnCsvRanges(data: Uint8Array, feed: string, version: 4 | 6): AsnRangesFound {
  const text = feedText(unpackFeed(feed, data));
  const ranges: AsnRange[] = [];
  const rejected: Diagnostic[] = [];
  // The `asn,org` tail of a row -> its parsed value (80k organisations share 515k rows).
  const tails = new Map<string, AsnOrgValue | string>();
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
    if (a.version !== version) {
      rejected.push({ feed, line: lineNo, message: `IPv${a.version} address in the IPv${version} file` });
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
      // AS 0 is reserved (RFC 7607): no network holds it, so the row names no holder (iptoasn skips its `Not routed` rows too).
      else if (asn === 0) value = 'AS 0 is reserved (RFC 7607) and holds no range';
      else if (org === null) value = `bad CSV quoting in org ${excerpt(line.slice(c3 + 1))}`;
      else value = Object.freeze({ asn, org });
      tails.set(tail, value);
    }
    if (typeof value === 'string') {
      rejected.push({ feed, line: lineNo, message: value });
      return;
    }
    let first = a.value;
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
    prevFirst = first;
    prevLast = b.value;
    ranges.push({ version, first, last: b.value, asn: value.asn, org: value.org });
  });
  // The file states no date: the npm package's version gives it (acquire.ts).
  return { ranges, rejected, dataDate: null };
}

/** The ranges as CIDR prefixes (fewest per range); ranges with equal asn and org share one value object. */
export function asnRangesToPrefixes(ranges: readonly AsnRange[]): Prefix<AsnOrgValue>[] {
  const out: Prefix<AsnOrgValue>[] = [];
  const values = new Map<number, Map<string, AsnOrgValue>>();
  for (const r of ranges) {
    let byOrg = values.get(r.asn);
    if (!byOrg) values.set(r.asn, (byOrg = new Map<string, AsnOrgValue>()));
    let value = byOrg.get(r.org);
    if (!value) byOrg.set(r.org, (value = Object.freeze({ asn: r.asn, org: r.org })));
    pushRangePrefixes(out, r.version, r.first, r.last, value);
  }
  return out;
}

/** Both IP versions of the table; one source row in the snapshot. */
export const IP_LOCATION_DB_ASN = ([4, 6] as const).map((v) =>
  defineFeed({
    id: `ip-location-db-asn-ipv${v}`,
    row: 'ip-location-db-asn',
    publisher: 'sapics/ip-location-db (RouteViews pfx2as + RIR delegations + DB-IP ASN Lite)',
    url: 'https://www.npmjs.com/package/@ip-location-db/asn',
    licence: 'CC BY 4.0 (RouteViews, NRO, DB-IP: attribution with a link to https://db-ip.com)',
    attribution_required: true,
    evidence: 'authoritative',
    note: 'RE-PROCESSED merge (IPv4 priority RouteViews > RIR > DB-IP): covered is not the same as announced',
    format: 'CSV without header: range_start,range_end,asn,org (inclusive ranges, RFC 4180 quoting)',
    refresh: '7d',
    role: 'asn',
    use: 'build',
    origin: 'npm',
    npm: { package: '@ip-location-db/asn', file: `asn-ipv${v}.csv` },
    path: `bgp/ip-location-db-asn-ipv${v}.csv`,
    parse: (data: Uint8Array, feed: string) => parseAsnCsvRanges(data, feed, v),
  }),
);
