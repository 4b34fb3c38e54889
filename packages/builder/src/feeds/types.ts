/**
 * The contract every feed adapter follows. An adapter is a pure function of
 * the feed's bytes: it returns what it read, in the publisher's own terms,
 * and every line it rejected with the reason. It never drops a line silently
 * and never throws for one bad line; it throws `FeedError` only when the
 * file as a whole is not the format it claims to be (wrong JSON shape, empty,
 * truncated), so that a malformed feed can never give a silently wrong
 * snapshot.
 *
 * @module
 */
import type { EvidenceLabel, SourceInfo } from '@ipintel/core';

/** One rejected line (or record), reported in the build summary. */
export interface Diagnostic {
  /** Source id, e.g. `tor-exits`. */
  readonly feed: string;
  /** 1-based line number (or record index for JSON). */
  readonly line: number;
  readonly message: string;
}

/** A CIDR prefix with a value. `start` has its host bits cleared. */
export interface Prefix<V> {
  readonly version: 4 | 6;
  readonly start: bigint;
  readonly length: number;
  readonly value: V;
}

/** What a source is, minus the entry count the adapter fills in. */
export type SourceMeta = Omit<SourceInfo, 'entries'>;

/** Result of an adapter that yields prefixes. */
export interface PrefixFeed<V> {
  readonly source: SourceInfo;
  readonly prefixes: Prefix<V>[];
  readonly rejected: Diagnostic[];
}

/** Result of an adapter that yields ASNs (tag lists, ASN-DROP, hosting-ASN lists). */
export interface AsnFeed<V = string> {
  readonly source: SourceInfo;
  /** ASN -> value (a name, a class, ...). */
  readonly asns: Map<number, V>;
  readonly rejected: Diagnostic[];
}

/** The whole file is not in the format the adapter reads. */
export class FeedError extends Error {
  override readonly name = 'FeedError';
  constructor(
    readonly feed: string,
    message: string,
  ) {
    super(`${feed}: ${message}`);
  }
}

export type { EvidenceLabel };
