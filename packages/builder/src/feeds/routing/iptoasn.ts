/**
 * iptoasn.com (`ip2asn-v6.tsv.gz`): address ranges with their origin AS,
 * country and AS description. Context only: the build's ASN table is
 * ip-location-db's.
 *
 * Publisher's format: `range_start<TAB>range_end<TAB>asn<TAB>cc<TAB>description`;
 * AS 0 rows ("Not routed") are skipped, `None`/`Unknown` countries are null.
 *
 * @module
 */
import { defineFeed } from '../declare.js';
import { parseAddressValue, pushRangePrefixes } from '../read/cidr.js';
import { gzipHeader, unpackFeed } from '../read/compression.js';
import { MAX_ASN, parseUint } from '../read/numbers.js';
import { eachLine, excerpt, feedText } from '../read/text.js';
import type { Diagnostic, Prefix, PrefixesFound } from '../types.js';

/** iptoasn row value. `country` is null for `None` / `Unknown`. */
export interface Ip2AsnValue {
  readonly asn: number;
  readonly country: string | null;
  readonly org: string;
}

/**
 * Reads an iptoasn `ip2asn-v4/v6/combined.tsv(.gz)` file
 * (`range_start<TAB>range_end<TAB>AS_number<TAB>country_code<TAB>AS_description`).
 * Rows with AS 0 (`Not routed`) are counted in `skipped`. The data date is
 * the gzip header's MTIME.
 */
export function parseIp2Asn(data: Uint8Array, feed: string): PrefixesFound<Ip2AsnValue> & { readonly skipped: number } {
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
  return { prefixes, rejected, dataDate: gzipHeader(data)?.mtime ?? null, skipped };
}

export const IPTOASN_IPV6 = defineFeed({
  id: 'iptoasn-ipv6',
  publisher: 'iptoasn.com',
  url: 'https://iptoasn.com/data/ip2asn-v6.tsv.gz',
  licence: 'PDDL 1.0 (iptoasn.com)',
  attribution_required: false,
  evidence: 'authoritative',
  format: 'gzip TSV: range_start, range_end, AS number, country, AS description',
  refresh: '1d',
  role: 'asn',
  use: 'context',
  origin: 'feeds',
  path: 'bgp/iptoasn-ip2asn-v6-20231208.tsv.gz',
  download: { url: 'https://iptoasn.com/data/ip2asn-v6.tsv.gz' },
  parse: parseIp2Asn,
});
