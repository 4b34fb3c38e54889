/**
 * What the writer takes: the tables and ranges of one snapshot, in plain
 * JavaScript values. The builder produces it; tests make small ones.
 *
 * @module
 */
import type { ConnectionType, EvidenceLabel, RpkiStatus, SourceInfo } from '../types.js';
import type { Ranges } from './flatten.js';

export interface GeoRow {
  readonly country: string | null;
  readonly country_code: string | null;
  readonly region: string | null;
  readonly city: string | null;
  readonly latitude: number | null;
  readonly longitude: number | null;
  readonly timezone: string | null;
}

export interface NetworkRow {
  readonly asn: number;
  readonly as_org: string;
  readonly is_announced: boolean;
  readonly is_bogon: boolean;
  readonly rpki: RpkiStatus | null;
  /** `YYYY-MM-DD` or null. */
  readonly allocation_date: string | null;
  readonly registration_country: string | null;
}

export interface SignalRow {
  readonly connection_type: ConnectionType;
  /** Label of the source class that decided `connection_type`. */
  readonly connection_evidence: EvidenceLabel;
  readonly datacenter_provider: string | null;
  readonly relay_provider: string | null;
  readonly is_relay: boolean;
  readonly is_tor: boolean;
  readonly is_vpn: boolean;
  readonly is_proxy: boolean;
  readonly is_public_resolver: boolean;
  readonly is_drop_listed: boolean;
  readonly recent_abuse: boolean;
  readonly is_verified_bot: boolean;
  readonly verified_bot_name: string | null;
}

/** One distinct answer: indexes into the three tables. */
export interface LeafRow {
  readonly geo: number;
  readonly net: number;
  readonly sig: number;
}

export interface SnapshotModel {
  /** ISO timestamp. */
  readonly build_date: string;
  readonly attribution_url: string;
  readonly has_rpki: boolean;
  readonly sources: readonly SourceInfo[];
  readonly geo: readonly GeoRow[];
  readonly networks: readonly NetworkRow[];
  readonly signals: readonly SignalRow[];
  readonly leaves: readonly LeafRow[];
  /** Leaf id per IPv4 range, covering 0 .. 2^32-1. */
  readonly v4: Ranges<number>;
  /** Leaf id per IPv6 range, covering 0 .. 2^128-1. */
  readonly v6: Ranges<number>;
}
