/**
 * RIPE RIS whois dump (`riswhoisdump.IPv6.gz`): which AS originates a
 * routed IPv6 prefix, and how many RIS peers see the route.
 *
 * Publisher's format: `%` comment header (with the generation time), then
 * `origin<TAB>prefix<TAB>peers` where origin may be an AS_SET `{a,b}` and
 * peers = how many RIS peers saw the route. Rule: the default route is
 * dropped, and so is a route inside the IPv4-mapped block `::ffff:0:0/96`
 * (the IPv6 dump holds a few, `::ffff:92.47.144.56/127`): core reads such an
 * address as IPv4, but an IPv6 route to it says nothing about who routes the
 * IPv4 address. Rows seen by fewer than `RIS_MIN_PEERS` peers are dropped
 * (see there), and the rows left for one prefix (MOAS) are merged into one
 * `origins` list, most-seen origin first.
 *
 * @module
 */
import { defineFeed } from '../declare.js';
import { parseCidr } from '../read/cidr.js';
import { unpackFeed } from '../read/compression.js';
import { isoUtcTimestamp } from '../read/dates.js';
import { MAX_ASN, parseUint } from '../read/numbers.js';
import { eachLine, excerpt, feedText } from '../read/text.js';
import type { Diagnostic, Prefix, PrefixesFound } from '../types.js';
import type { OriginsValue } from './pfx2as.js';

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

/** The dump's routes, plus the rows read and those left out by the rule (never errors). */
export interface RisFound extends PrefixesFound<OriginsValue> {
  readonly rows: number;
  readonly skipped: number;
}

const MONTHS: Readonly<Record<string, string>> = {
  Jan: '01', Feb: '02', Mar: '03', Apr: '04', May: '05', Jun: '06',
  Jul: '07', Aug: '08', Sep: '09', Oct: '10', Nov: '11', Dec: '12',
};

/**
 * The time of a `% This file was generated at Fri Dec 20 10:06:01 UTC 2024.`
 * line: `{ iso: '2024-12-20T10:06:01Z' }`; `{ iso: null }` when the line has
 * that shape but names no real time (`Feb 30`, `25:00:00`), which is no date
 * (docs/feeds.md); null for any other line.
 */
function risGeneratedAt(line: string): { readonly iso: string | null } | null {
  const m = /generated at \w{3} (\w{3}) +(\d{1,2}) (\d\d:\d\d:\d\d) UTC (\d{4})/.exec(line);
  const month = m ? MONTHS[m[1]!] : undefined;
  if (!m || !month) return null;
  return { iso: isoUtcTimestamp(`${m[4]}-${month}-${m[2]!.padStart(2, '0')}T${m[3]}Z`) };
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
 * `skipped` counts default-route rows, IPv4-mapped IPv6 routes and rows under `RIS_MIN_PEERS`
 * (`minPeers` overrides it, for tests and studies). Each prefix is
 * output once, at its first row, with `origins` ordered by peers
 * (descending), then AS number. With `family`, a row of the other IP version
 * is rejected, so the IPv4 dump in the IPv6 dump's place is `feed_format`.
 */
export function parseRisWhois(data: Uint8Array, feed: string, minPeers = RIS_MIN_PEERS, family?: 4 | 6): RisFound {
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
      const stated = date === null ? risGeneratedAt(line) : null;
      if (stated !== null && stated.iso === null) rejected.push({ feed, line: lineNo, message: `generation time names no real time; data date unknown: ${excerpt(line)}` });
      else if (stated !== null) date = stated.iso;
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
    // `::ffff:1.2.3.0/120` parses as IPv4 1.2.3.0/24: in a routing table it is an IPv6 route, not that IPv4 one.
    const mappedV4 = p.version === 4 && prefixText.indexOf(':') >= 0;
    // Said before the rules that leave rows out, so that no row of the wrong file passes as skipped.
    if (family !== undefined && !mappedV4 && p.version !== family) {
      rejected.push({ feed, line: lineNo, message: `IPv${p.version} prefix in an IPv${family} dump: ${excerpt(prefixText)}` });
      return;
    }
    const peers = parseUint(line.slice(t2 + 1), Number.MAX_SAFE_INTEGER);
    if (peers < 0) {
      rejected.push({ feed, line: lineNo, message: `bad peer count: ${excerpt(line.slice(t2 + 1))}` });
      return;
    }
    if (p.length === 0 || mappedV4 || peers < minPeers) {
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
  const note = `routes seen by fewer than ${minPeers} RIS peers, the default route and IPv4-mapped IPv6 routes are left out`;
  return { prefixes, rejected, dataDate: date, note, skipped, rows };
}

/** RIS IPv6 whois dump: the announced IPv6 routes. */
export const RIS_WHOIS_IPV6 = defineFeed({
  id: 'ris-whois-ipv6',
  publisher: 'RIPE NCC Routing Information Service (RIS)',
  url: 'https://www.ris.ripe.net/dumps/riswhoisdump.IPv6.gz',
  licence: 'RIPE NCC RIS data: free to use with attribution (RIPE NCC terms of service)',
  attribution_required: true,
  evidence: 'authoritative',
  format: 'gzip text: % header with the generation time, then origin<TAB>prefix<TAB>peers',
  refresh: '1d',
  role: 'routes',
  use: 'build',
  origin: 'feeds',
  path: 'bgp/riswhoisdump.IPv6-20241220.gz',
  download: { url: 'https://www.ris.ripe.net/dumps/riswhoisdump.IPv6.gz' },
  parse: (data, feed) => parseRisWhois(data, feed, RIS_MIN_PEERS, 6),
});
