/**
 * Bitcoin Core asmap: which AS a prefix maps to, built by Kartograf from
 * RPKI, IRR and BGP data. The bytecode (`.dat`, vendored) is the routing
 * source the build reads: the newest routing evidence in the feeds, so it
 * decides `is_announced` and the bogon "in use" test where the BGP tables
 * (older) do not cover an address, with evidence `inferred` (mapped is not
 * proof of a route: docs/data.md). The decoded text (`asmap-tool.py
 * decode`) is context: the tests check that both give the same map.
 *
 * @module
 */
import { defineFeed } from '../declare.js';
import { decodeAsmap, toFamilyPrefixes } from './asmap-bytecode.js';
import { parseCidr } from '../read/cidr.js';
import { unpackFeed } from '../read/compression.js';
import { MAX_ASN, parseUint } from '../read/numbers.js';
import { eachLine, excerpt, feedText } from '../read/text.js';
import { FeedError } from '../../errors.js';
import type { Diagnostic, Prefix, PrefixesFound } from '../types.js';

/** An origin AS. */
export interface AsnValue {
  readonly asn: number;
}

/**
 * Reads the text form of a Bitcoin Core asmap (`asmap-tool.py decode`):
 * `prefix AS<n>` per line. The data date (the map's launch time) is not in
 * the text: the declaration's `copyDate` gives it.
 */
export function parseAsmapDecoded(data: Uint8Array, feed: string): PrefixesFound<AsnValue> {
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
  return { prefixes, rejected, dataDate: null };
}

/** An origin as the routes role carries it. */
export interface AsmapRoute {
  readonly origins: readonly number[];
}

/**
 * Reads the asmap bytecode into prefixes valued with their AS (ASN 0,
 * unmapped, dropped). Prefixes do not nest: each is one path of the program.
 */
export function parseAsmapBytecode(data: Uint8Array, feed: string): PrefixesFound<AsmapRoute> {
  const values = new Map<number, AsmapRoute>();
  const prefixes: Prefix<AsmapRoute>[] = [];
  for (const leaf of decodeAsmap(data, feed)) {
    if (leaf.asn === 0) continue;
    let value = values.get(leaf.asn);
    if (!value) values.set(leaf.asn, (value = Object.freeze({ origins: Object.freeze([leaf.asn]) })));
    for (const p of toFamilyPrefixes(leaf)) prefixes.push({ ...p, value });
  }
  if (prefixes.length === 0) throw new FeedError(feed, 'feed_empty', 'the asmap maps no address');
  return { prefixes, rejected: [], dataDate: null };
}

const ASMAP_COMMON = {
  publisher: 'Bitcoin Core asmap project (Kartograf)',
  url: 'https://github.com/bitcoin-core/asmap-data',
  licence: 'MIT (asmap-data); inputs under ARIN RPA, IRR and CAIDA terms',
  attribution_required: false,
  evidence: 'inferred',
  refresh: '180d',
  role: 'routes',
  origin: 'feeds',
  copyDate: '2025-12-04T16:00:00Z',
} as const;

export const ASMAP_BYTECODE = defineFeed({
  ...ASMAP_COMMON,
  id: 'asmap-bytecode',
  note: 'mixes RPKI, IRR and BGP data (Kartograf), so mapped is not proof of a route: routing evidence inferred where only the asmap maps an address',
  format: 'asmap bytecode (Bitcoin Core -asmap file), unfilled',
  use: 'build',
  redistributable: true,
  path: 'bgp/asmap/1764864000_asmap_unfilled.dat',
  download: { url: 'https://github.com/bitcoin-core/asmap-data/raw/main/latest_asmap.dat' },
  parse: parseAsmapBytecode,
});

export const ASMAP = defineFeed({
  ...ASMAP_COMMON,
  id: 'asmap',
  note: 'RE-PROCESSED (decoded from asmap bytecode); mixes RPKI, IRR and BGP data, so mapped is not announced; prefixes nest (longest match)',
  format: 'gzip text: prefix AS<n> per line (decoded asmap)',
  use: 'context',
  path: 'bgp/asmap/1764864000_asmap_unfilled-decoded.txt.gz',
  download: { url: 'https://github.com/bitcoin-core/asmap-data' },
  parse: parseAsmapDecoded,
});
