/**
 * Amazon Web Services `ip-ranges.json`: `{syncToken, createDate,
 * prefixes:[{ip_prefix, region, service, network_border_group}],
 * ipv6_prefixes:[{ipv6_prefix, ...}]}`. A prefix appears once per service
 * (AMAZON covers all others); every record is read and exact repeats are
 * kept once. `createDate` (`YYYY-MM-DD-hh-mm-ss`, UTC) is the data date.
 *
 * @module
 */
import { defineFeed } from '../declare.js';
import { isoFromEpochSeconds, isoFromZonelessUtc } from '../read/dates.js';
import { parseCidr } from '../read/cidr.js';
import { isObject, jsonObjectWithArrays } from '../read/json.js';
import type { Prefix, PrefixesFound } from '../types.js';
import { PUBLISHED, datacenterValue, field, fromArray, jsonCidrs, type DatacenterValue } from './values.js';

export const AWS = datacenterValue('AWS');
/** CloudFront edge ranges (service CLOUDFRONT): AWS's CDN, never a VPN server. */
export const AWS_CLOUDFRONT = datacenterValue('AWS', { cdn: true });

/**
 * All services' prefixes, repeats kept once; a prefix listed under the
 * CLOUDFRONT service is valued as a CDN edge range.
 *
 * @throws FeedError when `prefixes` / `ipv6_prefixes` are not arrays or hold no CIDR.
 */
export function parseAwsIpRanges(data: Uint8Array | string, feed: string): PrefixesFound<DatacenterValue> {
  const doc = jsonObjectWithArrays(feed, data, ['prefixes', 'ipv6_prefixes']);
  const items = [
    ...fromArray(doc, 'prefixes', (r, w) => field(r, w, 'ip_prefix')),
    ...fromArray(doc, 'ipv6_prefixes', (r, w) => field(r, w, 'ipv6_prefix')),
  ];
  const m = typeof doc.createDate === 'string' ? /^(\d{4}-\d{2}-\d{2})-(\d{2})-(\d{2})-(\d{2})$/.exec(doc.createDate) : null;
  const date = (m ? isoFromZonelessUtc(`${m[1]}T${m[2]}:${m[3]}:${m[4]}`) : null) ?? isoFromEpochSeconds(doc.syncToken);
  const found = jsonCidrs(feed, items, AWS, date);
  const edges = new Set<string>();
  for (const key of ['prefixes', 'ipv6_prefixes'] as const) {
    for (const rec of doc[key] as unknown[]) {
      if (!isObject(rec) || rec['service'] !== 'CLOUDFRONT') continue;
      const c = parseCidr(String(rec['ip_prefix'] ?? rec['ipv6_prefix']).trim());
      if (c.ok) edges.add(`${c.version}/${c.start}/${c.length}`);
    }
  }
  const edge = (p: Prefix<DatacenterValue>): boolean => edges.has(`${p.version}/${p.start}/${p.length}`);
  return { ...found, prefixes: found.prefixes.map((p) => (edge(p) ? { ...p, value: AWS_CLOUDFRONT } : p)) };
}

export const AWS_IP_RANGES = defineFeed({
  ...PUBLISHED,
  id: 'aws',
  publisher: 'Amazon Web Services',
  url: 'https://ip-ranges.amazonaws.com/ip-ranges.json',
  licence: 'published by AWS for public use (no licence text)',
  format: 'JSON {createDate, prefixes[].ip_prefix, ipv6_prefixes[].ipv6_prefix}',
  refresh: '1d',
  path: 'datacenter/aws-ip-ranges.json',
  download: { url: 'https://ip-ranges.amazonaws.com/ip-ranges.json' },
  parse: parseAwsIpRanges,
});
