/**
 * Datacenter ranges and their provider. Value `{ provider, evidence }`:
 * `authoritative` for ranges the provider publishes itself, `inferred` for
 * lists built from a provider's ASNs (jonhadfield/cloud-ips `asn-derived`,
 * X4BNet's hosting list, whose lines name no provider: `provider: null`).
 *
 * Publisher formats (all in SOURCES.md):
 * - AWS `ip-ranges.json`: `{syncToken, createDate, prefixes:[{ip_prefix,
 *   region, service, network_border_group}], ipv6_prefixes:[{ipv6_prefix,...}]}`.
 *   A prefix appears once per service (AMAZON covers all others); every
 *   record is read and exact repeats are kept once. `createDate`
 *   (`YYYY-MM-DD-hh-mm-ss`, UTC) is the data date.
 * - Google `cloud.json` / `goog.json`: `{syncToken, creationTime,
 *   prefixes:[{ipv4Prefix | ipv6Prefix, service?, scope?}]}`. `syncToken` is
 *   Unix MILLISECONDS (UTC) and is the data date; `creationTime` has no zone
 *   and is US Pacific time (2026-08-21T01:05:42 = syncToken 08:05:42Z).
 * - Azure `ServiceTags_Public.json`: `{changeNumber, cloud, values:[{name,
 *   id, properties:{addressPrefixes}}]}`; tag `AzureCloud` (all of Azure) is
 *   read, else the union of the regional `AzureCloud.<region>` tags. No date
 *   in the file (`changeNumber` goes into the note).
 * - Oracle `public_ip_ranges.json`: `{last_updated_timestamp, regions:[{region,
 *   cidrs:[{cidr, tags}]}]}`.
 * - Fastly `public-ip-list`: `{addresses:[...], ipv6_addresses:[...]}`.
 * - Linode geofeed JSON (converted by jonhadfield): `{etag, lastModified,
 *   records:[{prefix, alpha2code, region, city, postalCode}]}`.
 * - RFC 8805 geofeed CSVs (DigitalOcean, Linode; `geofeed.ts`) and plain
 *   CIDR lists (Cloudflare, DigitalOcean, Vultr, X4BNet; `lines.ts`).
 * - cloud-ips ASN-derived `{IPv4Prefixes:[...], IPv6Prefixes:[...]}`:
 *   provider = file name, prettified (`ASN_DERIVED_PROVIDERS`).
 * - X4BNet `ASN.txt`: `AS<n> # name` -> AsnFeed of names (URLs removed).
 *
 * In JSON feeds, Diagnostics are numbered by record, 1-based, counting
 * through the file's prefix arrays in order (AWS: `prefixes` then
 * `ipv6_prefixes`), and name the array and index. Where a feed repeats a
 * prefix (AWS per service, cloud-ips), `entries` counts distinct prefixes.
 *
 * Precedence: one address can be in several datacenter feeds. The combiner
 * takes the most specific (longest) prefix, and on equal prefixes the feed
 * that comes first in `DATACENTER_FEEDS`: provider-published before
 * inferred, and Google Cloud before Google (goog.json holds all of
 * cloud.json, 7 prefixes identically; goog minus cloud = Google's own
 * services). An inferred hit never replaces an authoritative provider.
 * Datacenter is a connection type, not a class that hides others: a relay
 * range inside Cloudflare or Akamai space is still `is_relay` with
 * `relay_provider`, and the relay provider is the third-party `service`.
 *
 * @module
 */
import { parseAsnCommentList } from './asnlist.js';
import { parseCidr } from './cidr.js';
import { isoFromEpochSeconds, isoFromZonelessUtc } from './dates.js';
import { parseGeofeedPrefixes } from './geofeed.js';
import { isObject, jsonObjectWithArrays, jsonType } from './json.js';
import type { JsonObject } from './json.js';
import { parseCidrList, uniquePrefixes } from './lines.js';
import type { FeedSpec } from './spec.js';
import { FeedError } from './types.js';
import type { AsnFeed, Diagnostic, Prefix, PrefixFeed, SourceMeta } from './types.js';

export interface DatacenterValue {
  /** Display name of the provider; null when the source does not name one. */
  readonly provider: string | null;
  readonly evidence: 'authoritative' | 'inferred';
}

const values = new Map<string, DatacenterValue>();
/** The shared, frozen value for a provider and evidence class. */
export function datacenterValue(provider: string | null, evidence: DatacenterValue['evidence']): DatacenterValue {
  const key = provider === null ? `${evidence}|null` : `${evidence}|=${provider}`;
  let v = values.get(key);
  if (v === undefined) values.set(key, (v = Object.freeze({ provider, evidence })));
  return v;
}

// ---------------------------------------------------------------------------
// Helpers

/** One CIDR string of a JSON feed, with where it was found. */
interface JsonCidr {
  readonly value: unknown;
  /** e.g. `prefixes[12].ip_prefix`. */
  readonly where: string;
}

/**
 * Reads CIDR strings found in JSON records; a non-string or non-CIDR is a
 * Diagnostic numbered by its position in `items` (1-based). Repeats are
 * kept once.
 */
function jsonCidrs<V>(feed: string, items: readonly JsonCidr[], value: V): { prefixes: Prefix<V>[]; rejected: Diagnostic[] } {
  const found: Prefix<V>[] = [];
  const rejected: Diagnostic[] = [];
  items.forEach((item, i) => {
    const line = i + 1;
    if (typeof item.value !== 'string') {
      rejected.push({ feed, line, message: `${item.where} is ${jsonType(item.value)}, not a CIDR string` });
      return;
    }
    const c = parseCidr(item.value.trim());
    if (!c.ok) rejected.push({ feed, line, message: `${item.where}: ${c.message}` });
    else found.push({ version: c.version, start: c.start, length: c.length, value });
  });
  if (items.length === 0) throw new FeedError(feed, 'no prefix records');
  if (found.length === 0) throw new FeedError(feed, `no record holds a CIDR (record 1: ${rejected[0]!.message})`);
  return { prefixes: uniquePrefixes(found), rejected };
}

/** Each element of an array member, as `JsonCidr` picked by `pick`. */
function fromArray(doc: JsonObject, key: string, pick: (rec: unknown, where: string) => JsonCidr): JsonCidr[] {
  return (doc[key] as unknown[]).map((rec, i) => pick(rec, `${key}[${i}]`));
}

/** Field `field` of a record, or the record itself when it is not an object (reported as such). */
function field(rec: unknown, where: string, ...fields: string[]): JsonCidr {
  if (!isObject(rec)) return { value: rec, where };
  for (const f of fields) if (rec[f] !== undefined) return { value: rec[f], where: `${where}.${f}` };
  return { value: undefined, where: `${where}.${fields.join('|')}` };
}

/** Unix milliseconds (Google `syncToken`) to ISO UTC without the fraction; null unless an integer. */
export function isoFromEpochMillis(ms: unknown): string | null {
  const n = typeof ms === 'string' && /^\d{1,15}$/.test(ms) ? Number(ms) : ms;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) return null;
  return isoFromEpochSeconds(Math.floor(n / 1000));
}

function feedResult<V>(meta: SourceMeta, r: { prefixes: Prefix<V>[]; rejected: Diagnostic[] }, extra: Partial<Pick<SourceMeta, 'data_date' | 'note'>> = {}): PrefixFeed<V> {
  return { source: { ...meta, ...extra, entries: r.prefixes.length }, prefixes: r.prefixes, rejected: r.rejected };
}

const PUBLISHED = { evidence: 'authoritative', attribution_required: false, data_date: null } as const;

// ---------------------------------------------------------------------------
// AWS

export const AWS = datacenterValue('AWS', 'authoritative');
export const AWS_META: SourceMeta = {
  ...PUBLISHED,
  id: 'aws',
  publisher: 'Amazon Web Services',
  url: 'https://ip-ranges.amazonaws.com/ip-ranges.json',
  licence: 'published by AWS for public use (no licence text)',
};

/**
 * AWS `ip-ranges.json`: all services' prefixes, repeats kept once.
 *
 * @throws FeedError when `prefixes` / `ipv6_prefixes` are not arrays or hold no CIDR.
 */
export function parseAwsIpRanges(data: Uint8Array | string): PrefixFeed<DatacenterValue> {
  const doc = jsonObjectWithArrays(AWS_META.id, data, ['prefixes', 'ipv6_prefixes']);
  const items = [
    ...fromArray(doc, 'prefixes', (r, w) => field(r, w, 'ip_prefix')),
    ...fromArray(doc, 'ipv6_prefixes', (r, w) => field(r, w, 'ipv6_prefix')),
  ];
  const m = typeof doc.createDate === 'string' ? /^(\d{4}-\d{2}-\d{2})-(\d{2})-(\d{2})-(\d{2})$/.exec(doc.createDate) : null;
  const date = (m ? isoFromZonelessUtc(`${m[1]}T${m[2]}:${m[3]}:${m[4]}`) : null) ?? isoFromEpochSeconds(doc.syncToken);
  return feedResult(AWS_META, jsonCidrs(AWS_META.id, items, AWS), { data_date: date });
}

// ---------------------------------------------------------------------------
// Google

export const GOOGLE_CLOUD = datacenterValue('Google Cloud', 'authoritative');
export const GOOGLE = datacenterValue('Google', 'authoritative');

export const GOOGLE_CLOUD_META: SourceMeta = {
  ...PUBLISHED,
  id: 'google-cloud',
  publisher: 'Google',
  url: 'https://www.gstatic.com/ipranges/cloud.json',
  licence: 'published by Google (no licence text)',
};
export const GOOGLE_GOOG_META: SourceMeta = {
  ...PUBLISHED,
  id: 'google',
  publisher: 'Google',
  url: 'https://www.gstatic.com/ipranges/goog.json',
  licence: 'published by Google (no licence text)',
  note: 'goog.json holds all Google ranges incl. cloud.json; Google Cloud takes precedence, goog minus cloud = Google services',
};

function parseGoogle(meta: SourceMeta, value: DatacenterValue, data: Uint8Array | string): PrefixFeed<DatacenterValue> {
  const doc = jsonObjectWithArrays(meta.id, data, ['prefixes']);
  const items = fromArray(doc, 'prefixes', (r, w) => field(r, w, 'ipv4Prefix', 'ipv6Prefix'));
  return feedResult(meta, jsonCidrs(meta.id, items, value), { data_date: isoFromEpochMillis(doc.syncToken) });
}

/**
 * Google `cloud.json` (customer-usable Google Cloud ranges).
 *
 * @throws FeedError when `prefixes` is not an array or holds no CIDR.
 */
export function parseGoogleCloud(data: Uint8Array | string): PrefixFeed<DatacenterValue> {
  return parseGoogle(GOOGLE_CLOUD_META, GOOGLE_CLOUD, data);
}

/**
 * Google `goog.json` (all Google ranges), provider `Google`.
 *
 * @throws FeedError when `prefixes` is not an array or holds no CIDR.
 */
export function parseGoogleGoog(data: Uint8Array | string): PrefixFeed<DatacenterValue> {
  return parseGoogle(GOOGLE_GOOG_META, GOOGLE, data);
}

// ---------------------------------------------------------------------------
// Azure

export const AZURE = datacenterValue('Microsoft Azure', 'authoritative');
export const AZURE_META: SourceMeta = {
  ...PUBLISHED,
  id: 'azure',
  publisher: 'Microsoft',
  url: 'https://www.microsoft.com/en-us/download/details.aspx?id=56519',
  licence: 'Microsoft download terms',
};

/**
 * Azure service tags: the `AzureCloud` tag, else all `AzureCloud.<region>` tags.
 *
 * @throws FeedError when `values` is not an array or has no AzureCloud tag.
 */
export function parseAzureServiceTags(data: Uint8Array | string): PrefixFeed<DatacenterValue> {
  const feed = AZURE_META.id;
  const doc = jsonObjectWithArrays(feed, data, ['values']);
  const tags = (doc.values as unknown[]).flatMap((v, i) =>
    isObject(v) && typeof v.name === 'string' ? [{ name: v.name, i, v }] : [],
  );
  const whole = tags.filter((t) => t.name === 'AzureCloud');
  const chosen = whole.length > 0 ? whole : tags.filter((t) => t.name.startsWith('AzureCloud.'));
  if (chosen.length === 0) throw new FeedError(feed, 'no AzureCloud or AzureCloud.<region> service tag');
  const items: JsonCidr[] = [];
  for (const t of chosen) {
    const list = isObject(t.v.properties) ? t.v.properties.addressPrefixes : undefined;
    const where = `values[${t.i}](${t.name}).properties.addressPrefixes`;
    if (!Array.isArray(list)) items.push({ value: list, where });
    else list.forEach((p: unknown, j) => items.push({ value: p, where: `${where}[${j}]` }));
  }
  const tagNote = whole.length > 0 ? 'tag AzureCloud' : `${chosen.length} regional AzureCloud.* tags`;
  const change = typeof doc.changeNumber === 'number' ? `changeNumber ${doc.changeNumber}` : 'no changeNumber';
  const cloud = typeof doc.cloud === 'string' ? `, cloud ${doc.cloud}` : '';
  return feedResult(AZURE_META, jsonCidrs(feed, items, AZURE), { note: `${tagNote}; ${change}${cloud}; the file states no date` });
}

// ---------------------------------------------------------------------------
// Oracle

export const ORACLE = datacenterValue('Oracle Cloud', 'authoritative');
export const ORACLE_META: SourceMeta = {
  ...PUBLISHED,
  id: 'oracle-cloud',
  publisher: 'Oracle',
  url: 'https://docs.oracle.com/en-us/iaas/tools/public_ip_ranges.json',
  licence: 'published by Oracle (no licence text)',
};

/**
 * Oracle Cloud `public_ip_ranges.json`: every region's CIDRs.
 *
 * @throws FeedError when `regions` is not an array or holds no CIDR.
 */
export function parseOracleIpRanges(data: Uint8Array | string): PrefixFeed<DatacenterValue> {
  const doc = jsonObjectWithArrays(ORACLE_META.id, data, ['regions']);
  const items: JsonCidr[] = [];
  (doc.regions as unknown[]).forEach((r, i) => {
    const where = `regions[${i}].cidrs`;
    const cidrs = isObject(r) ? r.cidrs : undefined;
    if (!Array.isArray(cidrs)) items.push({ value: cidrs, where });
    else cidrs.forEach((c: unknown, j) => items.push(field(c, `${where}[${j}]`, 'cidr')));
  });
  return feedResult(ORACLE_META, jsonCidrs(ORACLE_META.id, items, ORACLE), {
    data_date: isoFromZonelessUtc(doc.last_updated_timestamp),
  });
}

// ---------------------------------------------------------------------------
// Fastly

export const FASTLY = datacenterValue('Fastly', 'authoritative');
export const FASTLY_META: SourceMeta = {
  ...PUBLISHED,
  id: 'fastly',
  publisher: 'Fastly',
  url: 'https://api.fastly.com/public-ip-list',
  licence: 'Fastly public API (no licence text)',
};

/**
 * Fastly `public-ip-list`: `addresses` and `ipv6_addresses`.
 *
 * @throws FeedError when either member is not an array or no CIDR is found.
 */
export function parseFastlyIpList(data: Uint8Array | string): PrefixFeed<DatacenterValue> {
  const doc = jsonObjectWithArrays(FASTLY_META.id, data, ['addresses', 'ipv6_addresses']);
  const items = [
    ...fromArray(doc, 'addresses', (r, where) => ({ value: r, where })),
    ...fromArray(doc, 'ipv6_addresses', (r, where) => ({ value: r, where })),
  ];
  return feedResult(FASTLY_META, jsonCidrs(FASTLY_META.id, items, FASTLY));
}

// ---------------------------------------------------------------------------
// Linode (Akamai)

export const LINODE = datacenterValue('Linode', 'authoritative');
export const LINODE_CSV_META: SourceMeta = {
  ...PUBLISHED,
  id: 'linode-geofeed',
  publisher: 'Akamai (Linode)',
  url: 'https://geoip.linode.com/',
  licence: 'Linode public geofeed (no licence text)',
};
export const LINODE_JSON_META: SourceMeta = {
  ...PUBLISHED,
  id: 'linode-geofeed-json',
  publisher: 'Akamai (Linode)',
  url: 'https://geoip.linode.com/',
  licence: 'Linode public geofeed; conversion Apache-2.0 (jonhadfield/cloud-ips)',
  note: 'RE-PROCESSED: the Linode geofeed converted to JSON by jonhadfield/cloud-ips',
};

/**
 * Linode's RFC 8805 geofeed CSV; data date from `# Last modified: ...`
 * (written without a zone; read as UTC, as the JSON copy's `lastModified`).
 *
 * @throws FeedError when no line starts with a prefix.
 */
export function parseLinodeGeofeed(data: Uint8Array | string): PrefixFeed<DatacenterValue> {
  const r = parseGeofeedPrefixes(LINODE_CSV_META.id, data, LINODE);
  let date: string | null = null;
  for (const c of r.comments) {
    const m = /^Last modified:\s*(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)$/i.exec(c.text);
    if (m) date = isoFromZonelessUtc(`${m[1]}T${m[2]}`);
  }
  return feedResult(LINODE_CSV_META, r, { data_date: date });
}

/**
 * The Linode geofeed as converted JSON (`records[].prefix`).
 *
 * @throws FeedError when `records` is not an array or holds no CIDR.
 */
export function parseLinodeGeofeedJson(data: Uint8Array | string): PrefixFeed<DatacenterValue> {
  const doc = jsonObjectWithArrays(LINODE_JSON_META.id, data, ['records']);
  const items = fromArray(doc, 'records', (r, w) => field(r, w, 'prefix'));
  const date = typeof doc.lastModified === 'string' ? isoFromZonelessUtc(doc.lastModified) : null;
  return feedResult(LINODE_JSON_META, jsonCidrs(LINODE_JSON_META.id, items, LINODE), { data_date: date });
}

// ---------------------------------------------------------------------------
// DigitalOcean, Cloudflare, Vultr: plain lists and a geofeed

export const DIGITALOCEAN = datacenterValue('DigitalOcean', 'authoritative');
export const CLOUDFLARE = datacenterValue('Cloudflare', 'authoritative');
export const VULTR = datacenterValue('Vultr', 'authoritative');

const LORD_ALFRED = 'column 1 extracted by lord-alfred/ipranges (CC0)';

export const DIGITALOCEAN_GEOFEED_META: SourceMeta = {
  ...PUBLISHED,
  id: 'digitalocean-geofeed',
  publisher: 'DigitalOcean',
  url: 'https://digitalocean.com/geo/google.csv',
  licence: 'DigitalOcean public geofeed (no licence text)',
};
export const DIGITALOCEAN_V4_META: SourceMeta = {
  ...PUBLISHED,
  id: 'digitalocean-ipv4',
  publisher: 'DigitalOcean',
  url: 'https://digitalocean.com/geo/google.csv',
  licence: `DigitalOcean public geofeed; ${LORD_ALFRED}`,
  note: `RE-PROCESSED: IPv4 prefixes of the DigitalOcean geofeed, ${LORD_ALFRED}`,
};
export const DIGITALOCEAN_V6_META: SourceMeta = {
  ...DIGITALOCEAN_V4_META,
  id: 'digitalocean-ipv6',
  note: `RE-PROCESSED: IPv6 prefixes of the DigitalOcean geofeed, ${LORD_ALFRED}`,
};
export const CLOUDFLARE_V4_META: SourceMeta = {
  ...PUBLISHED,
  id: 'cloudflare-ipv4',
  publisher: 'Cloudflare',
  url: 'https://www.cloudflare.com/ips-v4/',
  licence: 'Cloudflare public list (no licence text)',
};
export const CLOUDFLARE_V6_META: SourceMeta = { ...CLOUDFLARE_V4_META, id: 'cloudflare-ipv6', url: 'https://www.cloudflare.com/ips-v6/' };
export const VULTR_V4_META: SourceMeta = {
  ...PUBLISHED,
  id: 'vultr-ipv4',
  publisher: 'Vultr (Constant)',
  url: 'https://geofeed.constant.com/?text',
  licence: `Vultr public geofeed; ${LORD_ALFRED}`,
  note: `RE-PROCESSED: IPv4 prefixes of the Vultr geofeed, ${LORD_ALFRED}`,
};
export const VULTR_V6_META: SourceMeta = {
  ...VULTR_V4_META,
  id: 'vultr-ipv6',
  note: `RE-PROCESSED: IPv6 prefixes of the Vultr geofeed, ${LORD_ALFRED}`,
};

function plainList(meta: SourceMeta, value: DatacenterValue, family: 4 | 6 | undefined, data: Uint8Array | string): PrefixFeed<DatacenterValue> {
  return feedResult(meta, parseCidrList(meta.id, data, () => value, family === undefined ? {} : { family }));
}

/** DigitalOcean's RFC 8805 geofeed CSV. @throws FeedError when no line starts with a prefix. */
export function parseDigitalOceanGeofeed(data: Uint8Array | string): PrefixFeed<DatacenterValue> {
  return feedResult(DIGITALOCEAN_GEOFEED_META, parseGeofeedPrefixes(DIGITALOCEAN_GEOFEED_META.id, data, DIGITALOCEAN));
}
/** `digitalocean-ipv4.txt`. @throws FeedError when no line is a CIDR. */
export const parseDigitalOceanIpv4 = (data: Uint8Array | string): PrefixFeed<DatacenterValue> =>
  plainList(DIGITALOCEAN_V4_META, DIGITALOCEAN, 4, data);
/** `digitalocean-ipv6.txt`. @throws FeedError when no line is a CIDR. */
export const parseDigitalOceanIpv6 = (data: Uint8Array | string): PrefixFeed<DatacenterValue> =>
  plainList(DIGITALOCEAN_V6_META, DIGITALOCEAN, 6, data);
/** Cloudflare `ips-v4`. @throws FeedError when no line is a CIDR. */
export const parseCloudflareIpv4 = (data: Uint8Array | string): PrefixFeed<DatacenterValue> =>
  plainList(CLOUDFLARE_V4_META, CLOUDFLARE, 4, data);
/** Cloudflare `ips-v6`. @throws FeedError when no line is a CIDR. */
export const parseCloudflareIpv6 = (data: Uint8Array | string): PrefixFeed<DatacenterValue> =>
  plainList(CLOUDFLARE_V6_META, CLOUDFLARE, 6, data);
/** `vultr-geofeed-ipv4.txt`. @throws FeedError when no line is a CIDR. */
export const parseVultrIpv4 = (data: Uint8Array | string): PrefixFeed<DatacenterValue> => plainList(VULTR_V4_META, VULTR, 4, data);
/** `vultr-geofeed-ipv6.txt`. @throws FeedError when no line is a CIDR. */
export const parseVultrIpv6 = (data: Uint8Array | string): PrefixFeed<DatacenterValue> => plainList(VULTR_V6_META, VULTR, 6, data);

// ---------------------------------------------------------------------------
// Inferred: cloud-ips ASN-derived lists

/** cloud-ips file name (without `.json`) -> provider display name. */
export const ASN_DERIVED_PROVIDERS: Readonly<Record<string, string>> = Object.freeze({
  alibaba: 'Alibaba Cloud',
  contabo: 'Contabo',
  flyio: 'Fly.io',
  hetzner: 'Hetzner',
  ibmcloud: 'IBM Cloud',
  leaseweb: 'Leaseweb',
  m247: 'M247',
  ovh: 'OVH',
  scaleway: 'Scaleway',
  tencent: 'Tencent Cloud',
  vultr: 'Vultr',
});

/** Provider name of an ASN-derived file: the table above, else the name capitalised. */
export function asnDerivedProvider(name: string): string {
  return ASN_DERIVED_PROVIDERS[name] ?? name.charAt(0).toUpperCase() + name.slice(1);
}

export function asnDerivedMeta(name: string): SourceMeta {
  return {
    id: `asn-derived-${name}`,
    publisher: 'jonhadfield/cloud-ips (announced prefixes of the provider\'s ASNs)',
    url: `https://raw.githubusercontent.com/jonhadfield/cloud-ips/HEAD/${name}.json`,
    licence: 'Apache-2.0',
    attribution_required: false,
    data_date: null,
    evidence: 'inferred',
    note: `RE-PROCESSED / INFERRED: not published by ${asnDerivedProvider(name)}; built from its ASNs' announced prefixes`,
  };
}

/**
 * A parser for cloud-ips `<name>.json` (`{IPv4Prefixes, IPv6Prefixes}`),
 * provider from the file name.
 *
 * @example
 * parseAsnDerived('hetzner')('{"IPv4Prefixes":["88.198.0.0/16"],"IPv6Prefixes":[]}').prefixes[0].value
 * // => { provider: 'Hetzner', evidence: 'inferred' }
 */
export function parseAsnDerived(name: string): (data: Uint8Array | string) => PrefixFeed<DatacenterValue> {
  const meta = asnDerivedMeta(name);
  const value = datacenterValue(asnDerivedProvider(name), 'inferred');
  return (data) => {
    const doc = jsonObjectWithArrays(meta.id, data, ['IPv4Prefixes', 'IPv6Prefixes']);
    const items = [
      ...fromArray(doc, 'IPv4Prefixes', (r, where) => ({ value: r, where })),
      ...fromArray(doc, 'IPv6Prefixes', (r, where) => ({ value: r, where })),
    ];
    return feedResult(meta, jsonCidrs(meta.id, items, value));
  };
}

// ---------------------------------------------------------------------------
// Inferred: X4BNet hosting lists

export const X4B_DATACENTER = datacenterValue(null, 'inferred');
const X4B_DC_COMMON = {
  publisher: 'X4B (X4BNet/lists_vpn)',
  licence: 'MIT',
  attribution_required: false,
  data_date: null,
  evidence: 'inferred',
} as const;
export const X4B_DC_V4_META: SourceMeta = {
  ...X4B_DC_COMMON,
  id: 'x4bnet-datacenter-ipv4',
  url: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/datacenter/ipv4.txt',
  note: 'INFERRED: announced prefixes of ~900 hosting ASNs plus manual ranges; no provider per line',
};
export const X4B_DC_V6_META: SourceMeta = {
  ...X4B_DC_V4_META,
  id: 'x4bnet-datacenter-ipv6',
  url: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/datacenter/ipv6.txt',
};
export const X4B_DC_ASN_META: SourceMeta = {
  ...X4B_DC_COMMON,
  id: 'x4bnet-datacenter-asn',
  url: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/datacenter/ASN.txt',
  note: 'Hosting ASNs with X4B\'s free-text names (URLs removed; null when only a URL)',
};

/** X4BNet `output/datacenter/ipv4.txt`. @throws FeedError when no line is a CIDR. */
export const parseX4bDatacenterIpv4 = (data: Uint8Array | string): PrefixFeed<DatacenterValue> =>
  plainList(X4B_DC_V4_META, X4B_DATACENTER, 4, data);
/** X4BNet `output/datacenter/ipv6.txt`. @throws FeedError when no line is a CIDR. */
export const parseX4bDatacenterIpv6 = (data: Uint8Array | string): PrefixFeed<DatacenterValue> =>
  plainList(X4B_DC_V6_META, X4B_DATACENTER, 6, data);

/**
 * X4BNet `input/datacenter/ASN.txt`: ASN -> name (null when the comment is only a URL).
 * A repeated ASN keeps its first name; the repeat is a Diagnostic.
 *
 * @throws FeedError when no line is an ASN entry.
 */
export function parseX4bDatacenterAsns(data: Uint8Array | string): AsnFeed<string | null> {
  const { asns, rejected } = parseAsnCommentList(X4B_DC_ASN_META.id, data, (name) => name);
  return { source: { ...X4B_DC_ASN_META, entries: asns.size }, asns, rejected };
}

// ---------------------------------------------------------------------------
// Registry

/** The cloud-ips ASN-derived files in the shared feeds folder. */
export const ASN_DERIVED_FILES = Object.keys(ASN_DERIVED_PROVIDERS);

/**
 * Datacenter feeds, in a feeds folder laid out like `/work/shared/feeds`, in
 * PRECEDENCE order (earlier wins on an identical prefix; see the header).
 * `url` is where a file in exactly this format is served: the publisher's
 * URL for original copies, the re-processor's for re-processed ones
 * (`source.url` always names the publisher). Azure's is the download page:
 * the JSON's own URL changes weekly, so a fetcher must follow the page.
 */
export const DATACENTER_FEEDS: readonly FeedSpec[] = [
  { id: 'aws', path: 'datacenter/aws-ip-ranges.json', url: AWS_META.url, kind: 'prefix', parse: parseAwsIpRanges },
  { id: 'google-cloud', path: 'datacenter/google-cloud.json', url: GOOGLE_CLOUD_META.url, kind: 'prefix', parse: parseGoogleCloud },
  { id: 'google', path: 'datacenter/google-goog.json', url: GOOGLE_GOOG_META.url, kind: 'prefix', parse: parseGoogleGoog },
  { id: 'azure', path: 'datacenter/azure-ServiceTags_Public.json', url: AZURE_META.url, kind: 'prefix', parse: parseAzureServiceTags },
  { id: 'oracle-cloud', path: 'datacenter/oracle-public_ip_ranges.json', url: ORACLE_META.url, kind: 'prefix', parse: parseOracleIpRanges },
  { id: 'digitalocean-geofeed', path: 'datacenter/digitalocean-geofeed.csv', url: DIGITALOCEAN_GEOFEED_META.url, kind: 'prefix', parse: parseDigitalOceanGeofeed },
  {
    id: 'digitalocean-ipv4',
    path: 'datacenter/digitalocean-ipv4.txt',
    url: 'https://raw.githubusercontent.com/lord-alfred/ipranges/HEAD/digitalocean/ipv4.txt',
    kind: 'prefix',
    parse: parseDigitalOceanIpv4,
  },
  {
    id: 'digitalocean-ipv6',
    path: 'datacenter/digitalocean-ipv6.txt',
    url: 'https://raw.githubusercontent.com/lord-alfred/ipranges/HEAD/digitalocean/ipv6.txt',
    kind: 'prefix',
    parse: parseDigitalOceanIpv6,
  },
  { id: 'linode-geofeed', path: 'datacenter/linode-geofeed.csv', url: LINODE_CSV_META.url, kind: 'prefix', parse: parseLinodeGeofeed },
  {
    id: 'linode-geofeed-json',
    path: 'datacenter/linode-geofeed-converted.json',
    url: 'https://raw.githubusercontent.com/jonhadfield/cloud-ips/HEAD/linode.json',
    kind: 'prefix',
    parse: parseLinodeGeofeedJson,
  },
  { id: 'cloudflare-ipv4', path: 'datacenter/cloudflare-ips-v4.txt', url: CLOUDFLARE_V4_META.url, kind: 'prefix', parse: parseCloudflareIpv4 },
  { id: 'cloudflare-ipv6', path: 'datacenter/cloudflare-ips-v6.txt', url: CLOUDFLARE_V6_META.url, kind: 'prefix', parse: parseCloudflareIpv6 },
  { id: 'fastly', path: 'datacenter/fastly-public-ip-list.json', url: FASTLY_META.url, kind: 'prefix', parse: parseFastlyIpList },
  {
    id: 'vultr-ipv4',
    path: 'datacenter/vultr-geofeed-ipv4.txt',
    url: 'https://raw.githubusercontent.com/lord-alfred/ipranges/HEAD/vultr/ipv4.txt',
    kind: 'prefix',
    parse: parseVultrIpv4,
  },
  {
    id: 'vultr-ipv6',
    path: 'datacenter/vultr-geofeed-ipv6.txt',
    url: 'https://raw.githubusercontent.com/lord-alfred/ipranges/HEAD/vultr/ipv6.txt',
    kind: 'prefix',
    parse: parseVultrIpv6,
  },
  ...ASN_DERIVED_FILES.map(
    (name): FeedSpec => ({
      id: `asn-derived-${name}`,
      path: `datacenter/asn-derived/${name}.json`,
      url: asnDerivedMeta(name).url,
      kind: 'prefix',
      parse: parseAsnDerived(name),
    }),
  ),
  { id: 'x4bnet-datacenter-ipv4', path: 'datacenter/x4bnet-datacenter-ipv4.txt', url: X4B_DC_V4_META.url, kind: 'prefix', parse: parseX4bDatacenterIpv4 },
  { id: 'x4bnet-datacenter-ipv6', path: 'datacenter/x4bnet-datacenter-ipv6.txt', url: X4B_DC_V6_META.url, kind: 'prefix', parse: parseX4bDatacenterIpv6 },
  { id: 'x4bnet-datacenter-asn', path: 'datacenter/x4bnet-datacenter-ASN.txt', url: X4B_DC_ASN_META.url, kind: 'asn', parse: parseX4bDatacenterAsns },
];
