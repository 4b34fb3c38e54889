/**
 * X4BNet/lists_vpn hosting lists: `output/datacenter/ipv4.txt` / `ipv6.txt`
 * (one CIDR per line: announced prefixes of ~900 hosting ASNs plus manual
 * ranges; no provider per line, so `provider: null`) and
 * `input/datacenter/ASN.txt` (`AS<n> # name`: the hosting ASNs, names with
 * URLs removed). Inferred.
 *
 * @module
 */
import { defineFeed } from '../declare.js';
import { parseAsnCommentList } from '../read/asn-list.js';
import { constantCidrList } from '../read/lines.js';
import type { AsnsFound } from '../types.js';
import { datacenterValue } from './values.js';

export const X4B_DATACENTER = datacenterValue(null);

/**
 * `ASN.txt`: ASN -> name (null when the comment is only a URL). A repeated
 * ASN keeps its first name; the repeat is a Diagnostic.
 *
 * @throws FeedError when no line is an ASN entry.
 */
export function parseX4bDatacenterAsns(data: Uint8Array | string, feed: string): AsnsFound<string | null> {
  const { asns, rejected } = parseAsnCommentList(feed, data, (name) => name);
  return { asns, rejected, dataDate: null };
}

const X4B = {
  publisher: 'X4B (X4BNet/lists_vpn)',
  licence: 'MIT',
  attribution_required: false,
  evidence: 'inferred',
  refresh: '7d',
  use: 'build',
  origin: 'feeds',
} as const;

export const X4BNET_DATACENTER_LISTS = ([4, 6] as const).map((v) => {
  const url = `https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/datacenter/ipv${v}.txt`;
  return defineFeed({
    ...X4B,
    id: `x4bnet-datacenter-ipv${v}`,
    url,
    note: 'INFERRED: announced prefixes of ~900 hosting ASNs plus manual ranges; no provider per line',
    format: 'one CIDR per line',
    role: 'datacenter',
    path: `datacenter/x4bnet-datacenter-ipv${v}.txt`,
    download: { url },
    parse: constantCidrList(X4B_DATACENTER, { family: v }),
  });
});

export const X4BNET_DATACENTER_ASNS = defineFeed({
  ...X4B,
  id: 'x4bnet-datacenter-asn',
  url: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/datacenter/ASN.txt',
  note: "Hosting ASNs with X4B's free-text names (URLs removed; null when only a URL)",
  format: 'AS<n> # name per line',
  role: 'hosting-asn',
  path: 'datacenter/x4bnet-datacenter-ASN.txt',
  download: { url: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/datacenter/ASN.txt' },
  parse: parseX4bDatacenterAsns,
});
