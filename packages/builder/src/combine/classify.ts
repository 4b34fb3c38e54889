/**
 * From the sources' values at an address to the rows of the result: the
 * precedence rules of PRODUCT.md section 2 and docs/data.md, in one place.
 * docs/data.md states the same rules in prose, and test/classify.test.ts
 * holds one test per rule.
 *
 * - Bogon decides everything: no geo, no network but `is_bogon`, no signals,
 *   score 0. IANA special-purpose space is always a bogon; space a full-bogon
 *   list calls unallocated is one only while nothing shows it in use (a BGP
 *   route, an asmap mapping, an ASN mapping, an RIR delegation, a DROP
 *   listing), because those lists age.
 * - Routing: `is_announced` when a BGP table routes the address or, where
 *   none does, the asmap (newer, but built from RPKI and IRR as well as BGP)
 *   maps it; routing evidence is `inferred` in that second case. RPKI is
 *   the status of the BGP route for the origin the result shows; `unknown`
 *   when no BGP route has that origin (the sources disagree, or only the
 *   asmap maps the address).
 * - VPN: per-server lists, and aggregates that yield to DROP and Tor and
 *   count for nothing inside an ASN they expand whole; no VPN on a relay, a
 *   verified crawler or a CDN's published edge range.
 *   `vpn_operator` names the list's operator when it gives one.
 * - Verified crawlers are never reported as VPN, proxy or recent abuse (their
 *   ranges are operator-published; reports against them are misattributed).
 * - Abuse: only lists of observed abuse feed `recent_abuse`.
 * - connection_type (first that applies): a provider-published datacenter
 *   range (authoritative) > the curated operator table (mobile-first
 *   operator, CDN's own ASN) > pure ASN tags: satellite when the ASN's only
 *   eyeball tag is satnet, mobile when it is mobile > inferred datacenter
 *   (hosting lists and hosting ASNs, the vpsh/cdn tags) unless the ASN is
 *   tagged as an eyeball network (dsl, mobile, satnet) or is a T1 transit
 *   network > isp (any other routed or registered address) > unknown.
 *
 * @module
 */
import type { ConnectionType, EvidenceLabel, RpkiStatus } from '@ipintel/core';
import type { GeoRow, NetworkRow, SignalRow } from '@ipintel/core/writer';
import type { AsnInfo, CombineInput, PublishedRange } from './input.js';

/** A BGP route at an address: its origins and the RPKI status of each (same order). */
export interface RouteFacts {
  readonly origins: readonly number[];
  readonly rpki: readonly RpkiStatus[];
}

/** The value each role has at one address (tables already resolved). */
export interface AddressFacts {
  readonly geo: GeoRow | null;
  readonly asn: AsnInfo | null;
  readonly route: RouteFacts | null;
  /** The asmap's AS for the address, or null when it maps none. */
  readonly mapped: number | null;
  readonly rir: { readonly date: string | null; readonly country: string | null } | null;
  readonly bogon: boolean;
  readonly unallocated: boolean;
  readonly datacenterPublished: PublishedRange | null;
  /** Present = listed as hosting; the string may be empty when the list names no provider. */
  readonly datacenterInferred: string | null;
  readonly tor: boolean;
  /** A per-server VPN list holds the address: the operator's name, or '' when the list names none. */
  readonly vpn: string | null;
  /** An aggregate VPN list holds the address: as `vpn`. */
  readonly vpnBroad: string | null;
  readonly proxy: boolean;
  readonly relay: string | null;
  readonly crawler: string | null;
  readonly resolver: boolean;
  readonly drop: boolean;
  readonly abuse: boolean;
}

export const NULL_GEO: GeoRow = Object.freeze({
  country: null,
  country_code: null,
  region: null,
  city: null,
  latitude: null,
  longitude: null,
  timezone: null,
});

export const BOGON_NETWORK: NetworkRow = Object.freeze({
  asn: 0,
  as_org: '',
  is_announced: false,
  is_bogon: true,
  rpki: null,
  allocation_date: null,
  registration_country: null,
  routing_inferred: false,
});

export const BOGON_SIGNALS: SignalRow = Object.freeze({
  connection_type: 'unknown',
  connection_evidence: 'authoritative',
  datacenter_provider: null,
  relay_provider: null,
  is_relay: false,
  is_tor: false,
  is_vpn: false,
  vpn_operator: null,
  is_proxy: false,
  is_public_resolver: false,
  is_drop_listed: false,
  recent_abuse: false,
  is_verified_bot: false,
  verified_bot_name: null,
  is_anycast: false,
});

export interface Classified {
  readonly geo: GeoRow;
  readonly network: NetworkRow;
  readonly signals: SignalRow;
}

/** What classify needs of the combiner's input beyond the address's facts. */
export type Sets = Pick<CombineInput, 'hostingAsns' | 'dropAsns' | 'asnTags' | 'asnClass' | 'operators' | 'vpnAsnWide'>;

/** bgp.tools tags that mark an eyeball network (people's connections). */
const EYEBALL_TAGS = ['dsl', 'mobile', 'satnet'] as const;

/** The RPKI status shown: the BGP route's for the shown origin; `unknown` without ROAs, a route, or that origin among the route's. */
export function rpkiFor(route: RouteFacts | null, asn: number, hasRoas: boolean): RpkiStatus {
  if (!hasRoas || route === null) return 'unknown';
  const i = route.origins.indexOf(asn);
  return i < 0 ? 'unknown' : route.rpki[i]!;
}

interface Connection {
  readonly type: ConnectionType;
  readonly evidence: Exclude<EvidenceLabel, 'unavailable'>;
  readonly provider: string | null;
}

/** connection_type, its evidence and the datacenter provider (module header: the order). */
export function connectionFor(f: AddressFacts, asn: number, org: string, inUse: boolean, sets: Sets): Connection {
  if (f.datacenterPublished !== null) return { type: 'datacenter', evidence: 'authoritative', provider: f.datacenterPublished.provider };
  const operator = asn !== 0 ? sets.operators.get(asn) : undefined;
  if (operator !== undefined) {
    return operator.kind === 'mobile'
      ? { type: 'mobile', evidence: 'inferred', provider: null }
      : { type: 'datacenter', evidence: 'inferred', provider: operator.name };
  }
  const tags = asn !== 0 ? sets.asnTags.get(asn) : undefined;
  const eyeball = EYEBALL_TAGS.filter((t) => tags?.has(t) ?? false);
  if (eyeball.length === 1 && eyeball[0] === 'satnet') return { type: 'satellite', evidence: 'inferred', provider: null };
  if (eyeball.length === 1 && eyeball[0] === 'mobile') return { type: 'mobile', evidence: 'inferred', provider: null };
  // ASN-wide and ASN-derived hosting labels hold only for networks that are neither eyeball nor transit.
  const hostingNetwork = eyeball.length === 0 && (asn === 0 || sets.asnClass.get(asn) !== 'T1');
  if (hostingNetwork) {
    const listed = asn !== 0 ? sets.hostingAsns.get(asn) : undefined;
    const tagged = (tags?.has('vpsh') ?? false) || (tags?.has('cdn') ?? false);
    if (f.datacenterInferred !== null || listed !== undefined || tagged) {
      return { type: 'datacenter', evidence: 'inferred', provider: f.datacenterInferred || listed || org || null };
    }
  }
  return { type: inUse || asn !== 0 ? 'isp' : 'unknown', evidence: 'inferred', provider: null };
}

export function classify(f: AddressFacts, sets: Sets, hasRoas: boolean): Classified {
  const routed = f.route !== null || f.mapped !== null;
  const inUse = routed || f.asn !== null || f.rir !== null || f.drop;
  if (f.bogon || (f.unallocated && !inUse)) return { geo: NULL_GEO, network: BOGON_NETWORK, signals: BOGON_SIGNALS };
  const asn = f.asn?.asn ?? 0;
  const org = asn === 0 ? '' : (f.asn?.org ?? '');
  const network: NetworkRow = {
    asn,
    as_org: org,
    is_announced: routed,
    is_bogon: false,
    rpki: rpkiFor(f.route, asn, hasRoas),
    allocation_date: f.rir?.date ?? null,
    registration_country: f.rir?.country ?? null,
    routing_inferred: f.route === null && f.mapped !== null,
  };
  const crawler = f.crawler;
  const relay = f.relay;
  const drop = f.drop || (asn !== 0 && sets.dropAsns.has(asn));
  const cdnEdge = f.datacenterPublished?.cdn ?? false;
  const notVpn = crawler !== null || relay !== null || cdnEdge;
  // An aggregate's entry inside an ASN it expands whole is the ASN, not a server (rule 6).
  const broadCounts = !drop && !f.tor && !(asn !== 0 && sets.vpnAsnWide.has(asn));
  const vpnName = notVpn ? null : (f.vpn ?? (broadCounts ? f.vpnBroad : null));
  const connection = connectionFor(f, asn, org, f.route !== null || f.mapped !== null || f.rir !== null, sets);
  const operator = asn !== 0 ? sets.operators.get(asn) : undefined;
  const signals: SignalRow = {
    connection_type: connection.type,
    connection_evidence: connection.evidence,
    datacenter_provider: connection.type === 'datacenter' ? connection.provider : null,
    relay_provider: relay,
    is_relay: relay !== null,
    is_tor: f.tor,
    is_vpn: vpnName !== null,
    vpn_operator: vpnName || null,
    is_proxy: crawler === null && f.proxy,
    is_public_resolver: f.resolver,
    is_drop_listed: drop,
    recent_abuse: crawler === null && f.abuse,
    is_verified_bot: crawler !== null,
    verified_bot_name: crawler,
    is_anycast: (f.datacenterPublished?.anycast ?? false) || (operator?.anycast ?? false),
  };
  return { geo: f.geo ?? NULL_GEO, network, signals };
}
