/**
 * Providers that publish their ranges as plain lists or a geofeed:
 * DigitalOcean (RFC 8805 geofeed CSV, and its IPv4 / IPv6 prefixes
 * extracted by lord-alfred/ipranges), Cloudflare (`ips-v4`, `ips-v6`: one
 * CIDR per line) and Vultr (its geofeed's IPv4 / IPv6 prefixes, extracted by
 * lord-alfred/ipranges). None states a date.
 *
 * @module
 */
import { defineFeed } from '../declare.js';
import { parseGeofeedPrefixes } from '../read/geofeed.js';
import { constantCidrList } from '../read/lines.js';
import type { PrefixesFound } from '../types.js';
import { PUBLISHED, datacenterValue, type DatacenterValue } from './values.js';

export const DIGITALOCEAN = datacenterValue('DigitalOcean');
// Cloudflare's network is anycast throughout (its documentation); its ranges are its CDN edge.
export const CLOUDFLARE = datacenterValue('Cloudflare', { cdn: true, anycast: true });
export const VULTR = datacenterValue('Vultr');

/** DigitalOcean's RFC 8805 geofeed CSV. @throws FeedError when no line starts with a prefix. */
export function parseDigitalOceanGeofeed(data: Uint8Array | string, feed: string): PrefixesFound<DatacenterValue> {
  const { prefixes, rejected } = parseGeofeedPrefixes(feed, data, DIGITALOCEAN);
  return { prefixes, rejected, dataDate: null };
}

const LORD_ALFRED = 'column 1 extracted by lord-alfred/ipranges (CC0)';
const LIST = 'one CIDR per line';

export const DIGITALOCEAN_GEOFEED = defineFeed({
  ...PUBLISHED,
  id: 'digitalocean-geofeed',
  publisher: 'DigitalOcean',
  url: 'https://digitalocean.com/geo/google.csv',
  licence: 'DigitalOcean public geofeed (no licence text)',
  format: 'RFC 8805 geofeed CSV (prefix,country,region,city,postal)',
  refresh: '7d',
  path: 'datacenter/digitalocean-geofeed.csv',
  download: { url: 'https://digitalocean.com/geo/google.csv' },
  parse: parseDigitalOceanGeofeed,
});

/** The IPv4 and IPv6 prefixes of a provider's geofeed, extracted by lord-alfred/ipranges (`<dir>/ipv4.txt`). */
const extractedFromGeofeed = (
  id: string, publisher: string, url: string, label: string, path: (v: 4 | 6) => string, dir: string, value: DatacenterValue,
) =>
  ([4, 6] as const).map((v) =>
    defineFeed({
      ...PUBLISHED,
      id: `${id}-ipv${v}`,
      publisher,
      url,
      licence: `${label} public geofeed; ${LORD_ALFRED}`,
      note: `RE-PROCESSED: IPv${v} prefixes of the ${label} geofeed, ${LORD_ALFRED}`,
      format: LIST,
      refresh: '7d',
      path: path(v),
      download: { url: `https://raw.githubusercontent.com/lord-alfred/ipranges/HEAD/${dir}/ipv${v}.txt` },
      parse: constantCidrList(value, { family: v }),
    }),
  );

export const DIGITALOCEAN_LISTS = extractedFromGeofeed(
  'digitalocean', 'DigitalOcean', 'https://digitalocean.com/geo/google.csv', 'DigitalOcean', (v) => `datacenter/digitalocean-ipv${v}.txt`, 'digitalocean', DIGITALOCEAN,
);

export const CLOUDFLARE_LISTS = ([4, 6] as const).map((v) =>
  defineFeed({
    ...PUBLISHED,
    id: `cloudflare-ipv${v}`,
    publisher: 'Cloudflare',
    url: `https://www.cloudflare.com/ips-v${v}/`,
    licence: 'Cloudflare public list (no licence text)',
    format: LIST,
    refresh: '30d',
    path: `datacenter/cloudflare-ips-v${v}.txt`,
    download: { url: `https://www.cloudflare.com/ips-v${v}/` },
    parse: constantCidrList(CLOUDFLARE, { family: v }),
  }),
);

export const VULTR_LISTS = extractedFromGeofeed(
  'vultr', 'Vultr (Constant)', 'https://geofeed.constant.com/?text', 'Vultr', (v) => `datacenter/vultr-geofeed-ipv${v}.txt`, 'vultr', VULTR,
);
