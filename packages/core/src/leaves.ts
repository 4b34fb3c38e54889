/**
 * Leaf-level access to a snapshot (see internal.ts, which exports these to
 * ipintel's own packages).
 *
 * @module
 */
import { IpIntelError } from './errors.js';
import { INTERNAL, IpIntel as Intel, type IntelInternals, type IpIntel, type LoadOptions } from './intel.js';
import type { SharedAlloc, SharedSnapshot } from './shared.js';
import { ARRAY_OF, trustedDecoded, type Columns, type MainColumns } from './snapshot/decode.js';
import { COLUMNS, V6_COLUMNS, type ColumnName } from './snapshot/format.js';
import { flatRanges4, flatRanges6, type FlatRanges } from './snapshot/walk.js';
import type { RecordCells } from './snapshot/cells.js';
import type { V4Index } from './snapshot/v4-index.js';
import type { CheckResult } from './types.js';

const of = (intel: IpIntel): IntelInternals => intel[INTERNAL] as IntelInternals;

/**
 * An IpIntel as the raw lookups read it: its private field `v4` (the IPv4
 * index), read by name. At ~40-50 ns a raw lookup, the path to the table
 * counts: through the internals (the symbol-keyed object, then the
 * RangeIndex, then its `v4`) `leafOfIPv4` ran at 0.79-0.89x of its rate
 * now (docs/design.md, "Fourteenth round").
 */
interface WithV4 {
  readonly v4: V4Index;
}

function checkLeaf(x: IntelInternals, leaf: number): void {
  if (!(Number.isInteger(leaf) && leaf >= 0 && leaf < x.leafCount)) throw new IpIntelError('invalid_input', `leaf id ${leaf} is out of range`);
}

/**
 * Raw index lookup: the leaf id of an IPv4 address given as an unsigned
 * 32-bit number. No parsing, no result object (benchmarks, byte readers).
 *
 * @example
 * leafOfIPv4(intel, 0x08080808) // => the leaf 8.8.8.8 maps to
 */
export function leafOfIPv4(intel: IpIntel, addr: number): number {
  return (intel as unknown as WithV4).v4.leaf(addr >>> 0);
}

/**
 * Raw index lookups for many IPv4 addresses at once: the leaf id of
 * `addrs[i]` (unsigned 32-bit numbers) into `out[i]`, the same answers as
 * {@link leafOfIPv4}. The work is done in stages over groups of addresses,
 * so the memory reads of independent addresses overlap; a caller's own tight
 * loop of leafOfIPv4 overlaps them too. The two ran about alike (0.91-1.18x
 * its rate in the README runs of 2026-12-01 and -02, pnpm bench) until the
 * loop's fields became constants (docs/design.md, "Twenty-second round"):
 * 0.69x in that round's README run (21.2 against 30.7 M/s). The same loop
 * inside this call ran no faster than the stages (19.3-25.6 against
 * 24.4-25.2 M/s in the bench's harness), so the stages stay.
 * Throws `invalid_input` unless both are Uint32Arrays and `out` is at least
 * as long as `addrs`.
 *
 * @example
 * const out = new Uint32Array(addrs.length); lookupMany(intel, addrs, out);
 */
export function lookupMany(intel: IpIntel, addrs: Uint32Array, out: Uint32Array): void {
  if (!(addrs instanceof Uint32Array) || !(out instanceof Uint32Array) || out.length < addrs.length) {
    throw new IpIntelError('invalid_input', 'lookupMany expects a Uint32Array of addresses and a Uint32Array at least as long for the leaf ids');
  }
  (intel as unknown as WithV4).v4.lookupMany(addrs, out, 0, addrs.length);
}

/**
 * The record ids of a leaf, for callers that cache work per record (the
 * CLI's batch writer caches serialised parts by id): out[0] geo row, out[1]
 * network row, out[2] signal set. Throws `invalid_input` for a leaf out of range.
 */
export function leafRecords(intel: IpIntel, leaf: number, out: Uint32Array): void {
  const x = of(intel);
  checkLeaf(x, leaf);
  x.records(leaf, out, 0);
}

/**
 * {@link leafRecords} for `leaves[0, n)`: the ids of leaf `leaves[j]` into
 * `out[3j .. 3j+2]`. One call for a group of leaves, so that their reads
 * overlap (the CLI's batch writer stages its rows this way). Throws
 * `invalid_input` for a leaf out of range or an `out` too short.
 */
export function leafRecordsMany(intel: IpIntel, leaves: Uint32Array, n: number, out: Uint32Array): void {
  const x = of(intel);
  if (!(Number.isInteger(n) && n >= 0 && n <= leaves.length && out.length >= 3 * n)) throw new IpIntelError('invalid_input', 'leafRecordsMany: n or out does not fit');
  for (let j = 0; j < n; j++) if (leaves[j]! >= x.leafCount) checkLeaf(x, leaves[j]!);
  for (let j = 0; j < n; j++) x.records(leaves[j]!, out, 3 * j);
}

/**
 * The geo row and network/signal pair of leaves `leaves[0, n)`: leaf
 * `leaves[j]`'s into `out[2j]` and `out[2j + 1]`. The pair decides every
 * record but the geo row (network row, signal set: {@link pairRecords}), so
 * a caller that caches work per pair needs nothing else per leaf (the CLI's
 * batch writer). Throws `invalid_input` for a leaf out of range or an `out`
 * too short.
 */
export function leafGeoPairsMany(intel: IpIntel, leaves: Uint32Array, n: number, out: Uint32Array): void {
  const x = of(intel);
  if (!(leaves instanceof Uint32Array && out instanceof Uint32Array && Number.isInteger(n) && n >= 0 && n <= leaves.length && out.length >= 2 * n)) {
    throw new IpIntelError('invalid_input', 'leafGeoPairsMany: leaves and out must be Uint32Arrays that n fits');
  }
  for (let j = 0; j < n; j++) if (leaves[j]! >= x.leafCount) checkLeaf(x, leaves[j]!);
  for (let j = 0; j < n; j++) x.geoPair(leaves[j]!, out, 2 * j);
}

/**
 * The records of network/signal pair `pair`: out[0] network row, out[1]
 * signal set (the same ids {@link leafRecords} gives for a leaf of that
 * pair). Throws `invalid_input` for a pair out of range.
 */
export function pairRecords(intel: IpIntel, pair: number, out: Uint32Array): void {
  const x = of(intel);
  if (!(Number.isInteger(pair) && pair >= 0 && pair < x.pairCount)) throw new IpIntelError('invalid_input', `pair id ${pair} is out of range`);
  if (!(out instanceof Uint32Array && out.length >= 2)) throw new IpIntelError('invalid_input', 'pairRecords: out must be a Uint32Array of at least 2');
  x.pairRecords(pair, out, 0);
}

/** Number of network/signal pairs (valid pair ids are 0..pairCount-1). */
export function pairCount(intel: IpIntel): number {
  return of(intel).pairCount;
}

/**
 * Space held by each leaf: `v4[leaf]` IPv4 addresses, `v6[leaf]` IPv6 /64
 * blocks (fractional inside /64s split finer). One pass over the index;
 * decodes the IPv6 columns if they wait for their first use (throws
 * `snapshot_corrupt` as an IPv6 check would).
 */
export function leafCoverage(intel: IpIntel): { v4: Float64Array; v6: Float64Array } {
  const x = of(intel);
  return x.index.coverage(x.leafCount);
}

/** The native result of a leaf, carrying the given address text and version (tools that iterate leaves). */
export function resultForLeaf(intel: IpIntel, leaf: number, ip: string, version: 4 | 6): CheckResult {
  const x = of(intel);
  checkLeaf(x, leaf);
  return x.assemble(leaf, ip, version);
}

/**
 * Opens a snapshot shared by another thread of this process
 * (`IpIntel#share()`) without checking its invariants again: the column
 * types are checked, the O(n) pass over the index and tables is not. Only
 * for an object that came from `share()` of a snapshot this process opened
 * (the CLI's batch workers: the main thread opened and checked it); anything
 * else goes through `fromShared()`. IPv6 columns shared as stored
 * (`v6Stored`) are decoded and checked on the first IPv6 lookup with
 * `options.inflate`, which is then required (`nodeInflate` in Node). Throws
 * `invalid_input` when a column is missing or mistyped.
 */
export function fromSharedTrusted(shared: SharedSnapshot, options?: LoadOptions): IpIntel {
  const cols = shared?.columns as Readonly<Record<string, unknown>> | undefined;
  const stored = (shared?.v6Stored ?? undefined) as Readonly<Record<string, unknown>> | undefined;
  const typed = (n: ColumnName): boolean =>
    stored !== undefined && (V6_COLUMNS as readonly ColumnName[]).includes(n) ? stored[n] instanceof Uint8Array : cols![n] instanceof ARRAY_OF[COLUMNS[n]];
  const ok = cols !== undefined && (shared.ranges4 === undefined || Number.isInteger(shared.ranges4)) && (Object.keys(COLUMNS) as ColumnName[]).every(typed);
  if (!ok) throw new IpIntelError('invalid_input', 'fromSharedTrusted expects the object IpIntel#share() returns');
  // IPv6 columns shared as stored are decoded on first use with the caller's inflater (this module has no default).
  return new Intel(trustedDecoded(shared.meta, cols as unknown as Columns, shared.ranges4, stored, options?.inflate), options);
}

/**
 * A snapshot's record fields as CSV cells written straight from its columns
 * (the CLI's batch writer: snapshot/cells.ts), the same bytes as `csvCell`
 * of the result's values. One object per snapshot.
 */
export function recordCells(intel: IpIntel): RecordCells {
  return of(intel).cells();
}

/**
 * The snapshot's decoded columns but the IPv6 index's (names and layouts in
 * snapshot/format.ts; the IPv4 index's table has 2^dirBits entries), for
 * readers that copy them into memory of their own: the CLI's batch kernel
 * (WebAssembly). Views of the snapshot's own columns, which were checked at
 * load: read them, never write them.
 */
export function snapshotColumns(intel: IpIntel): { readonly dirBits: number; readonly columns: MainColumns } {
  const columns = of(intel).columns;
  return { dirBits: Math.log2(columns['v4.dir'].length), columns };
}

/**
 * `intel.share()`, with each column copied into memory that `alloc` gives
 * (`byteLength` bytes of a SharedArrayBuffer, at a multiple of 8): the CLI's
 * batch puts them in the WebAssembly memory its threads and kernel share, so
 * that one copy serves both. Open the result with fromShared or, in this
 * process, fromSharedTrusted. Each call copies; share() keeps its own.
 */
export function shareInto(intel: IpIntel, alloc: SharedAlloc): SharedSnapshot {
  return of(intel).shareInto(alloc);
}

/**
 * Whether `v` is an IpIntel (open(), openSync(), loadSnapshot()), for the
 * packages that take one from a caller and must refuse anything else with a
 * typed error rather than a TypeError from deep inside. By its internals,
 * keyed by a registered symbol, not by `instanceof`: an IpIntel from core's
 * CommonJS build is not an instance of the ES build's class, and is valid.
 */
export function isIpIntel(v: unknown): v is IpIntel {
  return typeof v === 'object' && v !== null && typeof (v as { [INTERNAL]?: unknown })[INTERNAL] === 'object' && (v as { [INTERNAL]?: unknown })[INTERNAL] !== null;
}

/** Number of leaves (valid ids are 0..leafCount-1). */
export function leafCount(intel: IpIntel): number {
  return of(intel).leafCount;
}

/**
 * Every range of one family, in address order, with its leaf: the whole
 * index as flat arrays (see {@link FlatRanges}; IPv6 sub-tables spliced in).
 * One pass over the index columns; for exporters, not for lookups. For
 * IPv6, decodes the IPv6 columns if they wait for their first use (throws
 * `snapshot_corrupt` as an IPv6 check would).
 *
 * @example
 * const r = flatRanges(intel, 4); r.starts[0] // => 0 (range 0 starts at 0.0.0.0), leaf r.leaves[0]
 */
export function flatRanges(intel: IpIntel, version: 4 | 6): FlatRanges {
  const x = of(intel);
  return version === 4 ? flatRanges4(x.index.arrays4) : flatRanges6(x.index.v6.columns);
}
