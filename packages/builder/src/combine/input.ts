/**
 * What the combiner takes: every source already parsed and sorted into the
 * role it plays. Adapters produce feed results; load.ts maps them to roles.
 *
 * @module
 */
import type { Evidence, RpkiStatus, SourceInfo } from '@ipintel/core';
import type { AsnInfo, GeoRow, PublishedRange } from '@ipintel/core/writer';
import type { OperatorKind } from '../feeds/curated/operators.js';
import type { Prefix } from '../feeds/types.js';

export type { AsnInfo, PublishedRange };

/** An inclusive address range with a value. */
export interface Interval<V> {
  readonly first: bigint;
  readonly last: bigint;
  readonly value: V;
}

/** Per-family inputs given as ranges (geo and ASN tables are range-based). */
export interface FamilyRanges {
  /** Sorted, non-overlapping. */
  readonly geo: Interval<GeoRow>[];
  /** Sorted, non-overlapping. */
  readonly asn: Interval<AsnInfo>[];
}

/** RFC 6811 origin validation of one route, or null when the snapshot has no ROA set. */
export type RouteValidator = (version: 4 | 6, start: bigint, length: number, origin: number) => Exclude<RpkiStatus, 'unknown'>;

/** A run of consecutive entries of one role that came from one source row (index into `sources`). */
export interface SourceRun {
  readonly source: number;
  readonly count: number;
}

/** The prefix roles of CombineInput (each a `Prefix<...>[]`). */
export type PrefixRole =
  | 'routes'
  | 'routesMapped'
  | 'rir'
  | 'bogons'
  | 'unallocated'
  | 'datacenterPublished'
  | 'datacenterInferred'
  | 'tor'
  | 'vpn'
  | 'vpnBroad'
  | 'proxy'
  | 'relay'
  | 'crawlers'
  | 'resolvers'
  | 'drop'
  | 'abuse';

/** The ASN-keyed roles of CombineInput. */
export type AsnRole = 'hostingAsns' | 'asnClass' | 'operators' | 'dropAsns' | 'vpnAsnWide';

/**
 * Which source row each entry of the combiner's input came from, for the
 * explain sidecar (build/sidecar.ts). Runs follow each role's array order.
 */
export interface Provenance {
  readonly prefixes: Readonly<Record<PrefixRole, readonly SourceRun[]>>;
  /** Per family: the geo and ASN tables' intervals. */
  readonly v4: { readonly geo: readonly SourceRun[]; readonly asn: readonly SourceRun[] };
  readonly v6: { readonly geo: readonly SourceRun[]; readonly asn: readonly SourceRun[] };
  /** ASN -> the source row of the entry the combiner keeps. */
  readonly asns: Readonly<Record<AsnRole, ReadonlyMap<number, number>>>;
  /** ASN -> tag -> the source row of that tag list. */
  readonly asnTags: ReadonlyMap<number, ReadonlyMap<string, number>>;
  /** The source row of the ROA set that `validate` checks routes against, or null without one. */
  readonly roas: number | null;
}

export interface CombineInput {
  readonly v4: FamilyRanges;
  readonly v6: FamilyRanges;
  /** Announced routes (both families) with their origin ASNs, from BGP tables (authoritative). */
  readonly routes: Prefix<{ readonly origins: readonly number[] }>[];
  /** Mapped prefixes of a newer routing source that is not a BGP table (the asmap): routing evidence inferred. */
  readonly routesMapped: Prefix<{ readonly origins: readonly number[] }>[];
  readonly validate: RouteValidator | null;
  /** RIR delegations: allocation date (YYYY-MM-DD) and registration country. */
  readonly rir: Prefix<{ readonly date: string | null; readonly country: string | null }>[];
  /** Special-purpose space (IANA registries): always a bogon. */
  readonly bogons: Prefix<unknown>[];
  /** Unallocated space (full-bogon lists): a bogon unless routed, ASN-mapped or RIR-delegated (the lists age). */
  readonly unallocated: Prefix<unknown>[];
  /** Provider-published datacenter ranges (authoritative), with the CDN-edge and anycast traits. */
  readonly datacenterPublished: Prefix<PublishedRange>[];
  /** ASN-derived hosting ranges (inferred); provider may be unknown. */
  readonly datacenterInferred: Prefix<{ readonly provider: string | null }>[];
  /** Hosting ASNs from hosting-ASN lists (inferred datacenter, unless the ASN is an eyeball or transit network), with a name. */
  readonly hostingAsns: ReadonlyMap<number, string>;
  /** bgp.tools tags read by the build (declare.ts ASN_TAGS), per ASN. */
  readonly asnTags: ReadonlyMap<number, ReadonlySet<string>>;
  /** bgp.tools class per ASN (`T1`, `Carrier`, `Eyeball`, `Content`, `Unknown`). */
  readonly asnClass: ReadonlyMap<number, string>;
  /** The curated operator table (feeds/curated/operators.ts). */
  readonly operators: ReadonlyMap<number, OperatorKind>;
  readonly tor: Prefix<unknown>[];
  /** Per-server VPN lists (a provider's own servers), with the operator's name when the list gives one. */
  readonly vpn: Prefix<{ readonly brand: string | null }>[];
  /** Aggregate VPN lists: yield to relay, crawler, DROP and Tor. */
  readonly vpnBroad: Prefix<{ readonly brand: string | null }>[];
  /** ASNs the aggregate lists expand whole: their entries there are not VPN evidence. */
  readonly vpnAsnWide: ReadonlySet<number>;
  readonly proxy: Prefix<unknown>[];
  readonly relay: Prefix<{ readonly provider: string }>[];
  readonly crawlers: Prefix<{ readonly name: string }>[];
  readonly resolvers: Prefix<unknown>[];
  readonly drop: Prefix<unknown>[];
  readonly dropAsns: ReadonlySet<number>;
  /** Observed abuse reports (per address). */
  readonly abuse: Prefix<unknown>[];
  readonly sources: SourceInfo[];
  /** Evidence keys no loaded source can decide: results say `unavailable` there. */
  readonly unavailable: readonly (keyof Evidence)[];
  /** ISO date the snapshot carries as its build date. */
  readonly buildDate: string;
  readonly attributionUrl: string;
  /** Where each entry came from (set by build/roles.ts; absent in hand-made inputs). */
  readonly provenance?: Provenance;
}
