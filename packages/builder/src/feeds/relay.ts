/**
 * Privacy relays: Apple iCloud Private Relay egress ranges.
 *
 * Apple publishes one CSV (https://mask-api.icloud.com/egress-ip-ranges.csv,
 * `prefix,country,region,city`), too large to store in original form; the
 * copies read here are RE-PROCESSED from it:
 * - `icloud-private-relay-ipv4.txt`: column 1, IPv4 rows, one CIDR per line
 *   (lord-alfred/ipranges);
 * - `icloud-private-relay-ipv6-merged.txt`: column 1, IPv6 rows, adjacent
 *   prefixes CIDR-merged (lord-alfred/ipranges);
 * - `icloud-egress-ip-ranges.mmdb`: NextDNS's MaxMind DB of the same CSV
 *   (v4 + v6, `{country: {iso_code}}` per network, adjacent equal networks
 *   merged by the writer). Its networks are enumerated by walking the search
 *   tree (`mmdb-walk.ts`); the data date is the metadata `build_epoch`.
 * The three cover exactly the same addresses (checked on the 2026-08 copies).
 *
 * Value: `{ provider: 'iCloud Private Relay', country }`, country = Apple's
 * stated egress country (MMDB only; null from the text lists). Value objects
 * are shared per country.
 *
 * Precedence: a relay range is not a VPN. X4BNet's VPN list concatenates the
 * iCloud relay ranges in; the combiner drops broad VPN hits (`broad: true`)
 * wherever a relay range matches, and the relay class decides the address's
 * provider (`relay_provider`). Relay is authoritative (published by Apple).
 * The three copies' `url` is Apple's CSV; `download.url` the re-processor's
 * copy (the publisher's CSV is a different format).
 *
 * @module
 */
import { FeedError } from '../errors.js';
import { defineFeed } from './declare.js';
import { isoFromEpochSeconds } from './read/dates.js';
import { constantCidrList } from './read/lines.js';
import { listMmdbNetworks } from './read/mmdb-walk.js';
import type { Prefix, PrefixesFound } from './types.js';

export const ICLOUD_RELAY = 'iCloud Private Relay';

export interface RelayValue {
  readonly provider: typeof ICLOUD_RELAY;
  /** ISO 3166-1 alpha-2 egress country as Apple states it; null when the copy dropped it. */
  readonly country: string | null;
}

const NO_COUNTRY: RelayValue = Object.freeze({ provider: ICLOUD_RELAY, country: null });

/**
 * `icloud-egress-ip-ranges.mmdb`: every network of the tree (IPv4 from
 * `::/96`, aliases skipped) with its country. A record without
 * `country.iso_code` gives `country: null` (still a relay network).
 *
 * @throws FeedError when the bytes are not an MMDB or the tree holds no network.
 */
export function parseIcloudEgressMmdb(data: Uint8Array, feed: string): PrefixesFound<RelayValue> {
  let walk;
  try {
    walk = listMmdbNetworks<unknown>(data);
  } catch (e) {
    throw new FeedError(feed, 'feed_format', `not a readable MMDB: ${(e as Error).message}`, { cause: e });
  }
  const byOffset = new Map<number, RelayValue>();
  const byCountry = new Map<string, RelayValue>();
  const valueOf = (offset: number): RelayValue => {
    let v = byOffset.get(offset);
    if (v === undefined) {
      const iso = isoCode(walk.records.get(offset));
      if (iso === null) v = NO_COUNTRY;
      else {
        v = byCountry.get(iso);
        if (v === undefined) {
          v = Object.freeze({ provider: ICLOUD_RELAY, country: iso });
          byCountry.set(iso, v);
        }
      }
      byOffset.set(offset, v);
    }
    return v;
  };
  const prefixes: Prefix<RelayValue>[] = walk.networks.map((n) => ({
    version: n.version,
    start: n.start,
    length: n.length,
    value: valueOf(n.offset),
  }));
  if (prefixes.length === 0) throw new FeedError(feed, 'feed_empty', 'the MMDB holds no network');
  const epoch = walk.metadata.buildEpoch.getTime();
  const date = Number.isFinite(epoch) ? isoFromEpochSeconds(Math.floor(epoch / 1000)) : null;
  return { prefixes, rejected: [], dataDate: date };
}

function isoCode(record: unknown): string | null {
  if (typeof record !== 'object' || record === null) return null;
  const country = (record as { country?: unknown }).country;
  if (typeof country !== 'object' || country === null) return null;
  const iso = (country as { iso_code?: unknown }).iso_code;
  return typeof iso === 'string' && /^[A-Z]{2}$/.test(iso) ? iso : null;
}

const APPLE = {
  publisher: 'Apple',
  url: 'https://mask-api.icloud.com/egress-ip-ranges.csv',
  attribution_required: false,
  evidence: 'authoritative',
  refresh: '7d',
  role: 'relay',
  use: 'build',
  origin: 'feeds',
} as const;
const EXTRACTED = 'Apple publishes the feed for network operators (no licence text); extracted copy CC0 (lord-alfred/ipranges)';

export const ICLOUD_RELAY_IPV4 = defineFeed({
  ...APPLE,
  id: 'icloud-relay-ipv4',
  licence: EXTRACTED,
  note: 'RE-PROCESSED: column 1 (IPv4 rows) of Apple egress-ip-ranges.csv, extracted by lord-alfred/ipranges; country/region/city dropped',
  format: 'one IPv4 CIDR per line',
  path: 'relay/icloud-private-relay-ipv4.txt',
  download: { url: 'https://raw.githubusercontent.com/lord-alfred/ipranges/HEAD/apple-proxy/ipv4.txt' },
  parse: constantCidrList(NO_COUNTRY, { family: 4 }),
});

export const ICLOUD_RELAY_IPV6 = defineFeed({
  ...APPLE,
  id: 'icloud-relay-ipv6',
  licence: EXTRACTED,
  note: 'RE-PROCESSED: column 1 (IPv6 rows) of Apple egress-ip-ranges.csv, adjacent prefixes CIDR-merged by lord-alfred/ipranges; country/region/city dropped',
  format: 'one IPv6 CIDR per line, adjacent prefixes merged',
  path: 'relay/icloud-private-relay-ipv6-merged.txt',
  download: { url: 'https://raw.githubusercontent.com/lord-alfred/ipranges/HEAD/apple-proxy/ipv6_merged.txt' },
  parse: constantCidrList(NO_COUNTRY, { family: 6 }),
});

export const ICLOUD_RELAY_MMDB = defineFeed({
  ...APPLE,
  id: 'icloud-relay-mmdb',
  licence: 'Apple publishes the feed for network operators (no licence text); MMDB build MIT (nextdns/icloud-private-relay-mmdb)',
  note: 'RE-PROCESSED: Apple egress-ip-ranges.csv compiled to MMDB by nextdns/icloud-private-relay-mmdb (country only; region/city dropped)',
  format: 'MaxMind DB, {country: {iso_code}} per network',
  path: 'relay/icloud-egress-ip-ranges.mmdb',
  download: { url: 'https://raw.githubusercontent.com/nextdns/icloud-private-relay-mmdb/HEAD/egress-ip-ranges.mmdb' },
  parse: parseIcloudEgressMmdb,
});
