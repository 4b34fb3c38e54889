/**
 * The IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and
 * updates), as a built-in table: the blocks that are NOT globally reachable,
 * plus the multicast ranges. Transcribed from
 * https://www.iana.org/assignments/iana-ipv4-special-registry/ and
 * https://www.iana.org/assignments/iana-ipv6-special-registry/ (IPv6 registry
 * as last updated 2025-10-09); multicast from the IPv4/IPv6 Multicast Address
 * Space registries. Each row cites its registry row: name [RFC].
 *
 * Rows may nest on purpose (a more specific registry row inside a broader
 * one, e.g. 192.0.0.8/32 inside 192.0.0.0/24): the most specific row gives
 * the address its `kind`. Rows whose registry "Globally Reachable" column is
 * True are carved out of the broader rows they sit in
 * (`IANA_GLOBALLY_REACHABLE`). The feed built from the table has no overlaps.
 *
 * Decisions where the registry says "N/A" rather than True/False:
 * - 2002::/16 (6to4, RFC 3056) and 2001::/32 (TEREDO, RFC 4380): NOT bogons.
 *   Both are transition mechanisms whose addresses embed public IPv4
 *   addresses and reach the Internet through relays; traffic from them is
 *   real. (Team Cymru's fullbogons does not list them either.) Teredo is
 *   carved out of 2001::/23.
 * - 192.88.99.0/24 (Deprecated 6to4 Relay Anycast, RFC 7526; terminated
 *   2015-03) and 2001:10::/28 (Deprecated, previously ORCHID, RFC 4843):
 *   bogons. Both are withdrawn and have no legitimate use as a source today.
 * - ::ffff:0:0/96 (IPv4-mapped Address, RFC 4291; False) is left out: core's
 *   parser unmaps `::ffff:a.b.c.d` to IPv4 at the boundary, so the IPv4 rows
 *   decide those addresses, and `parseCidr` would read the row as 0.0.0.0/0.
 *
 * Precedence: this table is the most specific bogon source; where Team
 * Cymru's fullbogons (which lists special-purpose and unallocated space alike)
 * or ipinfo's list also covers an address, this table's `kind` stands.
 *
 * @module
 */
import { defineFeed } from '../declare.js';
import { parseCidr, rangeToPrefixes } from '../read/cidr.js';
import type { Prefix, PrefixesFound } from '../types.js';

/** One registry row. `kind` is a stable kebab-case label, `name` the registry's name, `rfc` its reference. */
export interface IanaSpecialRow {
  readonly cidr: string;
  readonly kind: string;
  readonly name: string;
  readonly rfc: string;
}

/** Value of a bogon entry: which kind of special-purpose or unallocated space. */
export interface BogonValue {
  readonly kind: string;
}

const row = (cidr: string, kind: string, name: string, rfc: string): IanaSpecialRow => ({ cidr, kind, name, rfc });

/** Registry rows that are not globally reachable (and multicast). Nesting is on purpose. */
export const IANA_SPECIAL_PURPOSE_ROWS: readonly IanaSpecialRow[] = [
  // IPv4 Special-Purpose Address Registry
  row('0.0.0.0/8', 'this-network', '"This network"', 'RFC 791, Section 3.2'),
  row('0.0.0.0/32', 'this-host', '"This host on this network"', 'RFC 1122, Section 3.2.1.3'),
  row('10.0.0.0/8', 'private-use', 'Private-Use', 'RFC 1918'),
  row('100.64.0.0/10', 'shared-address-space', 'Shared Address Space', 'RFC 6598'),
  row('127.0.0.0/8', 'loopback', 'Loopback', 'RFC 1122, Section 3.2.1.3'),
  row('169.254.0.0/16', 'link-local', 'Link Local', 'RFC 3927'),
  row('172.16.0.0/12', 'private-use', 'Private-Use', 'RFC 1918'),
  row('192.0.0.0/24', 'ietf-protocol-assignments', 'IETF Protocol Assignments', 'RFC 6890, Section 2.1'),
  row('192.0.0.0/29', 'ipv4-service-continuity', 'IPv4 Service Continuity Prefix', 'RFC 7335'),
  row('192.0.0.8/32', 'ipv4-dummy-address', 'IPv4 dummy address', 'RFC 7600'),
  row('192.0.0.170/32', 'nat64-dns64-discovery', 'NAT64/DNS64 Discovery', 'RFC 8880, RFC 7050 Section 2.2'),
  row('192.0.0.171/32', 'nat64-dns64-discovery', 'NAT64/DNS64 Discovery', 'RFC 8880, RFC 7050 Section 2.2'),
  row('192.0.2.0/24', 'documentation', 'Documentation (TEST-NET-1)', 'RFC 5737'),
  row('192.88.99.0/24', 'deprecated-6to4-relay-anycast', 'Deprecated (6to4 Relay Anycast)', 'RFC 7526'),
  row('192.88.99.2/32', '6a44-relay-anycast', '6a44-relay anycast address', 'RFC 6751'),
  row('192.168.0.0/16', 'private-use', 'Private-Use', 'RFC 1918'),
  row('198.18.0.0/15', 'benchmarking', 'Benchmarking', 'RFC 2544'),
  row('198.51.100.0/24', 'documentation', 'Documentation (TEST-NET-2)', 'RFC 5737'),
  row('203.0.113.0/24', 'documentation', 'Documentation (TEST-NET-3)', 'RFC 5737'),
  row('240.0.0.0/4', 'reserved', 'Reserved', 'RFC 1112, Section 4'),
  row('255.255.255.255/32', 'limited-broadcast', 'Limited Broadcast', 'RFC 8190, RFC 919 Section 7'),
  // IPv4 Multicast Address Space Registry
  row('224.0.0.0/4', 'multicast', 'Multicast', 'RFC 5771'),
  // IPv6 Special-Purpose Address Registry
  row('::/128', 'unspecified', 'Unspecified Address', 'RFC 4291'),
  row('::1/128', 'loopback', 'Loopback Address', 'RFC 4291'),
  row('64:ff9b:1::/48', 'local-use-ipv4-ipv6-translation', 'IPv4-IPv6 Translat.', 'RFC 8215'),
  row('100::/64', 'discard-only', 'Discard-Only Address Block', 'RFC 6666'),
  row('100:0:0:1::/64', 'dummy-ipv6-prefix', 'Dummy IPv6 Prefix', 'RFC 9780'),
  row('2001::/23', 'ietf-protocol-assignments', 'IETF Protocol Assignments', 'RFC 2928'),
  row('2001:2::/48', 'benchmarking', 'Benchmarking', 'RFC 5180, RFC Errata 1752'),
  row('2001:10::/28', 'deprecated-orchid', 'Deprecated (previously ORCHID)', 'RFC 4843'),
  row('2001:db8::/32', 'documentation', 'Documentation', 'RFC 3849'),
  row('3fff::/20', 'documentation', 'Documentation', 'RFC 9637'),
  row('5f00::/16', 'srv6-sids', 'Segment Routing (SRv6) SIDs', 'RFC 9602'),
  row('fc00::/7', 'unique-local', 'Unique-Local', 'RFC 4193, RFC 8190'),
  row('fe80::/10', 'link-local', 'Link-Local Unicast', 'RFC 4291'),
  // IPv6 Multicast Address Space Registry
  row('ff00::/8', 'multicast', 'Multicast', 'RFC 4291'),
];

/**
 * Rows carved out of the table: "Globally Reachable: True" rows that sit
 * inside a not-reachable row, plus TEREDO by decision (see the header).
 * Reachable rows outside any table row (192.31.196.0/24 AS112-v4,
 * 192.52.193.0/24 AMT, 192.175.48.0/24 AS112, 64:ff9b::/96, 2620:4f:8000::/48)
 * need no carving and are listed for completeness.
 */
export const IANA_GLOBALLY_REACHABLE: readonly IanaSpecialRow[] = [
  row('192.0.0.9/32', 'pcp-anycast', 'Port Control Protocol Anycast', 'RFC 7723'),
  row('192.0.0.10/32', 'turn-anycast', 'Traversal Using Relays around NAT Anycast', 'RFC 8155'),
  row('192.31.196.0/24', 'as112-v4', 'AS112-v4', 'RFC 7535'),
  row('192.52.193.0/24', 'amt', 'AMT', 'RFC 7450'),
  row('192.175.48.0/24', 'as112-direct-delegation', 'Direct Delegation AS112 Service', 'RFC 7534'),
  row('64:ff9b::/96', 'ipv4-ipv6-translation', 'IPv4-IPv6 Translat.', 'RFC 6052'),
  row('2001::/32', 'teredo', 'TEREDO (N/A in the registry; not a bogon by decision)', 'RFC 4380, RFC 8190'),
  row('2001:1::1/128', 'pcp-anycast', 'Port Control Protocol Anycast', 'RFC 7723'),
  row('2001:1::2/128', 'turn-anycast', 'Traversal Using Relays around NAT Anycast', 'RFC 8155'),
  row('2001:1::3/128', 'dns-sd-srp-anycast', 'DNS-SD Service Registration Protocol Anycast Address', 'RFC 9665'),
  row('2001:3::/32', 'amt', 'AMT', 'RFC 7450'),
  row('2001:4:112::/48', 'as112-v6', 'AS112-v6', 'RFC 7535'),
  row('2001:20::/28', 'orchid-v2', 'ORCHIDv2', 'RFC 7343'),
  row('2001:30::/28', 'drone-remote-id-dets', 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', 'RFC 9374'),
  row('2620:4f:8000::/48', 'as112-direct-delegation', 'Direct Delegation AS112 Service', 'RFC 7534'),
];

interface Block {
  readonly version: 4 | 6;
  readonly first: bigint;
  readonly last: bigint;
  readonly length: number;
  readonly row: IanaSpecialRow;
}

/** A row as an inclusive range. Throws on a malformed row: the table is a constant. */
export function rowBlock(r: IanaSpecialRow): Block {
  const c = parseCidr(r.cidr);
  if (!c.ok || c.hostBitsSet || !r.cidr.includes('/')) throw new Error(`bad IANA table row ${r.cidr}`);
  const bits = c.version === 4 ? 32 : 128;
  return { version: c.version, first: c.start, last: c.start + (1n << BigInt(bits - c.length)) - 1n, length: c.length, row: r };
}

/**
 * Builds the feed: every address in some row and in no carve-out gets the
 * `kind` of the most specific row holding it. The output prefixes do not
 * overlap and are sorted by (version, start).
 */
export function buildSpecialPurposeFeed(
  rows: readonly IanaSpecialRow[] = IANA_SPECIAL_PURPOSE_ROWS,
  carveOuts: readonly IanaSpecialRow[] = IANA_GLOBALLY_REACHABLE,
): PrefixesFound<BogonValue> {
  const blocks = rows.map(rowBlock);
  const holes = carveOuts.map(rowBlock);
  const prefixes: Prefix<BogonValue>[] = [];
  for (const b of blocks) {
    if (holes.some((h) => h.version === b.version && h.first <= b.first && b.last <= h.last)) continue;
    // Addresses of `b` minus every strictly more specific row and every carve-out inside it.
    const cut = [...blocks, ...holes]
      .filter((o) => o !== b && o.version === b.version && o.first >= b.first && o.last <= b.last && (o.length > b.length || holes.includes(o)))
      .sort((x, y) => (x.first < y.first ? -1 : x.first > y.first ? 1 : 0));
    const value = { kind: b.row.kind };
    let cur = b.first;
    for (const o of cut) {
      if (o.first > cur) prefixes.push(...rangeToPrefixes(b.version, cur, o.first - 1n, value));
      if (o.last + 1n > cur) cur = o.last + 1n;
    }
    if (cur <= b.last) prefixes.push(...rangeToPrefixes(b.version, cur, b.last, value));
  }
  prefixes.sort((x, y) => x.version - y.version || (x.start < y.start ? -1 : x.start > y.start ? 1 : 0));
  return { prefixes, rejected: [], dataDate: null };
}

const SPECIAL_PURPOSE = /*#__PURE__*/ buildSpecialPurposeFeed();

/** The built-in table as a feed: the first bogon source (the most specific). */
export const IANA_SPECIAL_PURPOSE = defineFeed({
  id: 'iana-special-purpose',
  publisher: 'IANA',
  url: 'https://www.iana.org/assignments/iana-ipv4-special-registry/',
  licence: 'public registry',
  attribution_required: false,
  evidence: 'authoritative',
  note:
    'built-in table from https://www.iana.org/assignments/iana-ipv4-special-registry/ and ' +
    'https://www.iana.org/assignments/iana-ipv6-special-registry/ (not globally reachable rows, plus multicast); ' +
    'globally reachable rows carved out; 2002::/16 and 2001::/32 (Teredo) not bogons; ::ffff:0:0/96 decided by the IPv4 rows',
  format: 'built-in table (IANA IPv4/IPv6 special-purpose and multicast registries)',
  refresh: '365d',
  redistributable: true,
  role: 'bogon-special',
  use: 'build',
  origin: 'built-in',
  parse: () => SPECIAL_PURPOSE,
});
