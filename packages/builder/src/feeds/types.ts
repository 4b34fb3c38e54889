/**
 * The contract every feed adapter follows. An adapter is a pure function of
 * the feed's bytes (and its declared id, for messages): it returns what it
 * read, in the publisher's own terms, every line it rejected with the
 * reason, and what the file says about itself (its data date, a note). It
 * never drops a line silently and never throws for one bad line; it throws
 * `FeedError` only when the file as a whole is not the format it claims to
 * be (wrong JSON shape, empty, truncated), so that a malformed feed can never
 * give a silently wrong snapshot.
 *
 * Who publishes a feed, where, under which licence, is not the adapter's
 * business: the feed's declaration says it once (declare.ts), and the
 * registry derives the snapshot's source row from both (registry.ts).
 *
 * @module
 */
import type { EvidenceLabel, SourceInfo } from '@ipintel/core';
import type { InvalidUtf8 } from './read/utf8.js';

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

/** What an adapter found in a file besides its entries. */
export interface Found {
  readonly rejected: Diagnostic[];
  /** The data date the file states (in a header, its gzip name, its metadata); null when it states none. */
  readonly dataDate: string | null;
  /**
   * Set when the file states a data date that names no real time
   * (`2025-13-31T13:25:28Z`, or one past the build machine's clock:
   * build/future-dates.ts), or `''` when a format that always states its
   * date states none (an az0 list without its header): `dataDate` is then
   * null, yet unlike a file whose format states none, its age is not merely
   * unknown but unreadable. Rules that need the age (the VPN age limit)
   * treat it as too old.
   */
  readonly dateUnreadable?: string;
  /** A note the file makes necessary (a count of skipped records, a tag chosen); replaces the declared note. */
  readonly note?: string;
  /** The file's own statement of its terms (Spamhaus' copyright line); replaces the declared licence. */
  readonly licence?: string;
  /** The entry count when it is not simply the number of prefixes / ASNs / ROAs / ranges read. */
  readonly entries?: number;
}

/** An adapter's result for a feed of prefixes. */
export interface PrefixesFound<V> extends Found {
  readonly prefixes: Prefix<V>[];
}

/** An adapter's result for a feed of ASNs (tag lists, ASN-DROP, hosting-ASN lists): ASN -> value. */
export interface AsnsFound<V> extends Found {
  readonly asns: Map<number, V>;
}

/**
 * A feed read through its declaration: what the adapter found plus the
 * source row derived from both, and, when its bytes were not all UTF-8,
 * where not (read/utf8.ts). Those bytes were read as U+FFFD: a line whose
 * address holds one is rejected like any bad line; a name or brand that
 * holds one is kept as read, and this says so.
 */
export type FeedResult<F extends Found = Found> = F & { readonly source: SourceInfo; readonly invalidUtf8?: InvalidUtf8 };

/** Read through the registry: prefixes plus the source row. */
export type PrefixFeed<V> = FeedResult<PrefixesFound<V>>;

/** Read through the registry: ASNs plus the source row. */
export type AsnFeed<V> = FeedResult<AsnsFound<V>>;

/**
 * An adapter: reads a feed's bytes. `feed` is the declared id, used in
 * diagnostics and errors (one adapter may serve several feeds).
 */
export type Parse<F extends Found> = (data: Uint8Array, feed: string) => F;

export type { EvidenceLabel, InvalidUtf8, SourceInfo };
