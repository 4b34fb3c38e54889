/**
 * From the sources' values at an address to the rows of the result: the
 * precedence rules of PRODUCT.md section 2 and docs/data.md, in one place.
 * The builder runs them at every distinct combination of sources; an
 * explanation (explain/explain.ts) runs them again at one address with a
 * `trace`, which hears which rule decided each field and which sources'
 * facts it used (ids.ts names the rules). docs/data.md states the same
 * rules in prose; packages/builder/test/combine holds one test per rule.
 *
 * - Bogon decides everything: no geo, no network but `is_bogon`, no signals,
 *   score 0. IANA special-purpose space is always a bogon; space a full-bogon
 *   list calls unallocated is one only while nothing shows it in use (a BGP
 *   route, an asmap mapping, an ASN mapping, an RIR delegation, a DROP
 *   listing), because those lists age.
 * - Routing: `is_announced` when a BGP table routes the address or, where
 *   none does, the asmap (newer, but built from RPKI and IRR as well as BGP)
 *   maps it; routing evidence is `inferred` in that second case, and where
 *   not announced is the asmap's word alone (no BGP table of the address's IP
 *   version in the snapshot: `bgpTable` false). RPKI is
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
 *   network > isp (any other announced address: a BGP route or the asmap)
 *   > unknown (not announced: PRODUCT.md section 3; space an organisation
 *   holds but does not route, such as Ford's or the UK MoD's unannounced
 *   blocks, is no ISP's connection).
 *
 * @module
 */
import type { GeoRow, NetworkRow, SignalRow } from '../snapshot/model.js';
import type { ConnectionType, EvidenceLabel, RpkiStatus } from '../types.js';
import type { RuleId } from './ids.js';

/** A provider-published datacenter range. */
export interface PublishedRange {
  readonly provider: string;
  readonly cdn: boolean;
  readonly anycast: boolean;
}

/** An ASN table row. */
export interface AsnInfo {
  readonly asn: number;
  readonly org: string;
}

/** A row of the curated operator table, as the rules read it. */
export interface OperatorRow {
  readonly kind: 'mobile' | 'cdn';
  /** Display name: the datacenter provider for a CDN. */
  readonly name: string;
  /** The operator announces its edge space anycast. */
  readonly anycast: boolean;
}

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
  /**
   * Whether the snapshot holds a BGP table of the address's IP version
   * (default true). Without one, "not announced" is the asmap's word alone,
   * and its routing evidence is inferred, as an asmap mapping's is.
   */
  readonly bgpTable?: boolean;
}

/** The ASN-keyed sets the rules read besides the address's facts. */
export interface Sets {
  /** Hosting ASNs from hosting-ASN lists, with a name. */
  readonly hostingAsns: ReadonlyMap<number, string>;
  readonly dropAsns: ReadonlySet<number>;
  /** bgp.tools tags per ASN. */
  readonly asnTags: ReadonlyMap<number, ReadonlySet<string>>;
  /** bgp.tools class per ASN (`T1`, ...). */
  readonly asnClass: ReadonlyMap<number, string>;
  readonly operators: ReadonlyMap<number, OperatorRow>;
  /** ASNs an aggregate VPN publisher expands whole. */
  readonly vpnAsnWide: ReadonlySet<number>;
}

/** What a rule can have read: a per-address role (AddressFacts), an ASN-keyed set (Sets), or the ROA set behind a route's RPKI status. */
export type FactKey = Exclude<keyof AddressFacts, 'geo'> | keyof Sets | 'geo' | 'roas';

/** A result field an explanation covers (its path in the native result). */
export type ExplainedField =
  | 'geo'
  | `network.${Exclude<keyof NetworkRow, 'routing_inferred'>}`
  | `signals.${Exclude<keyof SignalRow, 'connection_evidence'>}`;

/** Hears, per field, the rule that decided it and the facts it read (in order of weight). */
export type Trace = (field: ExplainedField, rule: RuleId, facts: readonly FactKey[]) => void;

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

/** Every field an explanation covers, in result order. */
export const EXPLAINED_FIELDS: readonly ExplainedField[] = [
  'geo',
  ...(Object.keys(BOGON_NETWORK).filter((k) => k !== 'routing_inferred').map((k) => `network.${k}`) as ExplainedField[]),
  ...(Object.keys(BOGON_SIGNALS).filter((k) => k !== 'connection_evidence').map((k) => `signals.${k}`) as ExplainedField[]),
];

/** bgp.tools tags that mark an eyeball network (people's connections). */
const EYEBALL_TAGS = ['dsl', 'mobile', 'satnet'] as const;

/** The RPKI status shown: the BGP route's for the shown origin; `unknown` without ROAs, a route, or that origin among the route's. */
export function rpkiFor(route: RouteFacts | null, asn: number, hasRoas: boolean): RpkiStatus {
  if (!hasRoas || route === null) return 'unknown';
  const i = route.origins.indexOf(asn);
  return i < 0 ? 'unknown' : route.rpki[i]!;
}

/**
 * The routing source that decided: the BGP route, else the asmap. The asmap
 * is read only where no BGP table routes the address (the explain sidecar
 * leaves out asmap prefixes that BGP routes cover whole).
 */
function routingFacts(f: AddressFacts): FactKey[] {
  return f.route !== null ? ['route'] : f.mapped !== null ? ['mapped'] : [];
}

interface Connection {
  readonly type: ConnectionType;
  readonly evidence: Exclude<EvidenceLabel, 'unavailable'>;
  readonly provider: string | null;
  readonly rule: RuleId;
  readonly facts: readonly FactKey[];
}

/** connection_type, its evidence, the datacenter provider, and the rule that decided (module header: the order). */
export function connectionFor(f: AddressFacts, asn: number, org: string, routed: boolean, sets: Sets): Connection {
  if (f.datacenterPublished !== null) {
    return { type: 'datacenter', evidence: 'authoritative', provider: f.datacenterPublished.provider, rule: 'connection-published', facts: ['datacenterPublished'] };
  }
  const operator = asn !== 0 ? sets.operators.get(asn) : undefined;
  if (operator !== undefined) {
    const facts: FactKey[] = ['operators', 'asn'];
    return operator.kind === 'mobile'
      ? { type: 'mobile', evidence: 'inferred', provider: null, rule: 'connection-operator', facts }
      : { type: 'datacenter', evidence: 'inferred', provider: operator.name, rule: 'connection-operator', facts };
  }
  const tags = asn !== 0 ? sets.asnTags.get(asn) : undefined;
  const eyeball = EYEBALL_TAGS.filter((t) => tags?.has(t) ?? false);
  if (eyeball.length === 1 && eyeball[0] === 'satnet') return { type: 'satellite', evidence: 'inferred', provider: null, rule: 'connection-satellite', facts: ['asnTags', 'asn'] };
  if (eyeball.length === 1 && eyeball[0] === 'mobile') return { type: 'mobile', evidence: 'inferred', provider: null, rule: 'connection-mobile', facts: ['asnTags', 'asn'] };
  // ASN-wide and ASN-derived hosting labels hold only for networks that are neither eyeball nor transit.
  const hostingNetwork = eyeball.length === 0 && (asn === 0 || sets.asnClass.get(asn) !== 'T1');
  if (hostingNetwork) {
    const listed = asn !== 0 ? sets.hostingAsns.get(asn) : undefined;
    const tagged = (tags?.has('vpsh') ?? false) || (tags?.has('cdn') ?? false);
    if (f.datacenterInferred !== null || listed !== undefined || tagged) {
      const facts: FactKey[] = [];
      if (f.datacenterInferred !== null) facts.push('datacenterInferred');
      if (listed !== undefined) facts.push('hostingAsns');
      if (tagged) facts.push('asnTags');
      facts.push('asn', 'asnClass');
      return { type: 'datacenter', evidence: 'inferred', provider: f.datacenterInferred || listed || org || null, rule: 'connection-hosting', facts };
    }
  }
  return routed
    ? { type: 'isp', evidence: 'inferred', provider: null, rule: 'connection-isp', facts: ['asn', ...routingFacts(f), 'asnTags', 'asnClass'] }
    : { type: 'unknown', evidence: 'inferred', provider: null, rule: 'connection-unknown', facts: [] };
}

/** Reports the bogon rule for every field. */
function traceBogon(trace: Trace, special: boolean): void {
  for (const field of EXPLAINED_FIELDS) trace(field, special ? 'bogon-special' : 'bogon-unallocated', [special ? 'bogon' : 'unallocated']);
}

/** The network row, traced. */
function networkOf(f: AddressFacts, hasRoas: boolean, trace: Trace | undefined): NetworkRow {
  const asn = f.asn?.asn ?? 0;
  const routed = f.route !== null || f.mapped !== null;
  const network: NetworkRow = {
    asn,
    as_org: asn === 0 ? '' : (f.asn?.org ?? ''),
    is_announced: routed,
    is_bogon: false,
    rpki: rpkiFor(f.route, asn, hasRoas),
    allocation_date: f.rir?.date ?? null,
    registration_country: f.rir?.country ?? null,
    routing_inferred: f.route === null && (f.mapped !== null || f.bgpTable === false),
  };
  if (trace !== undefined) {
    trace('network.asn', 'asn-table', ['asn']);
    trace('network.as_org', 'asn-table', ['asn']);
    trace('network.is_announced', f.route !== null ? 'routing-bgp' : f.mapped !== null ? 'routing-asmap' : 'routing-none', routingFacts(f));
    // Unallocated space in use: what shows the use is what decided; otherwise no bogon list holds the address.
    trace('network.is_bogon', 'not-bogon', f.unallocated ? ['unallocated', ...routingFacts(f), 'asn', 'rir', 'drop'] : []);
    const fromRoute = hasRoas && f.route !== null && f.route.origins.includes(asn);
    trace('network.rpki', fromRoute ? 'rpki-route' : 'rpki-unknown', fromRoute ? ['route', 'roas', 'asn'] : routingFacts(f));
    trace('network.allocation_date', 'rir-delegation', ['rir']);
    trace('network.registration_country', 'rir-delegation', ['rir']);
  }
  return network;
}

/** The VPN decision: the name (or null), and the rule with its facts. */
function vpnOf(f: AddressFacts, asn: number, drop: boolean, sets: Sets): { name: string | null; rule: RuleId; facts: FactKey[] } {
  const listed: FactKey[] = [...(f.vpn !== null ? (['vpn'] as const) : []), ...(f.vpnBroad !== null ? (['vpnBroad'] as const) : [])];
  if (f.crawler !== null) return { name: null, rule: 'crawler-not-vpn', facts: ['crawler', ...listed] };
  if (f.relay !== null) return { name: null, rule: 'relay-not-vpn', facts: ['relay', ...listed] };
  if (f.datacenterPublished?.cdn ?? false) return { name: null, rule: 'cdn-edge-not-vpn', facts: ['datacenterPublished', ...listed] };
  if (f.vpn !== null) return { name: f.vpn, rule: 'vpn-per-server', facts: ['vpn'] };
  if (f.vpnBroad === null) return { name: null, rule: 'not-listed', facts: [] };
  // An aggregate's entry inside an ASN it expands whole is the ASN, not a server (rule 6).
  if (drop || f.tor) return { name: null, rule: 'vpn-aggregate-yields', facts: [f.drop ? 'drop' : drop ? 'dropAsns' : 'tor', 'vpnBroad'] };
  if (asn !== 0 && sets.vpnAsnWide.has(asn)) return { name: null, rule: 'vpn-asn-wide', facts: ['vpnAsnWide', 'asn', 'vpnBroad'] };
  return { name: f.vpnBroad, rule: 'vpn-aggregate', facts: ['vpnBroad'] };
}

/** A yes/no listing's rule: listed, suppressed by a verified crawler, or not listed. */
function listing(trace: Trace, field: ExplainedField, key: FactKey, listed: boolean, crawler: boolean, yes: RuleId = 'listed'): void {
  if (crawler && listed) trace(field, 'crawler-not-vpn', ['crawler', key]);
  else trace(field, listed ? yes : 'not-listed', listed ? [key] : []);
}

/** The result rows of one address's facts; `trace` (optional) hears which rule decided each field. */
export function classify(f: AddressFacts, sets: Sets, hasRoas: boolean, trace?: Trace): Classified {
  const routed = f.route !== null || f.mapped !== null;
  const inUse = routed || f.asn !== null || f.rir !== null || f.drop;
  if (f.bogon || (f.unallocated && !inUse)) {
    if (trace !== undefined) traceBogon(trace, f.bogon);
    return { geo: NULL_GEO, network: BOGON_NETWORK, signals: BOGON_SIGNALS };
  }
  const network = networkOf(f, hasRoas, trace);
  const asn = network.asn;
  const crawler = f.crawler;
  const relay = f.relay;
  const dropAsn = asn !== 0 && sets.dropAsns.has(asn);
  const drop = f.drop || dropAsn;
  const vpn = vpnOf(f, asn, drop, sets);
  const connection = connectionFor(f, asn, network.as_org, network.is_announced, sets);
  const operator = asn !== 0 ? sets.operators.get(asn) : undefined;
  const publishedAnycast = f.datacenterPublished?.anycast ?? false;
  const signals: SignalRow = {
    connection_type: connection.type,
    connection_evidence: connection.evidence,
    datacenter_provider: connection.type === 'datacenter' ? connection.provider : null,
    relay_provider: relay,
    is_relay: relay !== null,
    is_tor: f.tor,
    is_vpn: vpn.name !== null,
    vpn_operator: vpn.name || null,
    is_proxy: crawler === null && f.proxy,
    is_public_resolver: f.resolver,
    is_drop_listed: drop,
    recent_abuse: crawler === null && f.abuse,
    is_verified_bot: crawler !== null,
    verified_bot_name: crawler,
    is_anycast: publishedAnycast || (operator?.anycast ?? false),
  };
  if (trace !== undefined) {
    trace('geo', f.geo === null ? 'not-listed' : 'listed', f.geo === null ? [] : ['geo']);
    trace('signals.connection_type', connection.rule, connection.facts);
    trace('signals.datacenter_provider', connection.type === 'datacenter' ? connection.rule : 'not-listed', connection.type === 'datacenter' ? connection.facts : []);
    for (const field of ['signals.is_relay', 'signals.relay_provider'] as const) trace(field, relay !== null ? 'listed' : 'not-listed', relay !== null ? ['relay'] : []);
    trace('signals.is_tor', f.tor ? 'listed' : 'not-listed', f.tor ? ['tor'] : []);
    trace('signals.is_vpn', vpn.rule, vpn.facts);
    trace('signals.vpn_operator', vpn.rule, vpn.facts);
    listing(trace, 'signals.is_proxy', 'proxy', f.proxy, crawler !== null);
    trace('signals.is_public_resolver', f.resolver ? 'listed' : 'not-listed', f.resolver ? ['resolver'] : []);
    trace('signals.is_drop_listed', f.drop ? 'drop-prefix' : dropAsn ? 'drop-asn' : 'not-listed', f.drop ? ['drop'] : dropAsn ? ['dropAsns', 'asn'] : []);
    listing(trace, 'signals.recent_abuse', 'abuse', f.abuse, crawler !== null, 'abuse-reports');
    for (const field of ['signals.is_verified_bot', 'signals.verified_bot_name'] as const) trace(field, crawler !== null ? 'listed' : 'not-listed', crawler !== null ? ['crawler'] : []);
    const anycast: RuleId = publishedAnycast ? 'anycast-published' : operator?.anycast === true ? 'anycast-operator' : 'not-listed';
    trace('signals.is_anycast', anycast, anycast === 'anycast-published' ? ['datacenterPublished'] : anycast === 'anycast-operator' ? ['operators', 'asn'] : []);
  }
  return { geo: f.geo ?? NULL_GEO, network, signals };
}
