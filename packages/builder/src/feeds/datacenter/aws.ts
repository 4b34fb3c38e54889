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
import { jsonObjectWithArrays } from '../read/json.js';
import type { PrefixesFound } from '../types.js';
import { PUBLISHED, datacenterValue, field, fromArray, jsonCidrs, type DatacenterValue } from './values.js';

export const AWS = datacenterValue('AWS');

/**
 * All services' prefixes, repeats kept once.
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
  return jsonCidrs(feed, items, AWS, date);
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
