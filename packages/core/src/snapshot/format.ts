/**
 * Constants of the snapshot file format, version 4. Owned by core; the writer
 * (encode.ts) and the reader (decode.ts) both import them, and
 * docs/snapshot-format.md describes the same layout in prose.
 *
 * File = 32-byte header + stored payload:
 *
 *   offset size  field
 *   0      8     magic "IPINTEL\0"
 *   8      2     format version (u16 LE)
 *   10     2     flags (u16 LE): bit 0 = columns are deflate-raw compressed
 *   12     4     header size (u32 LE) = 32
 *   16     4     stored payload size (u32 LE)
 *   20     4     meta length M (u32 LE), repeated from the payload
 *   24     4     checksum of the meta region: u32 length + meta (CRC-32)
 *   28     4     checksum of header bytes 0..27 (CRC-32)
 *
 * Stored payload = u32 meta length M, M bytes of UTF-8 JSON (SnapshotMeta),
 * then one blob per column at the offset (from the end of the meta) the meta
 * names: a typed array (little-endian), deflate-raw compressed on its own when
 * the column says so, with its own checksum. One stream per column means no
 * buffer as large as the whole file: Node reads and inflates column by
 * column, several at once.
 *
 * @module
 */

import type { ColumnFilter } from './filters.js';

export const SNAPSHOT_MAGIC = new Uint8Array([0x49, 0x50, 0x49, 0x4e, 0x54, 0x45, 0x4c, 0x00]); // "IPINTEL\0"
/**
 * 2: sig.vpn_operator, SIG_ANYCAST, NET_ROUTING_INFERRED and the meta's `unavailable`;
 * 3: the IPv4 direct table and blocks (`v4.dir`, `v4.blk`), CRC-32 checksums (issue 13);
 * 4: a bucket's block is a map of its /24 slices, then blocks for the slices
 * that hold more than one range (issue 13, thirteenth round).
 * Older versions are not read.
 */
export const SNAPSHOT_VERSION = 4;
export const HEADER_SIZE = 32;
/** Set when the writer deflated columns (each column also says whether it is). */
export const FLAG_DEFLATE = 1;
/** Set when some column is stored through a filter (filters.ts; the column's `filter`). */
export const FLAG_FILTERS = 2;
/** Flags this reader understands; any other bit set means a newer writer (so a reader without filters refuses a file that has them). */
export const KNOWN_FLAGS = FLAG_DEFLATE | FLAG_FILTERS;

/**
 * The IPv4 index (see snapshot/v4-index.ts and docs/design.md): a direct
 * table of 2^b entries, one per top-b-bit bucket (b between V4_MIN_DIR_BITS
 * and V4_MAX_DIR_BITS, given by the table's length). An entry below
 * V4_BLOCK is the leaf of the whole bucket; otherwise `entry - V4_BLOCK` is
 * the byte offset in `v4.blk` of the bucket's record. A bucket is cut into
 * S = 2^(24-b) slices of 256 addresses (the /24s); its record is
 *
 *   u24 x S                 the map: per slice, below V4_SLICE_BLOCK the leaf
 *                           of the whole slice, else V4_SLICE_BLOCK + the byte
 *                           offset of the slice's block from the record's start
 *   slice blocks            for the slices that hold more than one range, in
 *                           slice order, right after the map:
 *     u8 k                  starts inside the slice after its first address (k >= 1)
 *     u8 x k                those starts, as offsets in the slice, increasing, > 0
 *     u24 x (k + 1)         leaf of [0, s1), [s1, s2), ..., [sk, 256)
 *
 * all little-endian, records in bucket order with nothing between them. Why
 * a map: most lookups that miss the table end on one read whose value no
 * branch waits on, where a search inside the bucket did (docs/design.md,
 * "Thirteenth round").
 */
export const V4_BLOCK = 0x80000000;
/** A map entry at or above this is a slice block's offset (leaf ids stay below 2^23: MAX_LEAVES). */
export const V4_SLICE_BLOCK = 0x800000;
/** Addresses per slice: a map has one entry per /24. */
export const V4_SLICE = 256;
/** Smallest table: 2^16 buckets of 2^16 addresses, maps of 256 entries (768 bytes). The bound dates from format 3, whose offsets were u16. */
export const V4_MIN_DIR_BITS = 16;
export const V4_MAX_DIR_BITS = 24;
/** Table size the writer picks for a world-sized index (4 MB: stays in the L3 cache). */
export const V4_DIR_BITS = 20;
/** Below this many IPv4 ranges the writer uses the smallest table (a tiny snapshot gets a 256 KB one). */
export const V4_SMALL_INDEX = 65536;

/**
 * Per-range leaf ids are 24-bit, stored as 3 little-endian bytes per range in
 * a u8 column (one cache line holds the whole id; 3 bytes instead of 4).
 * Leaf ids stay below 2^23; in the IPv6 main table, bit 23 marks a sub-table
 * reference (the low 23 bits are its index).
 */
export const SUB_TABLE_BIT = 0x800000;
export const MAX_LEAVES = 0x800000;

/**
 * A leaf's geo row in `leaf.ids`, whose 3 u16 per leaf are `[geo low 16,
 * pair low 16, geo high 8 | pair high 8 << 8]` (one cache line per leaf).
 */
export function leafGeo(ids: Uint16Array, leaf: number): number {
  return ids[3 * leaf]! | ((ids[3 * leaf + 2]! & 0xff) << 16);
}

/** A leaf's network/signal pair in `leaf.ids` (layout: {@link leafGeo}). */
export function leafPair(ids: Uint16Array, leaf: number): number {
  return ids[3 * leaf + 1]! | ((ids[3 * leaf + 2]! >>> 8) << 16);
}
/** String id for "no string" (null). */
export const NULL_STRING = 0xffffffff;
/**
 * The same in u16 string columns (country codes, time zones): the writer
 * interns those strings first, so their ids stay below this.
 */
export const NULL_STRING16 = 0xffff;
/** Day number for "no date" (null). */
export const NULL_DAY = 0xffffffff;

export type ColumnType = 'u8' | 'u16' | 'u32' | 'f32';

export interface ColumnRef {
  readonly type: ColumnType;
  /** Element count. */
  readonly count: number;
  /** Offset of the stored blob from the end of the meta. */
  readonly offset: number;
  /** Stored bytes (compressed size when `deflate`). */
  readonly stored: number;
  readonly deflate: boolean;
  /** A reversible byte rearrangement applied before deflate (filters.ts); absent: none. */
  readonly filter?: ColumnFilter;
  /** CRC-32 (IEEE, as zlib's) of the stored blob. */
  readonly checksum: number;
}

/** Bytes per element of each column type. */
export const TYPE_SIZE: Readonly<Record<ColumnType, number>> = { u8: 1, u16: 2, u32: 4, f32: 4 };

/** Every column a snapshot of the current version holds, with its element type. */
export const COLUMNS = {
  'str.offsets': 'u32',
  'str.bytes': 'u8',
  'geo.country_code': 'u16',
  'geo.region': 'u32',
  'geo.city': 'u32',
  'geo.timezone': 'u16',
  'geo.latitude': 'f32',
  'geo.longitude': 'f32',
  'net.asn': 'u32',
  'net.as_org': 'u32',
  'net.flags': 'u8',
  'net.rpki': 'u8',
  'net.allocation_day': 'u32',
  'net.registration_country': 'u32',
  'sig.flags': 'u16',
  'sig.connection_type': 'u8',
  'sig.connection_evidence': 'u8',
  'sig.datacenter_provider': 'u32',
  'sig.relay_provider': 'u32',
  'sig.verified_bot_name': 'u32',
  'sig.vpn_operator': 'u32',
  'leaf.ids': 'u16',
  'pair.net': 'u32',
  'pair.sig': 'u32',
  'v4.dir': 'u32',
  'v4.blk': 'u8',
  'v6.w0': 'u32',
  'v6.groups': 'u32',
  'v6.w1': 'u32',
  'v6.leaf': 'u8',
  'v6.sub': 'u32',
  'v6.subw': 'u32',
  'v6.subleaf': 'u8',
} as const satisfies Record<string, ColumnType>;

export type ColumnName = keyof typeof COLUMNS;

/**
 * The IPv6 index: read by IPv6 lookups only (and by tools that walk the IPv6
 * ranges), so a reader may decode these columns on their first use
 * (decode.ts, docs/design.md "Loading"). 31 MB of the world snapshot's 110.
 */
export const V6_COLUMNS = ['v6.w0', 'v6.groups', 'v6.w1', 'v6.leaf', 'v6.sub', 'v6.subw', 'v6.subleaf'] as const satisfies readonly ColumnName[];

export type V6ColumnName = (typeof V6_COLUMNS)[number];

/** net.flags bits. */
export const NET_ANNOUNCED = 1;
export const NET_BOGON = 2;
/** Announced only by a source that is not a BGP table (the asmap): routing evidence `inferred`. */
export const NET_ROUTING_INFERRED = 4;

/** Whether network row `net`'s routing is inferred (the evidence's `routing` label), from the `net.flags` column. */
export function routingInferred(netFlags: Uint8Array, net: number): boolean {
  return (netFlags[net]! & NET_ROUTING_INFERRED) !== 0;
}

/** sig.flags bits. */
export const SIG_RELAY = 1 << 0;
export const SIG_TOR = 1 << 1;
export const SIG_VPN = 1 << 2;
export const SIG_PROXY = 1 << 3;
export const SIG_RESOLVER = 1 << 4;
export const SIG_DROP = 1 << 5;
export const SIG_ABUSE = 1 << 6;
export const SIG_BOT = 1 << 7;
export const SIG_ANYCAST = 1 << 8;

/** Enum tables: the stored byte is the index. */
export const RPKI_CODES = [null, 'valid', 'invalid', 'not-found', 'unknown'] as const;
export const CONNECTION_CODES = ['unknown', 'datacenter', 'satellite', 'mobile', 'isp'] as const;
export const EVIDENCE_CODES = ['authoritative', 'inferred', 'beta'] as const;

/** The JSON at the head of the payload. */
export interface SnapshotMeta {
  readonly format_version: number;
  readonly build_date: string;
  readonly attribution_url: string;
  readonly has_rpki: boolean;
  /** Full country name per ISO code used in the geo table (one entry per country, not per row). */
  readonly country_names: Readonly<Record<string, string>>;
  readonly sources: readonly import('../types.js').SourceInfo[];
  /** Evidence keys with no source in the snapshot. */
  readonly unavailable: readonly (keyof import('../types.js').Evidence)[];
  /**
   * IPv6 ranges as built (adjacent ranges with one answer merged), which the
   * builder reports. The index splits a range at each /32 group it spans, so
   * its entries can outnumber them (~0.7% in the world snapshot). Optional:
   * a file written before it counts the entries (decode.ts, ranges6Of).
   */
  readonly ranges_v6?: number;
  readonly columns: Readonly<Record<string, ColumnRef>>;
}
