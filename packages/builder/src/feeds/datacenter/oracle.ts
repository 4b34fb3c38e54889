/**
 * Oracle Cloud `public_ip_ranges.json`: `{last_updated_timestamp,
 * regions:[{region, cidrs:[{cidr, tags}]}]}`; every region's CIDRs.
 *
 * @module
 */
import { defineFeed } from '../declare.js';
import { isoFromZonelessUtc } from '../read/dates.js';
import { isObject, jsonObjectWithArrays } from '../read/json.js';
import type { PrefixesFound } from '../types.js';
import { PUBLISHED, datacenterValue, field, jsonCidrs, type DatacenterValue, type JsonCidr } from './values.js';

export const ORACLE = datacenterValue('Oracle Cloud');

/** @throws FeedError when `regions` is not an array or holds no CIDR. */
export function parseOracleIpRanges(data: Uint8Array | string, feed: string): PrefixesFound<DatacenterValue> {
  const doc = jsonObjectWithArrays(feed, data, ['regions']);
  const items: JsonCidr[] = [];
  (doc.regions as unknown[]).forEach((r, i) => {
    const where = `regions[${i}].cidrs`;
    const cidrs = isObject(r) ? r.cidrs : undefined;
    if (!Array.isArray(cidrs)) items.push({ value: cidrs, where });
    else cidrs.forEach((c: unknown, j) => items.push(field(c, `${where}[${j}]`, 'cidr')));
  });
  return jsonCidrs(feed, items, ORACLE, isoFromZonelessUtc(doc.last_updated_timestamp));
}

export const ORACLE_IP_RANGES = defineFeed({
  ...PUBLISHED,
  id: 'oracle-cloud',
  publisher: 'Oracle',
  url: 'https://docs.oracle.com/en-us/iaas/tools/public_ip_ranges.json',
  licence: 'published by Oracle (no licence text)',
  format: 'JSON {last_updated_timestamp, regions[].cidrs[].cidr}',
  refresh: '7d',
  path: 'datacenter/oracle-public_ip_ranges.json',
  download: { url: 'https://docs.oracle.com/en-us/iaas/tools/public_ip_ranges.json' },
  parse: parseOracleIpRanges,
});
