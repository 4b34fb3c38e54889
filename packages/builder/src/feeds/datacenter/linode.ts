/**
 * Linode (Akamai) ranges from its RFC 8805 geofeed, in two forms: the
 * publisher's CSV (data date from `# Last modified: ...`, written without a
 * zone and read as UTC, like the JSON copy's `lastModified`), and the same
 * geofeed converted to JSON by jonhadfield/cloud-ips
 * (`{etag, lastModified, records:[{prefix, alpha2code, region, city, postalCode}]}`).
 *
 * @module
 */
import { defineFeed } from '../declare.js';
import { isoFromZonelessUtc } from '../read/dates.js';
import { parseGeofeedPrefixes } from '../read/geofeed.js';
import { jsonObjectWithArrays } from '../read/json.js';
import type { PrefixesFound } from '../types.js';
import { PUBLISHED, datacenterValue, field, fromArray, jsonCidrs, type DatacenterValue } from './values.js';

export const LINODE = datacenterValue('Linode');

/** The geofeed CSV. @throws FeedError when no line starts with a prefix. */
export function parseLinodeGeofeed(data: Uint8Array | string, feed: string): PrefixesFound<DatacenterValue> {
  const r = parseGeofeedPrefixes(feed, data, LINODE);
  let date: string | null = null;
  for (const c of r.comments) {
    const m = /^Last modified:\s*(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)$/i.exec(c.text);
    if (m) date = isoFromZonelessUtc(`${m[1]}T${m[2]}`);
  }
  return { prefixes: r.prefixes, rejected: r.rejected, dataDate: date };
}

/** The converted JSON (`records[].prefix`). @throws FeedError when `records` is not an array or holds no CIDR. */
export function parseLinodeGeofeedJson(data: Uint8Array | string, feed: string): PrefixesFound<DatacenterValue> {
  const doc = jsonObjectWithArrays(feed, data, ['records']);
  const items = fromArray(doc, 'records', (r, w) => field(r, w, 'prefix'));
  const date = typeof doc.lastModified === 'string' ? isoFromZonelessUtc(doc.lastModified) : null;
  return jsonCidrs(feed, items, LINODE, date);
}

const COMMON = { ...PUBLISHED, publisher: 'Akamai (Linode)', url: 'https://geoip.linode.com/', refresh: '7d' } as const;

export const LINODE_GEOFEED = defineFeed({
  ...COMMON,
  id: 'linode-geofeed',
  licence: 'Linode public geofeed (no licence text)',
  format: 'RFC 8805 geofeed CSV (prefix,country,region,city,postal) with a # Last modified comment',
  path: 'datacenter/linode-geofeed.csv',
  download: { url: 'https://geoip.linode.com/' },
  parse: parseLinodeGeofeed,
});

export const LINODE_GEOFEED_JSON = defineFeed({
  ...COMMON,
  id: 'linode-geofeed-json',
  licence: 'Linode public geofeed; conversion Apache-2.0 (jonhadfield/cloud-ips)',
  note: 'RE-PROCESSED: the Linode geofeed converted to JSON by jonhadfield/cloud-ips',
  format: 'JSON {lastModified, records[].prefix} (the geofeed converted by jonhadfield/cloud-ips)',
  path: 'datacenter/linode-geofeed-converted.json',
  download: { url: 'https://raw.githubusercontent.com/jonhadfield/cloud-ips/HEAD/linode.json' },
  parse: parseLinodeGeofeedJson,
});
