/**
 * Commercial VPN addresses. Value `{ brand }`: the VPN brand when the
 * source names one (null otherwise). The declarations mark ASN-wide or
 * aggregate lists `broad` (X4BNet's VPN lists and ASN list), as opposed to
 * per-server lists (ProtonVPN, Mullvad, PIA, az0).
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
 *   (measured by tools/verify-build.mjs). It is declared context only
 *   (`routing/bgptools.ts`).
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
import { FeedError } from '../errors.js';
import { defineFeed } from './declare.js';
import { parseAsnCommentList } from './read/asn-list.js';
import { parseAddressValue, parseCidr } from './read/cidr.js';
import { isoUtcTimestamp } from './read/dates.js';
import { isObject, jsonObjectWithArrays, jsonType } from './read/json.js';
import { constantCidrList, parseCidrList, uniquePrefixes } from './read/lines.js';
import type { AsnsFound, Diagnostic, Prefix, PrefixesFound } from './types.js';

export interface VpnValue {
  readonly brand: string | null;
}

const brands = new Map<string | null, VpnValue>();
/** The shared, frozen value of a brand. */
const vpnValue = (brand: string | null): VpnValue => {
  let v = brands.get(brand);
  if (v === undefined) brands.set(brand, (v = Object.freeze({ brand })));
  return v;
};

const NO_BRAND = vpnValue(null);

// ---------------------------------------------------------------------------
// ProtonVPN

export const PROTONVPN = vpnValue('ProtonVPN');

/**
 * Parses Proton's `/vpn/logicals` response: the ExitIP of every server,
 * deduplicated (`entries` = distinct exit addresses).
 *
 * @throws FeedError when the body is not `{LogicalServers: [...]}`, carries an
 *   error `Code`, or holds no server with an ExitIP.
 * @example
 * parseProtonVpnLogicals('{"Code":1000,"LogicalServers":[{"Name":"CH#1","Servers":[{"EntryIP":"149.88.27.200","ExitIP":"149.88.27.201"}]}]}', 'protonvpn').prefixes.length // => 1
 */
export function parseProtonVpnLogicals(data: Uint8Array | string, feed: string): PrefixesFound<VpnValue> {
  const doc = jsonObjectWithArrays(feed, data, ['LogicalServers']);
  if (doc.Code !== undefined && doc.Code !== 1000) throw new FeedError(feed, 'feed_format', `API error response (Code ${JSON.stringify(doc.Code)})`);
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
  if (found.length === 0) throw new FeedError(feed, 'feed_format', 'no server with an ExitIP');
  return { prefixes: uniquePrefixes(found), rejected, dataDate: null };
}

// ---------------------------------------------------------------------------
// Per-server text lists

export const MULLVAD = vpnValue('Mullvad');
export const PIA = vpnValue('Private Internet Access');

/**
 * `mullvad-relays-x4bnet.txt`: one relay address (`/32`) per line.
 *
 * @throws FeedError when no line is an address.
 */
export const parseMullvadRelays = constantCidrList(MULLVAD);

/**
 * `pia-servers.txt`: `IP   # Region` per line (the region is not kept).
 *
 * @throws FeedError when no line is an address.
 */
export const parsePiaServers = constantCidrList(PIA, { addressesOnly: true });

// ---------------------------------------------------------------------------
// az0 aggregate

/** Addresses the az0 list carries that are placeholders, not VPN servers. */
export const AZ0_PLACEHOLDERS: ReadonlySet<string> = new Set(['1.2.3.4']);
const AZ0_PLACEHOLDER_KEYS: ReadonlySet<string> = new Set([...AZ0_PLACEHOLDERS].map(addressKey));

/** Whether a line's address is a placeholder, however it is written (`::ffff:1.2.3.4` is 1.2.3.4 too). */
function isAz0Placeholder(text: string): boolean {
  return AZ0_PLACEHOLDER_KEYS.has(addressKey(text));
}

function addressKey(text: string): string {
  const c = parseCidr(text);
  return c.ok ? `${c.version}/${c.start}/${c.length}` : text;
}

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
 * data date from the `# <ISO time>` header line. A header of that shape
 * that names no real time (`# 2025-13-31T13:25:28Z`), or no such header at
 * all, is a diagnostic and sets `dateUnreadable`: the list's age decides
 * whether the build uses it (90 days), so an unreadable date must not pass
 * for an unknown one.
 *
 * @throws FeedError when no line is an address.
 */
export function parseAz0VpnIps(data: Uint8Array | string, feed: string): PrefixesFound<VpnValue> {
  const { prefixes, rejected, comments } = parseCidrList<VpnValue>(
    feed,
    data,
    (l) => (isAz0Placeholder(l.text) ? { reject: `placeholder address ${l.text}, not a VPN server` } : vpnValue(az0Brand(l.comment))),
    { addressesOnly: true },
  );
  const stamp = comments.find((c) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/.test(c.text));
  if (stamp === undefined) {
    // az0 writes the header on every list: one without it is a cut or altered copy, whose age is not to be guessed.
    rejected.push({ feed, line: 1, message: "no `# <ISO time>` header line: the list's age is unreadable" });
    return { prefixes, rejected, dataDate: null, dateUnreadable: '' };
  }
  const dataDate = isoUtcTimestamp(stamp.text);
  if (dataDate !== null) return { prefixes, rejected, dataDate };
  rejected.push({ feed, line: stamp.line, message: `header time ${stamp.text} is not a real date and time: the list's age is unreadable` });
  return { prefixes, rejected, dataDate: null, dateUnreadable: stamp.text };
}

// ---------------------------------------------------------------------------
// Broad lists (X4BNet)

/**
 * `x4bnet-vpn-ASN.txt`: `AS<n> # name` -> `{ brand: name (URLs removed) }`.
 *
 * @throws FeedError when no line is an ASN entry.
 */
export function parseX4bVpnAsns(data: Uint8Array | string, feed: string): AsnsFound<VpnValue> {
  const { asns, rejected } = parseAsnCommentList(feed, data, vpnValue);
  return { asns, rejected, dataDate: null };
}

// ---------------------------------------------------------------------------
// Declarations

const VPN = { evidence: 'inferred', role: 'vpn', use: 'build', origin: 'feeds' } as const;

export const PROTONVPN_LOGICALS = defineFeed({
  ...VPN,
  id: 'protonvpn',
  publisher: 'Proton AG',
  url: 'https://api.protonvpn.ch/vpn/logicals',
  licence: 'Proton API output (no licence text); mirror tn3w/ProtonVPN-IPs Apache-2.0',
  attribution_required: false,
  format: 'JSON {Code, LogicalServers[].Servers[].ExitIP} (Proton API /vpn/logicals)',
  refresh: '1d',
  path: 'vpn/protonvpn-logicals.json',
  download: { url: 'https://api.protonvpn.ch/vpn/logicals' },
  parse: parseProtonVpnLogicals,
});

export const MULLVAD_RELAYS = defineFeed({
  ...VPN,
  id: 'mullvad',
  publisher: 'Mullvad VPN AB (relay IPs extracted by X4BNet)',
  url: 'https://api.mullvad.net/www/relays/all/',
  licence: 'MIT (X4BNet/lists_vpn extract)',
  attribution_required: false,
  note: "RE-PROCESSED: X4BNet's extract of Mullvad's relay API, one /32 per line (relay names and countries dropped)",
  format: 'one /32 per line',
  refresh: '7d',
  path: 'vpn/mullvad-relays-x4bnet.txt',
  download: { url: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/vpn/ips/mullvadvpn.txt' },
  parse: parseMullvadRelays,
});

export const PIA_SERVERS = defineFeed({
  ...VPN,
  id: 'pia',
  publisher: 'Private Internet Access (server list compiled by az0/vpn_ip)',
  url: 'https://serverlist.piaservers.net/vpninfo/servers/v6',
  licence: 'GPL-3.0 (az0/vpn_ip extract)',
  attribution_required: true,
  note: "RE-PROCESSED: az0/vpn_ip's extract of PIA's server list, `IP # Region` per line",
  format: 'IP # Region per line',
  refresh: '7d',
  path: 'vpn/pia-servers.txt',
  download: { url: 'https://raw.githubusercontent.com/az0/vpn_ip/HEAD/data/input/ip/pia.txt' },
  parse: parsePiaServers,
});

export const AZ0_VPN = defineFeed({
  ...VPN,
  id: 'az0-vpn',
  publisher: "az0/vpn_ip (compiled from each provider's API and hostnames)",
  url: 'http://az0-vpnip-public.oooninja.com/ip.txt',
  licence: 'GPL-3.0',
  attribution_required: true,
  note: 'RE-PROCESSED aggregate of many VPN brands; placeholder addresses (1.2.3.4) rejected',
  format: '# <ISO time> header, then IP # brand[,brand...] per line',
  refresh: '7d',
  path: 'vpn/az0-vpn-ip.txt',
  download: { url: 'http://az0-vpnip-public.oooninja.com/ip.txt' },
  parse: parseAz0VpnIps,
});

const X4B = { publisher: 'X4B (X4BNet/lists_vpn)', licence: 'MIT', attribution_required: false, refresh: '7d' } as const;

export const X4BNET_VPN_LISTS = ([4, 6] as const).map((v) => {
  const url = `https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/vpn/ipv${v}.txt`;
  return defineFeed({
    ...VPN,
    ...X4B,
    id: `x4bnet-vpn-ipv${v}`,
    url,
    broad: true,
    note:
      v === 4
        ? 'Broad: prefixes of VPN-provider ASNs plus server IPs, including Apple iCloud Private Relay ranges (the relay list overrides them)'
        : 'Broad: prefixes of VPN-provider ASNs',
    format: 'one CIDR per line',
    path: `vpn/x4bnet-vpn-ipv${v}.txt`,
    download: { url },
    parse: constantCidrList(NO_BRAND, { family: v }), // brand null
  });
});

/** VPN-provider ASNs: broad by nature (every address of the ASN). */
export const X4BNET_VPN_ASNS = defineFeed({
  ...VPN,
  ...X4B,
  id: 'x4bnet-vpn-asn',
  url: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/vpn/ASN.txt',
  format: 'AS<n> # name (brand) per line',
  role: 'vpn-asn',
  // Not evidence of a VPN server (all of M247 would be a VPN): the aggregate X4B lists expand these ASNs
  // whole, so their entries inside them are ignored (docs/data.md rule 6).
  use: 'build',
  path: 'vpn/x4bnet-vpn-ASN.txt',
  download: { url: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/vpn/ASN.txt' },
  parse: parseX4bVpnAsns,
});
