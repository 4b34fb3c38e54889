/**
 * Fastly `public-ip-list`: `{addresses:[...], ipv6_addresses:[...]}`; no date.
 *
 * @module
 */
import { defineFeed } from '../declare.js';
import { jsonObjectWithArrays } from '../read/json.js';
import type { PrefixesFound } from '../types.js';
import { PUBLISHED, datacenterValue, jsonCidrs, stringsOf, type DatacenterValue } from './values.js';

// Fastly's edge is anycast (its documentation); the list is its CDN edge.
export const FASTLY = datacenterValue('Fastly', { cdn: true, anycast: true });

/** @throws FeedError when either member is not an array or no CIDR is found. */
export function parseFastlyIpList(data: Uint8Array | string, feed: string): PrefixesFound<DatacenterValue> {
  const doc = jsonObjectWithArrays(feed, data, ['addresses', 'ipv6_addresses']);
  return jsonCidrs(feed, [...stringsOf(doc, 'addresses'), ...stringsOf(doc, 'ipv6_addresses')], FASTLY);
}

export const FASTLY_IP_LIST = defineFeed({
  ...PUBLISHED,
  id: 'fastly',
  publisher: 'Fastly',
  url: 'https://api.fastly.com/public-ip-list',
  licence: 'Fastly public API (no licence text)',
  format: 'JSON {addresses: [CIDR], ipv6_addresses: [CIDR]}',
  refresh: '30d',
  path: 'datacenter/fastly-public-ip-list.json',
  download: { url: 'https://api.fastly.com/public-ip-list' },
  parse: parseFastlyIpList,
});
