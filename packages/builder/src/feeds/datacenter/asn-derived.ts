/**
 * jonhadfield/cloud-ips ASN-derived lists (`<name>.json`,
 * `{IPv4Prefixes:[...], IPv6Prefixes:[...]}`): the prefixes announced by a
 * provider's ASNs. Inferred (not published by the provider); the provider
 * is the file name, prettified (`ASN_DERIVED_PROVIDERS`).
 *
 * @module
 */
import { defineFeed } from '../declare.js';
import { jsonObjectWithArrays } from '../read/json.js';
import type { PrefixesFound } from '../types.js';
import { datacenterValue, jsonCidrs, stringsOf, type DatacenterValue } from './values.js';

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

/**
 * A parser for cloud-ips `<name>.json`, provider from the file name.
 *
 * @example
 * parseAsnDerived('hetzner')('{"IPv4Prefixes":["88.198.0.0/16"],"IPv6Prefixes":[]}', 'x').prefixes[0].value
 * // => { provider: 'Hetzner' }
 */
export function parseAsnDerived(name: string): (data: Uint8Array | string, feed: string) => PrefixesFound<DatacenterValue> {
  const value = datacenterValue(asnDerivedProvider(name));
  return (data, feed) => {
    const doc = jsonObjectWithArrays(feed, data, ['IPv4Prefixes', 'IPv6Prefixes']);
    return jsonCidrs(feed, [...stringsOf(doc, 'IPv4Prefixes'), ...stringsOf(doc, 'IPv6Prefixes')], value);
  };
}

/** One declaration per cloud-ips file in the feeds folder. */
export const ASN_DERIVED = Object.keys(ASN_DERIVED_PROVIDERS).map((name) => {
  const url = `https://raw.githubusercontent.com/jonhadfield/cloud-ips/HEAD/${name}.json`;
  return defineFeed({
    id: `asn-derived-${name}`,
    publisher: "jonhadfield/cloud-ips (announced prefixes of the provider's ASNs)",
    url,
    licence: 'Apache-2.0',
    attribution_required: false,
    evidence: 'inferred',
    note: `RE-PROCESSED / INFERRED: not published by ${asnDerivedProvider(name)}; built from its ASNs' announced prefixes`,
    format: 'JSON {IPv4Prefixes: [CIDR], IPv6Prefixes: [CIDR]}',
    refresh: '1d',
    role: 'datacenter',
    use: 'build',
    origin: 'feeds',
    path: `datacenter/asn-derived/${name}.json`,
    download: { url },
    parse: parseAsnDerived(name),
  });
});
