/**
 * Bitcoin Core asmap, decoded to text (`asmap-tool.py decode`): which AS a
 * prefix maps to. Prefixes nest (longest match wins, left to the
 * consumer). Context only today; the newest routing evidence in the feeds
 * (issue 9 makes it one).
 *
 * @module
 */
import { defineFeed } from '../declare.js';
import { parseCidr } from '../read/cidr.js';
import { unpackFeed } from '../read/compression.js';
import { MAX_ASN, parseUint } from '../read/numbers.js';
import { eachLine, excerpt, feedText } from '../read/text.js';
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

export const ASMAP = defineFeed({
  id: 'asmap',
  publisher: 'Bitcoin Core asmap project (Kartograf)',
  url: 'https://github.com/bitcoin-core/asmap-data',
  licence: 'MIT (asmap-data); inputs under ARIN RPA, IRR and CAIDA terms',
  attribution_required: false,
  evidence: 'inferred',
  note: 'RE-PROCESSED (decoded from asmap bytecode); mixes RPKI, IRR and BGP data, so mapped is not announced; prefixes nest (longest match)',
  format: 'gzip text: prefix AS<n> per line (decoded asmap)',
  refresh: '180d',
  role: 'routes',
  use: 'context',
  origin: 'feeds',
  path: 'bgp/asmap/1764864000_asmap_unfilled-decoded.txt.gz',
  download: { url: 'https://github.com/bitcoin-core/asmap-data' },
  copyDate: '2025-12-04T16:00:00Z',
  parse: parseAsmapDecoded,
});
