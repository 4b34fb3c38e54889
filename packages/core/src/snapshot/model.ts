/**
 * What the writer takes: the tables and ranges of one snapshot, in plain
 * JavaScript values. The builder produces it; tests make small ones.
 *
 * @module
 */
import type { Evidence, EvidenceLabel, RpkiStatus, Signals, SourceInfo } from '../types.js';
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
  /** Announced only by a source that is not a BGP table (the asmap): routing evidence `inferred`. Default false. */
  readonly routing_inferred?: boolean;
}

/** A signal set as stored: the result's signals (less the derived `is_datacenter`) and the label of `connection_type`. */
export type SignalRow = Omit<Signals, 'is_datacenter'> & {
  /** Label of the source class that decided `connection_type` (`unavailable` is per snapshot, never stored). */
  readonly connection_evidence: Exclude<EvidenceLabel, 'unavailable'>;
};

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
  /** Evidence keys with no source in the snapshot (default none). */
  readonly unavailable?: readonly (keyof Evidence)[];
  readonly geo: readonly GeoRow[];
  readonly networks: readonly NetworkRow[];
  readonly signals: readonly SignalRow[];
  readonly leaves: readonly LeafRow[];
  /** Leaf id per IPv4 range, covering 0 .. 2^32-1. */
  readonly v4: Ranges<number>;
  /** Leaf id per IPv6 range, covering 0 .. 2^128-1. */
  readonly v6: Ranges<number>;
}
