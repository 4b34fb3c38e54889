/**
 * From the sources' values at an address to the rows of the result: the
 * precedence rules of PRODUCT.md section 2, in one place. docs/data.md states
 * the same rules in prose.
 *
 * - Bogon decides everything: no geo, no network but `is_bogon`, no signals,
 *   score 0. IANA special-purpose space is always a bogon; space a full-bogon
 *   list calls unallocated is one only while nothing shows it in use (no
 *   route, no ASN mapping, no RIR delegation), because those lists age.
 * - A relay range is not a VPN: relay (and a verified crawler) override VPN
 *   hits. Broad VPN lists (ASN-wide, aggregates) also yield to DROP and to
 *   the Tor exit list (a Tor exit in a "VPN" ASN is Tor).
 * - Verified crawlers are never reported as VPN, proxy or recent abuse (their
 *   ranges are operator-published; reports against them are misattributed).
 * - Broad abuse aggregates that embed bogons and DROP (FireHOL level 1) yield
 *   to the DROP list for DROP-listed space.
 * - connection_type: provider-published datacenter range (authoritative) >
 *   satellite ASN > mobile ASN > inferred datacenter (hosting lists, hosting
 *   ASNs) > isp (any other routed or registered address) > unknown.
 *
 * @module
 */
import type { ConnectionType, EvidenceLabel, RpkiStatus } from '@ipintel/core';
import type { GeoRow, NetworkRow, SignalRow } from '@ipintel/core/writer';
import type { AsnInfo, CombineInput } from './input.js';

/** The value each role has at one address (tables already resolved). */
export interface AddressFacts {
  readonly geo: GeoRow | null;
  readonly asn: AsnInfo | null;
  readonly route: { readonly origins: readonly number[]; readonly rpki: RpkiStatus } | null;
  readonly rir: { readonly date: string | null; readonly country: string | null } | null;
  readonly bogon: boolean;
  readonly unallocated: boolean;
  readonly datacenterPublished: string | null;
  /** Present = listed as hosting; the string may be empty when the list names no provider. */
  readonly datacenterInferred: string | null;
  readonly tor: boolean;
  readonly vpn: boolean;
  readonly vpnBroad: boolean;
  readonly proxy: boolean;
  readonly relay: string | null;
  readonly crawler: string | null;
  readonly resolver: boolean;
  readonly drop: boolean;
  readonly abuse: boolean;
  readonly abuseBroad: boolean;
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
});

export const BOGON_SIGNALS: SignalRow = Object.freeze({
  connection_type: 'unknown',
  connection_evidence: 'authoritative',
  datacenter_provider: null,
  relay_provider: null,
  is_relay: false,
  is_tor: false,
  is_vpn: false,
  is_proxy: false,
  is_public_resolver: false,
  is_drop_listed: false,
  recent_abuse: false,
  is_verified_bot: false,
  verified_bot_name: null,
});

export interface Classified {
  readonly geo: GeoRow;
  readonly network: NetworkRow;
  readonly signals: SignalRow;
}

type Sets = Pick<CombineInput, 'hostingAsns' | 'vpnAsns' | 'dropAsns' | 'mobileAsns' | 'satelliteAsns'>;

/** RPKI status reported for an address: its most specific route's, `unknown` without a ROA set or a route. */
function rpkiOf(f: AddressFacts, hasRoas: boolean): RpkiStatus {
  if (!hasRoas || f.route === null) return 'unknown';
  return f.route.rpki;
}

export function classify(f: AddressFacts, sets: Sets, hasRoas: boolean): Classified {
  const inUse = f.route !== null || f.asn !== null || f.rir !== null;
  if (f.bogon || (f.unallocated && !inUse)) return { geo: NULL_GEO, network: BOGON_NETWORK, signals: BOGON_SIGNALS };
  const asn = f.asn?.asn ?? 0;
  const network: NetworkRow = {
    asn,
    as_org: asn === 0 ? '' : (f.asn?.org ?? ''),
    is_announced: f.route !== null,
    is_bogon: false,
    rpki: rpkiOf(f, hasRoas),
    allocation_date: f.rir?.date ?? null,
    registration_country: f.rir?.country ?? null,
  };
  const crawler = f.crawler;
  const relay = f.relay;
  const drop = f.drop || (asn !== 0 && sets.dropAsns.has(asn));
  const broadVpn = f.vpnBroad || (asn !== 0 && sets.vpnAsns.has(asn));
  const vpn = crawler === null && relay === null && (f.vpn || (broadVpn && !drop && !f.tor));
  const abuse = crawler === null && (f.abuse || (f.abuseBroad && !drop));
  const proxy = crawler === null && f.proxy;

  // connection_type and its evidence (see the module header for the order).
  const hostingName = asn !== 0 ? sets.hostingAsns.get(asn) : undefined;
  const inferredDc = f.datacenterInferred !== null || hostingName !== undefined;
  let connection: ConnectionType;
  let evidence: EvidenceLabel = 'inferred';
  let provider: string | null = null;
  if (f.datacenterPublished !== null) {
    connection = 'datacenter';
    evidence = 'authoritative';
    provider = f.datacenterPublished;
  } else if (asn !== 0 && sets.satelliteAsns.has(asn)) {
    connection = 'satellite';
  } else if (asn !== 0 && sets.mobileAsns.has(asn)) {
    connection = 'mobile';
  } else if (inferredDc) {
    connection = 'datacenter';
    provider = f.datacenterInferred || hostingName || (asn !== 0 ? network.as_org || null : null);
  } else if (f.route !== null || asn !== 0 || f.rir !== null) {
    connection = 'isp';
  } else {
    connection = 'unknown';
  }
  const signals: SignalRow = {
    connection_type: connection,
    connection_evidence: evidence,
    datacenter_provider: provider,
    relay_provider: relay,
    is_relay: relay !== null,
    is_tor: f.tor,
    is_vpn: vpn,
    is_proxy: proxy,
    is_public_resolver: f.resolver,
    is_drop_listed: drop,
    recent_abuse: abuse,
    is_verified_bot: crawler !== null,
    verified_bot_name: crawler,
  };
  return { geo: f.geo ?? NULL_GEO, network, signals };
}
