/**
 * What the combiner takes: every source already parsed and sorted into the
 * role it plays. Adapters produce feed results; load.ts maps them to roles.
 *
 * @module
 */
import type { RpkiStatus, SourceInfo } from '@ipintel/core';
import type { GeoRow } from '@ipintel/core/writer';
import type { Prefix } from '../feeds/types.js';

/** An inclusive address range with a value. */
export interface Interval<V> {
  readonly first: bigint;
  readonly last: bigint;
  readonly value: V;
}

export interface AsnInfo {
  readonly asn: number;
  readonly org: string;
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

export interface CombineInput {
  readonly v4: FamilyRanges;
  readonly v6: FamilyRanges;
  /** Announced routes (both families) with their origin ASNs. */
  readonly routes: Prefix<{ readonly origins: readonly number[] }>[];
  readonly validate: RouteValidator | null;
  /** RIR delegations: allocation date (YYYY-MM-DD) and registration country. */
  readonly rir: Prefix<{ readonly date: string | null; readonly country: string | null }>[];
  /** Special-purpose space (IANA registries): always a bogon. */
  readonly bogons: Prefix<unknown>[];
  /** Unallocated space (full-bogon lists): a bogon unless routed, ASN-mapped or RIR-delegated (the lists age). */
  readonly unallocated: Prefix<unknown>[];
  /** Provider-published datacenter ranges (authoritative). */
  readonly datacenterPublished: Prefix<{ readonly provider: string }>[];
  /** ASN-derived hosting ranges (inferred); provider may be unknown. */
  readonly datacenterInferred: Prefix<{ readonly provider: string | null }>[];
  /** Hosting ASNs (inferred datacenter for every address they originate), with a name. */
  readonly hostingAsns: ReadonlyMap<number, string>;
  readonly tor: Prefix<unknown>[];
  /** Per-server VPN lists (a provider's own servers). */
  readonly vpn: Prefix<{ readonly brand: string | null }>[];
  /** ASN-wide or aggregate VPN lists: yield to relay, crawler and DROP. */
  readonly vpnBroad: Prefix<unknown>[];
  readonly vpnAsns: ReadonlySet<number>;
  readonly proxy: Prefix<unknown>[];
  readonly relay: Prefix<{ readonly provider: string }>[];
  readonly crawlers: Prefix<{ readonly name: string }>[];
  readonly resolvers: Prefix<unknown>[];
  readonly drop: Prefix<unknown>[];
  readonly dropAsns: ReadonlySet<number>;
  /** Per-address abuse reports. */
  readonly abuse: Prefix<unknown>[];
  /** Aggregates that also hold bogons and DROP (FireHOL level 1): yield to those. */
  readonly abuseBroad: Prefix<unknown>[];
  readonly mobileAsns: ReadonlySet<number>;
  readonly satelliteAsns: ReadonlySet<number>;
  readonly sources: SourceInfo[];
  /** ISO date the snapshot carries as its build date. */
  readonly buildDate: string;
  readonly attributionUrl: string;
}
