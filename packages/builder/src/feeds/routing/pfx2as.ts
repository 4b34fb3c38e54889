/**
 * CAIDA RouteViews prefix-to-AS (`routeviews-rv2-*.pfx2as.gz`): which AS
 * originates a routed IPv4 prefix.
 *
 * Publisher's format: gzip text, one line per prefix,
 * `prefix<TAB>length<TAB>origin`. The origin field is `a` (one origin),
 * `a_b` (MOAS: several origins seen for the prefix) or `a,b` (an AS_SET at
 * the end of the path); both forms combine (`209_3356,6223`). Rule: every
 * AS number in the field becomes an origin, in field order, without
 * repeats. Gzip is detected by its magic, so a plain copy reads as well.
 *
 * `--fetch` starts at CAIDA's directory listing and walks its year and
 * month folders to the newest `routeviews-rv2-<date>-<time>.pfx2as.gz`. A
 * routing table is never read as empty: a listing or error page fetched in
 * its place reads no prefix and is a `feed_format` error, a file without a
 * line `feed_empty` (the registry's rule for every feed), so a failed
 * download can never make every address "not announced".
 *
 * @module
 */
import { defineFeed } from '../declare.js';
import { unpackFeed, gzipHeader } from '../read/compression.js';
import { hostMask, parseAddressValue } from '../read/cidr.js';
import { compactDate } from '../read/dates.js';
import { newestInListing } from '../read/links.js';
import { MAX_ASN, parseUint } from '../read/numbers.js';
import { eachLine, excerpt, feedText } from '../read/text.js';
import type { Diagnostic, Prefix, PrefixesFound } from '../types.js';

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
 * none (the declaration's `copyDate` then applies). With `family`, a row of
 * the other IP version is rejected: the IPv6 table in the IPv4 table's place
 * is then `feed_format`, not a routing source that leaves every IPv4
 * address unannounced.
 */
export function parsePfx2as(data: Uint8Array, feed: string, family?: 4 | 6): PrefixesFound<OriginsValue> {
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
    if (family !== undefined && addr.version !== family) {
      rejected.push({ feed, line: lineNo, message: `IPv${addr.version} prefix in an IPv${family} table: ${excerpt(line)}` });
      return;
    }
    const length = parseUint(line.slice(t1 + 1, t2), addr.version === 4 ? 32 : 128);
    if (length < 0) {
      rejected.push({ feed, line: lineNo, message: `bad prefix length: ${excerpt(line.slice(t1 + 1, t2))}` });
      return;
    }
    if (length === 0) {
      // The default route says nothing about who routes which address (RIS's reader drops it too).
      rejected.push({ feed, line: lineNo, message: `a default route (/0): ${excerpt(line)}` });
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
  return { prefixes, rejected, dataDate: pfx2asNameDate(gzipHeader(data)?.name ?? null) };
}

/** RouteViews IPv4 pfx2as: the announced IPv4 routes. */
export const ROUTEVIEWS_PFX2AS = defineFeed({
  id: 'routeviews-pfx2as',
  publisher: 'CAIDA (RouteViews Prefix-to-AS)',
  url: 'https://publicdata.caida.org/datasets/routing/routeviews-prefix2as/',
  licence: 'CAIDA RouteViews Prefix-to-AS: public data, cite CAIDA (https://www.caida.org/about/legal/aua/)',
  attribution_required: true,
  evidence: 'authoritative',
  format: 'gzip text: prefix<TAB>length<TAB>origin (MOAS a_b, AS_SET a,b); the date is in the gzip file name',
  refresh: '1d',
  role: 'routes',
  use: 'build',
  origin: 'feeds',
  path: 'bgp/routeviews-rv2-20240406-1200.pfx2as.gz',
  // A directory listing of year/month folders: the locator walks down to the newest file.
  download: {
    url: 'https://publicdata.caida.org/datasets/routing/routeviews-prefix2as/',
    locate: newestInListing(/^routeviews-rv2-(\d{8}-\d{4})\.pfx2as\.gz$/, 'routeviews-rv2-<date>-<time>.pfx2as.gz'),
  },
  copyDate: '2024-04-06T12:00:00Z',
  parse: (data, feed) => parsePfx2as(data, feed, 4),
});
