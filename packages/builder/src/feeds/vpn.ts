/**
 * Commercial VPN addresses. Value `{ brand, broad }`: `brand` is the VPN
 * brand when the source names one (null otherwise); `broad` marks ASN-wide
 * or aggregate lists (X4BNet's VPN lists and ASN list, bgp.tools `vpn` tag)
 * as opposed to per-server lists (ProtonVPN, Mullvad, PIA, az0).
 *
 * Publisher formats:
 * - `protonvpn-logicals.json` (Proton API `/vpn/logicals`, original):
 *   `{Code, LogicalServers:[{Name, ..., Servers:[{EntryIP, ExitIP, ...}]}]}`;
 *   the ExitIP of every server is what a website sees. Diagnostics are
 *   numbered by server record (1-based, across all logical servers).
 *   `Code` other than 1000 (an API error body) is a FeedError.
 * - `mullvad-relays-x4bnet.txt` (X4BNet's extract of Mullvad's relay API):
 *   one `/32` per line.
 * - `pia-servers.txt` (az0's extract of PIA's server list): `IP   # Region`.
 * - `az0-vpn-ip.txt` (az0/vpn_ip aggregate): first line `# <ISO time>`, then
 *   `IP # brand[,brand...]`; tokens are brand names (`nordvpn`) or hostnames
 *   az0 resolved (`protonvpn.net`, `approval.fun`). Brand rule: tokens that
 *   name a known brand map to its display name (`protonvpn.net` ->
 *   `ProtonVPN`), several joined by `, `; a line with no known brand keeps
 *   its tokens as published. Junk rule: the file carries placeholder
 *   addresses that are no VPN server (`1.2.3.4 # windscribe`); the addresses
 *   in `AZ0_PLACEHOLDERS` are rejected with a Diagnostic. Bogons are NOT
 *   filtered here: the combiner removes bogon space for every source.
 * - `x4bnet-vpn-ipv4.txt` / `-ipv6.txt`: one CIDR per line, no brand.
 * - `x4bnet-vpn-ASN.txt`: `AS<n> # name (brand)` (URLs removed from names).
 * - bgp.tools `tags-vpn.csv` is NOT a VPN source: it tags ASNs that carry some
 *   VPN traffic (AS16509 Amazon, AS4837 China Unicom, AS4766 Korea Telecom,
 *   ...), so using it ASN-wide would call about 9% of public IPv4 a VPN
 *   (measured by tools/verify-build.mjs). It is parsed as context only
 *   (`bgptools.ts`).
 *
 * Precedence: VPN evidence is `inferred`. Broad lists lose to every more
 * specific source: X4BNet's VPN IPv4 list concatenates Apple's iCloud
 * Private Relay egress ranges (a relay is not a VPN), and ASN-wide prefixes
 * also hold crawler, DROP-listed and bogon space; the combiner drops a
 * `broad: true` hit wherever the relay list, bogons, DROP or a crawler
 * range matches. Per-server lists (`broad: false`) keep `is_vpn` true
 * except in bogon space.
 *
 * @module
 */
import { parseAddressValue } from './cidr.js';
import { parseAsnCommentList } from './asnlist.js';
import { isObject, jsonObjectWithArrays, jsonType } from './json.js';
import { parseCidrList, uniquePrefixes } from './lines.js';
import type { FeedSpec } from './spec.js';
import { FeedError } from './types.js';
import type { AsnFeed, Diagnostic, Prefix, PrefixFeed, SourceMeta } from './types.js';

export interface VpnValue {
  readonly brand: string | null;
  /** ASN-wide / aggregate list: overridden by relay, bogon, DROP and crawler sources. */
  readonly broad: boolean;
}

const frozen = (brand: string | null, broad: boolean): VpnValue => Object.freeze({ brand, broad });

const BROAD: VpnValue = frozen(null, true);

// ---------------------------------------------------------------------------
// Source metadata

const INFERRED = { evidence: 'inferred', data_date: null } as const;

export const PROTONVPN_META: SourceMeta = {
  ...INFERRED,
  id: 'protonvpn',
  publisher: 'Proton AG',
  url: 'https://api.protonvpn.ch/vpn/logicals',
  licence: 'Proton API output (no licence text); mirror tn3w/ProtonVPN-IPs Apache-2.0',
  attribution_required: false,
};

export const MULLVAD_META: SourceMeta = {
  ...INFERRED,
  id: 'mullvad',
  publisher: 'Mullvad VPN AB (relay IPs extracted by X4BNet)',
  url: 'https://api.mullvad.net/www/relays/all/',
  licence: 'MIT (X4BNet/lists_vpn extract)',
  attribution_required: false,
  note: "RE-PROCESSED: X4BNet's extract of Mullvad's relay API, one /32 per line (relay names and countries dropped)",
};

export const PIA_META: SourceMeta = {
  ...INFERRED,
  id: 'pia',
  publisher: 'Private Internet Access (server list compiled by az0/vpn_ip)',
  url: 'https://serverlist.piaservers.net/vpninfo/servers/v6',
  licence: 'GPL-3.0 (az0/vpn_ip extract)',
  attribution_required: true,
  note: "RE-PROCESSED: az0/vpn_ip's extract of PIA's server list, `IP # Region` per line",
};

export const AZ0_META: SourceMeta = {
  ...INFERRED,
  id: 'az0-vpn',
  publisher: 'az0/vpn_ip (compiled from each provider\'s API and hostnames)',
  url: 'http://az0-vpnip-public.oooninja.com/ip.txt',
  licence: 'GPL-3.0',
  attribution_required: true,
  note: 'RE-PROCESSED aggregate of many VPN brands; placeholder addresses (1.2.3.4) rejected',
};

const X4B_COMMON = {
  ...INFERRED,
  publisher: 'X4B (X4BNet/lists_vpn)',
  licence: 'MIT',
  attribution_required: false,
} as const;

export const X4B_VPN_V4_META: SourceMeta = {
  ...X4B_COMMON,
  id: 'x4bnet-vpn-ipv4',
  url: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/vpn/ipv4.txt',
  note: 'Broad: prefixes of VPN-provider ASNs plus server IPs, including Apple iCloud Private Relay ranges (the relay list overrides them)',
};

export const X4B_VPN_V6_META: SourceMeta = {
  ...X4B_COMMON,
  id: 'x4bnet-vpn-ipv6',
  url: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/vpn/ipv6.txt',
  note: 'Broad: prefixes of VPN-provider ASNs',
};

export const X4B_VPN_ASN_META: SourceMeta = {
  ...X4B_COMMON,
  id: 'x4bnet-vpn-asn',
  url: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/vpn/ASN.txt',
};

// ---------------------------------------------------------------------------
// ProtonVPN

export const PROTONVPN: VpnValue = frozen('ProtonVPN', false);

/**
 * Parses Proton's `/vpn/logicals` response: the ExitIP of every server,
 * deduplicated (`entries` = distinct exit addresses).
 *
 * @throws FeedError when the body is not `{LogicalServers: [...]}`, carries an
 *   error `Code`, or holds no server with an ExitIP.
 * @example
 * parseProtonVpnLogicals('{"Code":1000,"LogicalServers":[{"Name":"CH#1","Servers":[{"EntryIP":"149.88.27.200","ExitIP":"149.88.27.201"}]}]}').prefixes.length // => 1
 */
export function parseProtonVpnLogicals(data: Uint8Array | string): PrefixFeed<VpnValue> {
  const feed = PROTONVPN_META.id;
  const doc = jsonObjectWithArrays(feed, data, ['LogicalServers']);
  if (doc.Code !== undefined && doc.Code !== 1000) throw new FeedError(feed, `API error response (Code ${JSON.stringify(doc.Code)})`);
  const found: Prefix<VpnValue>[] = [];
  const rejected: Diagnostic[] = [];
  let record = 0;
  for (const logical of doc.LogicalServers as unknown[]) {
    const servers = isObject(logical) && Array.isArray(logical.Servers) ? (logical.Servers as unknown[]) : null;
    const name = isObject(logical) && typeof logical.Name === 'string' ? logical.Name : '?';
    if (servers === null) {
      record++;
      rejected.push({ feed, line: record, message: `logical server ${JSON.stringify(name)} has no Servers array` });
      continue;
    }
    for (const server of servers) {
      record++;
      const exit = isObject(server) ? server.ExitIP : undefined;
      if (typeof exit !== 'string') {
        rejected.push({ feed, line: record, message: `${name}: ExitIP is ${jsonType(exit)}, not a string` });
        continue;
      }
      const a = parseAddressValue(exit);
      if (a === null) {
        rejected.push({ feed, line: record, message: `${name}: ExitIP is not an IP address: ${JSON.stringify(exit.slice(0, 60))}` });
        continue;
      }
      found.push({ version: a.version, start: a.value, length: a.version === 4 ? 32 : 128, value: PROTONVPN });
    }
  }
  if (found.length === 0) throw new FeedError(feed, 'no server with an ExitIP');
  const prefixes = uniquePrefixes(found);
  return { source: { ...PROTONVPN_META, entries: prefixes.length }, prefixes, rejected };
}

// ---------------------------------------------------------------------------
// Per-server text lists

export const MULLVAD: VpnValue = frozen('Mullvad', false);
export const PIA: VpnValue = frozen('Private Internet Access', false);

/**
 * `mullvad-relays-x4bnet.txt`: one relay address (`/32`) per line.
 *
 * @throws FeedError when no line is an address.
 */
export function parseMullvadRelays(data: Uint8Array | string): PrefixFeed<VpnValue> {
  const { prefixes, rejected } = parseCidrList(MULLVAD_META.id, data, () => MULLVAD);
  return { source: { ...MULLVAD_META, entries: prefixes.length }, prefixes, rejected };
}

/**
 * `pia-servers.txt`: `IP   # Region` per line (the region is not kept).
 *
 * @throws FeedError when no line is an address.
 */
export function parsePiaServers(data: Uint8Array | string): PrefixFeed<VpnValue> {
  const { prefixes, rejected } = parseCidrList(PIA_META.id, data, () => PIA, { addressesOnly: true });
  return { source: { ...PIA_META, entries: prefixes.length }, prefixes, rejected };
}

// ---------------------------------------------------------------------------
// az0 aggregate

/** Addresses the az0 list carries that are placeholders, not VPN servers. */
export const AZ0_PLACEHOLDERS: ReadonlySet<string> = new Set(['1.2.3.4']);

/** az0 brand token (lower case) -> display brand. Tokens not listed are kept as published. */
export const AZ0_BRANDS: Readonly<Record<string, string>> = Object.freeze({
  pia: 'Private Internet Access',
  nordvpn: 'NordVPN',
  cyberghost: 'CyberGhost',
  windscribe: 'Windscribe',
  protonvpn: 'ProtonVPN',
  'protonvpn.net': 'ProtonVPN',
  'protonvpn.com': 'ProtonVPN',
  'proton.me': 'ProtonVPN',
  hola: 'Hola',
  expressvpn: 'ExpressVPN',
  hoxx: 'Hoxx',
  setupvpn: 'SetupVPN',
  'setupvpn.com': 'SetupVPN',
  hideme: 'hide.me',
  browsec: 'Browsec',
  touchvpn: 'TouchVPN',
  surfshark: 'Surfshark',
  mullvad: 'Mullvad',
});

/**
 * The brand of an az0 comment (`nordvpn`, `proton.me,windscribe`,
 * `approval.fun,...,setupvpn.com`), by the rule in the module header.
 *
 * @example
 * az0Brand('proton.me,windscribe') // => 'ProtonVPN, Windscribe'
 * az0Brand('360tls.com')           // => '360tls.com'
 */
export function az0Brand(comment: string | null): string | null {
  if (comment === null) return null;
  const tokens = comment
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (tokens.length === 0) return null;
  const known = [...new Set(tokens.map((t) => AZ0_BRANDS[t.toLowerCase()]).filter((b): b is string => b !== undefined))];
  return known.length > 0 ? known.join(', ') : tokens.join(',');
}

/**
 * `az0-vpn-ip.txt`: `IP # brand` per line, placeholder addresses rejected;
 * data date from the `# <ISO time>` header line.
 *
 * @throws FeedError when no line is an address.
 */
export function parseAz0VpnIps(data: Uint8Array | string): PrefixFeed<VpnValue> {
  const values = new Map<string | null, VpnValue>();
  const { prefixes, rejected, comments } = parseCidrList<VpnValue>(
    AZ0_META.id,
    data,
    (l) => {
      if (AZ0_PLACEHOLDERS.has(l.text)) return { reject: `placeholder address ${l.text}, not a VPN server` };
      const brand = az0Brand(l.comment);
      let v = values.get(brand);
      if (v === undefined) values.set(brand, (v = frozen(brand, false)));
      return v;
    },
    { addressesOnly: true },
  );
  const stamp = comments.find((c) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/.test(c.text));
  return { source: { ...AZ0_META, data_date: stamp?.text ?? null, entries: prefixes.length }, prefixes, rejected };
}

// ---------------------------------------------------------------------------
// Broad lists (X4BNet, bgp.tools)

/**
 * `x4bnet-vpn-ipv4.txt`: one CIDR per line, brand null, broad.
 *
 * @throws FeedError when no line is a CIDR.
 */
export function parseX4bVpnIpv4(data: Uint8Array | string): PrefixFeed<VpnValue> {
  const { prefixes, rejected } = parseCidrList(X4B_VPN_V4_META.id, data, () => BROAD, { family: 4 });
  return { source: { ...X4B_VPN_V4_META, entries: prefixes.length }, prefixes, rejected };
}

/**
 * `x4bnet-vpn-ipv6.txt`: one CIDR per line, brand null, broad.
 *
 * @throws FeedError when no line is a CIDR.
 */
export function parseX4bVpnIpv6(data: Uint8Array | string): PrefixFeed<VpnValue> {
  const { prefixes, rejected } = parseCidrList(X4B_VPN_V6_META.id, data, () => BROAD, { family: 6 });
  return { source: { ...X4B_VPN_V6_META, entries: prefixes.length }, prefixes, rejected };
}

/**
 * `x4bnet-vpn-ASN.txt`: `AS<n> # name` -> `{ brand: name (URLs removed), broad: true }`.
 *
 * @throws FeedError when no line is an ASN entry.
 */
export function parseX4bVpnAsns(data: Uint8Array | string): AsnFeed<VpnValue> {
  const { asns, rejected } = parseAsnCommentList(X4B_VPN_ASN_META.id, data, (name) => frozen(name, true));
  return { source: { ...X4B_VPN_ASN_META, entries: asns.size }, asns, rejected };
}

// ---------------------------------------------------------------------------
// Registry

/**
 * VPN feeds, in a feeds folder laid out like `/work/shared/feeds`. `url` is
 * where a file in exactly this format is served: the publisher's URL for
 * original copies, the re-processor's for re-processed ones (Mullvad, PIA),
 * whose `source.url` names the publisher.
 */
export const VPN_FEEDS: readonly FeedSpec[] = [
  { id: 'protonvpn', path: 'vpn/protonvpn-logicals.json', url: PROTONVPN_META.url, kind: 'prefix', parse: parseProtonVpnLogicals },
  {
    id: 'mullvad',
    path: 'vpn/mullvad-relays-x4bnet.txt',
    url: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/vpn/ips/mullvadvpn.txt',
    kind: 'prefix',
    parse: parseMullvadRelays,
  },
  {
    id: 'pia',
    path: 'vpn/pia-servers.txt',
    url: 'https://raw.githubusercontent.com/az0/vpn_ip/HEAD/data/input/ip/pia.txt',
    kind: 'prefix',
    parse: parsePiaServers,
  },
  { id: 'az0-vpn', path: 'vpn/az0-vpn-ip.txt', url: AZ0_META.url, kind: 'prefix', parse: parseAz0VpnIps },
  { id: 'x4bnet-vpn-ipv4', path: 'vpn/x4bnet-vpn-ipv4.txt', url: X4B_VPN_V4_META.url, kind: 'prefix', parse: parseX4bVpnIpv4 },
  { id: 'x4bnet-vpn-ipv6', path: 'vpn/x4bnet-vpn-ipv6.txt', url: X4B_VPN_V6_META.url, kind: 'prefix', parse: parseX4bVpnIpv6 },
  { id: 'x4bnet-vpn-asn', path: 'vpn/x4bnet-vpn-ASN.txt', url: X4B_VPN_ASN_META.url, kind: 'asn', parse: parseX4bVpnAsns },
];
