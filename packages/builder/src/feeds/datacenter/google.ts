/**
 * Google `cloud.json` (customer-usable Google Cloud ranges) and `goog.json`
 * (all Google ranges): `{syncToken, creationTime, prefixes:[{ipv4Prefix |
 * ipv6Prefix, service?, scope?}]}`. `syncToken` is Unix MILLISECONDS (UTC)
 * and is the data date; `creationTime` has no zone and is US Pacific time
 * (2026-08-21T01:05:42 = syncToken 08:05:42Z).
 *
 * Precedence: Google Cloud before Google (goog.json holds all of
 * cloud.json, 7 prefixes identically; goog minus cloud = Google's own
 * services).
 *
 * @module
 */
import { defineFeed } from '../declare.js';
import { isoFromEpochMillis } from '../read/dates.js';
import { jsonObjectWithArrays } from '../read/json.js';
import type { PrefixesFound } from '../types.js';
import { PUBLISHED, datacenterValue, field, fromArray, jsonCidrs, type DatacenterValue } from './values.js';

export const GOOGLE_CLOUD = datacenterValue('Google Cloud');
export const GOOGLE = datacenterValue('Google');

/** A parser of the `{syncToken, prefixes}` schema whose ranges all get `value`. */
function googleRanges(value: DatacenterValue) {
  return (data: Uint8Array | string, feed: string): PrefixesFound<DatacenterValue> => {
    const doc = jsonObjectWithArrays(feed, data, ['prefixes']);
    const items = fromArray(doc, 'prefixes', (r, w) => field(r, w, 'ipv4Prefix', 'ipv6Prefix'));
    return jsonCidrs(feed, items, value, isoFromEpochMillis(doc.syncToken));
  };
}

/** `cloud.json`, provider `Google Cloud`. @throws FeedError when `prefixes` is not an array or holds no CIDR. */
export const parseGoogleCloud = googleRanges(GOOGLE_CLOUD);
/** `goog.json`, provider `Google`. @throws FeedError when `prefixes` is not an array or holds no CIDR. */
export const parseGoogleGoog = googleRanges(GOOGLE);

const COMMON = {
  ...PUBLISHED,
  publisher: 'Google',
  licence: 'published by Google (no licence text)',
  format: 'JSON {syncToken (Unix ms), creationTime, prefixes[].ipv4Prefix|ipv6Prefix}',
  refresh: '1d',
} as const;

export const GOOGLE_CLOUD_RANGES = defineFeed({
  ...COMMON,
  id: 'google-cloud',
  url: 'https://www.gstatic.com/ipranges/cloud.json',
  path: 'datacenter/google-cloud.json',
  download: { url: 'https://www.gstatic.com/ipranges/cloud.json' },
  parse: parseGoogleCloud,
});

export const GOOGLE_RANGES = defineFeed({
  ...COMMON,
  id: 'google',
  url: 'https://www.gstatic.com/ipranges/goog.json',
  note: 'goog.json holds all Google ranges incl. cloud.json; Google Cloud takes precedence, goog minus cloud = Google services',
  path: 'datacenter/google-goog.json',
  download: { url: 'https://www.gstatic.com/ipranges/goog.json' },
  parse: parseGoogleGoog,
});
