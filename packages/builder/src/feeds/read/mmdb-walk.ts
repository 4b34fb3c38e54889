/**
 * Enumerates every network of a MaxMind DB (MMDB) file by walking its binary
 * search tree directly over the raw bytes, in address order, decoding each
 * distinct data record once (with mmdb-lib's own decoder).
 *
 * Why not `Reader.getWithPrefixLength` in a loop: that re-walks the tree from
 * the root for every network and re-decodes every record, ~24 s for the
 * DB-IP city IPv4 file and ~40 s for IPv6; one depth-first walk is O(nodes).
 *
 * File layout (MaxMind DB spec 2.0):
 *
 * ```
 * +---------------------------+ 0
 * | search tree               |  nodeCount nodes x (2 x recordSize bits)
 * +---------------------------+ searchTreeSize = nodeCount * recordSize / 4
 * | 16 zero bytes (separator) |
 * +---------------------------+ searchTreeSize + 16  = data section base
 * | data section              |  maps, strings, ... (MMDB encoding)
 * +---------------------------+
 * | "\xAB\xCD\xEFMaxMind.com" |  metadata marker + metadata map
 * +---------------------------+
 * ```
 *
 * Node layout (left record = bit 0, right record = bit 1):
 *
 * ```
 * 24-bit: | L23..L0 (3 bytes)              | R23..R0 (3 bytes) |
 * 28-bit: | L23..L0 (3 bytes) | L27..24 R27..24 (1 byte) | R23..R0 (3 bytes) |
 * 32-bit: | L31..L0 (4 bytes)              | R31..R0 (4 bytes) |
 * ```
 *
 * A record value `v`: `v < nodeCount` is a node; `v == nodeCount` means "no
 * data"; `v > nodeCount` points into the data section at
 * `v - nodeCount - 16` (the data offset used as the record key here).
 *
 * IPv4 in an IPv6 tree: MaxMind-style writers store IPv4 at `::/96` and make
 * other subtrees (`::ffff:0:0/96`, `2002::/16`, Teredo) point back at that
 * same node. The walker reports networks under `::/96` as IPv4 (start = low
 * 32 bits, length - 96) and skips every other edge into the IPv4 node
 * (counted as `aliases`), so each IPv4 network is reported exactly once.
 *
 * Invariants of the output: per version, networks come in ascending address
 * order and never overlap; every leaf of the tree is reported to the visitor
 * exactly once (data, empty or alias), so "no hole between two data leaves"
 * means "the two networks are adjacent".
 *
 * Complexity: O(nodeCount) time, O(treeDepth) stack, O(distinct records)
 * memory for the decoded records.
 *
 * @module
 */
import { createRequire } from 'node:module';
import { Reader } from 'mmdb-lib';
import type DecoderClass from 'mmdb-lib/lib/decoder.js';

const require = createRequire(import.meta.url);
// mmdb-lib is CommonJS without an exports map; its decoder is a default export.
const Decoder = (require('mmdb-lib/lib/decoder.js') as { default: typeof DecoderClass }).default;

/** Data section starts 16 bytes after the search tree (the separator). */
const DATA_SECTION_SEPARATOR = 16;

/** Visitor `offset` value for a leaf that holds no data. */
export const MMDB_EMPTY = -1;
/** Visitor `offset` value for an edge into the IPv4 subtree from outside `::/96`. */
export const MMDB_ALIAS = -2;

/** The parts of mmdb-lib's metadata the walker uses (plus the rest). */
export type MmdbMetadata = Reader<never>['metadata'];

/**
 * Called once per leaf, in address order. The address is four big-endian
 * u32 words of a 128-bit value; for `version` 4 only `w3` is meaningful and
 * `length` is 0..32. `offset` is the data-section offset, or `MMDB_EMPTY` /
 * `MMDB_ALIAS`.
 */
export type MmdbLeafVisitor = (
  version: 4 | 6,
  w0: number,
  w1: number,
  w2: number,
  w3: number,
  length: number,
  offset: number,
) => void;

export interface MmdbWalkStats {
  /** Tree nodes visited. */
  readonly nodes: number;
  /** Leaves that carry data (networks). */
  readonly networks: number;
  /** `networks` split by IP version (IPv4 in an IPv6 tree counts as 4). */
  readonly networksByVersion: { readonly 4: number; readonly 6: number };
  /** Leaves with no data. */
  readonly empty: number;
  /** Edges into the IPv4 subtree from outside `::/96` (skipped). */
  readonly aliases: number;
  /** Wall time of the walk, ms. */
  readonly ms: number;
}

export interface MmdbWalk<R> {
  readonly metadata: MmdbMetadata;
  readonly stats: MmdbWalkStats;
  /** Decoded record per data offset (each offset decoded once). */
  readonly records: Map<number, R>;
}

/** One network of the tree. `start` has its host bits cleared. */
export interface MmdbNetwork {
  readonly version: 4 | 6;
  readonly start: bigint;
  readonly length: number;
  /** Data-section offset of the record (key into `records`). */
  readonly offset: number;
}

/** A run of adjacent networks with the same value, inclusive bounds. */
export interface MmdbRange<V> {
  readonly first: bigint;
  readonly last: bigint;
  readonly record: V;
}

function asBuffer(data: Buffer | Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * Walks every leaf of the tree, calling `visit` in address order, and
 * decodes each distinct data record once into `records` (pass a map to
 * read records from inside `visit`).
 *
 * Throws on a structurally invalid tree (record pointing past the data
 * section, node deeper than the tree depth, shared subtrees other than the
 * IPv4 aliases).
 *
 * @example
 * const walk = walkMmdb(buf, (v, w0, w1, w2, w3, len, off) => { if (off >= 0) n++; });
 * walk.records.get(offset); // => { city: 'Mountain View', ... }
 */
export function walkMmdb<R = unknown>(
  data: Buffer | Uint8Array,
  visit: MmdbLeafVisitor,
  records: Map<number, R> = new Map(),
): MmdbWalk<R> {
  const t0 = performance.now();
  const buf = asBuffer(data);
  const metadata = new Reader<never>(buf).metadata;
  const { nodeCount, recordSize, searchTreeSize, treeDepth } = metadata;
  const nodeBytes = recordSize / 4;
  const dataBase = searchTreeSize + DATA_SECTION_SEPARATOR;
  if (treeDepth !== 32 && treeDepth !== 128) throw new Error(`mmdb: unsupported tree depth ${treeDepth}`);
  if (searchTreeSize + DATA_SECTION_SEPARATOR > buf.length) throw new Error('mmdb: search tree larger than the file');
  const dataSize = buf.length - dataBase;
  const decoder = new Decoder(buf, dataBase);
  const is6 = treeDepth === 128;
  const bitBase = 128 - treeDepth; // address bit index (0 = MSB of w0) of tree depth 0

  const left = (n: number): number => {
    const o = n * nodeBytes;
    if (recordSize === 24) return (buf[o]! << 16) | (buf[o + 1]! << 8) | buf[o + 2]!;
    if (recordSize === 28) return ((buf[o + 3]! & 0xf0) << 20) | (buf[o]! << 16) | (buf[o + 1]! << 8) | buf[o + 2]!;
    return buf.readUInt32BE(o);
  };
  const right = (n: number): number => {
    const o = n * nodeBytes;
    if (recordSize === 24) return (buf[o + 3]! << 16) | (buf[o + 4]! << 8) | buf[o + 5]!;
    if (recordSize === 28) return ((buf[o + 3]! & 0x0f) << 24) | (buf[o + 4]! << 16) | (buf[o + 5]! << 8) | buf[o + 6]!;
    return buf.readUInt32BE(o + 4);
  };

  // The IPv4 subtree of an IPv6 tree: the node reached by 96 left turns.
  let v4Node = -1;
  if (is6) {
    let n = 0;
    let d = 0;
    for (; d < 96 && n < nodeCount; d++) n = left(n);
    if (d === 96 && n < nodeCount) v4Node = n;
  }

  // Explicit DFS stack: record value, depth, 4 address words. Right child is
  // pushed before left, so leaves pop in ascending address order. The stack
  // never holds more than treeDepth + 1 entries.
  const cap = treeDepth + 2;
  const sVal = new Float64Array(cap);
  const sDepth = new Uint8Array(cap);
  const sW = new Uint32Array(cap * 4);
  let sp = 0;
  sVal[0] = 0;
  sDepth[0] = 0;
  sp = 1; // root = node 0 (with nodeCount 0 that is the "no data" record)

  let nodes = 0;
  let networks = 0;
  let networks4 = 0;
  let empty = 0;
  let aliases = 0;
  let lastOffset = -1;
  const seen = new Uint8Array((dataSize >>> 3) + 1); // bitmap: data offsets already decoded
  const nodeLimit = nodeCount * 2 + 16; // each node once (+ aliases); guards against cycles/DAGs

  while (sp > 0) {
    // 1. Pop.
    sp--;
    const v = sVal[sp]!;
    const d = sDepth[sp]!;
    const k = sp * 4;
    const w0 = sW[k]!;
    const w1 = sW[k + 1]!;
    const w2 = sW[k + 2]!;
    const w3 = sW[k + 3]!;
    const inV4 = is6 && v4Node >= 0 && d >= 96 && (w0 | w1 | w2) === 0;

    // 2. Inner node: push both children.
    if (v < nodeCount) {
      if (v === v4Node && !(d === 96 && (w0 | w1 | w2 | w3) === 0)) {
        aliases++;
        visit(6, w0, w1, w2, w3, d, MMDB_ALIAS);
        continue;
      }
      if (d >= treeDepth) throw new Error(`mmdb: node ${v} below the tree depth ${treeDepth}`);
      if (++nodes > nodeLimit) throw new Error('mmdb: tree has shared subtrees (cycle or DAG)');
      const p = bitBase + d; // address bit set by the right child
      const wi = p >>> 5;
      const bit = 1 << (31 - (p & 31));
      // Right child at sp, left child at sp + 1 (popped first).
      sVal[sp] = right(v);
      sDepth[sp] = d + 1;
      sW[k] = w0;
      sW[k + 1] = w1;
      sW[k + 2] = w2;
      sW[k + 3] = w3;
      sW[k + wi] = sW[k + wi]! | bit;
      const k2 = k + 4;
      sVal[sp + 1] = left(v);
      sDepth[sp + 1] = d + 1;
      sW[k2] = w0;
      sW[k2 + 1] = w1;
      sW[k2 + 2] = w2;
      sW[k2 + 3] = w3;
      sp += 2;
      continue;
    }

    // 3. Leaf: no data, or a data record.
    const version: 4 | 6 = is6 && !inV4 ? 6 : 4;
    const length = version === 4 ? d - (is6 ? 96 : 0) : d;
    if (v === nodeCount) {
      empty++;
      visit(version, w0, w1, w2, w3, length, MMDB_EMPTY);
      continue;
    }
    const offset = v - nodeCount - DATA_SECTION_SEPARATOR;
    if (offset < 0 || offset >= dataSize) throw new Error(`mmdb: record ${v} points outside the data section`);
    if (offset !== lastOffset && (seen[offset >>> 3]! & (1 << (offset & 7))) === 0) {
      seen[offset >>> 3] = seen[offset >>> 3]! | (1 << (offset & 7));
      if (!records.has(offset)) records.set(offset, decoder.decode(dataBase + offset).value as R);
    }
    lastOffset = offset;
    networks++;
    if (version === 4) networks4++;
    visit(version, w0, w1, w2, w3, length, offset);
  }

  return {
    metadata,
    records,
    stats: {
      nodes,
      networks,
      networksByVersion: { 4: networks4, 6: networks - networks4 },
      empty,
      aliases,
      ms: performance.now() - t0,
    },
  };
}

/** 128-bit value of four big-endian u32 words. */
function wordsToBigInt(w0: number, w1: number, w2: number, w3: number): bigint {
  return (BigInt(w0) << 96n) | (BigInt(w1) << 64n) | (BigInt(w2) << 32n) | BigInt(w3);
}

/**
 * Builds 128-bit BigInts from words with fewer allocations: the upper and
 * lower 64-bit halves are cached (consecutive IPv6 ranges mostly share their
 * upper half, and their lower half is mostly all-zeros or all-ones).
 */
class BigIntWords {
  private h0 = -1;
  private h1 = -1;
  private hi = 0n;
  private l2 = 0;
  private l3 = 0;
  private lo = 0n;

  of(w0: number, w1: number, w2: number, w3: number): bigint {
    if (w0 !== this.h0 || w1 !== this.h1) {
      this.h0 = w0;
      this.h1 = w1;
      this.hi = ((BigInt(w0) << 32n) | BigInt(w1)) << 64n;
    }
    if (w2 !== this.l2 || w3 !== this.l3) {
      this.l2 = w2;
      this.l3 = w3;
      this.lo = (BigInt(w2) << 32n) | BigInt(w3);
    }
    return this.lo === 0n ? this.hi : this.hi | this.lo;
  }
}

/** Growable u32 column. */
class U32s {
  a = new Uint32Array(1 << 16);
  n = 0;
  push(x: number): void {
    if (this.n === this.a.length) {
      const b = new Uint32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = x;
  }
}

/**
 * Every data network of the file as an array, with the decoded records.
 * Convenient for small files and tests; a full DB-IP file holds ~6 M
 * networks, so prefer `walkMmdb` or `mergeMmdbRanges` there.
 *
 * @example
 * const { networks, records } = listMmdbNetworks(buf);
 * // networks[0] => { version: 4, start: 16777216n, length: 24, offset: 0 }
 */
export function listMmdbNetworks<R = unknown>(data: Buffer | Uint8Array): MmdbWalk<R> & { networks: MmdbNetwork[] } {
  const networks: MmdbNetwork[] = [];
  const walk = walkMmdb<R>(data, (version, w0, w1, w2, w3, length, offset) => {
    if (offset < 0) return;
    const start = version === 4 ? BigInt(w3) : wordsToBigInt(w0, w1, w2, w3);
    networks.push({ version, start, length, offset });
  });
  return { ...walk, networks };
}

export interface MergeOptions<R, V, T> {
  /**
   * Value of a record; adjacent networks whose values are identical (`===`)
   * merge. Called once per distinct data offset. Default: the record itself
   * (so networks merge when they share a data offset).
   */
  readonly map?: (record: R, offset: number) => V;
  /**
   * Builds one output range from a run; null leaves the run out (a gap).
   * Default: `{ first, last, record: value }`.
   */
  readonly range?: (first: bigint, last: bigint, value: V) => T | null;
  /** IP versions to build ranges for (default both); the walk is the same. */
  readonly versions?: readonly (4 | 6)[];
}

export interface MmdbMerged<R, T> extends MmdbWalk<R> {
  /** Sorted, non-overlapping, maximal runs (adjacent equal values merged). */
  readonly v4: T[];
  readonly v6: T[];
}

/**
 * Walks the file and returns maximal runs of adjacent networks with the
 * same value, per IP version. Runs are collected as plain numbers during the
 * walk (IPv4 as u32, IPv6 as four u32 words) and turned into BigInt objects
 * in one pass at the end.
 *
 * @example
 * const { v4 } = mergeMmdbRanges(buf);
 * // v4[0] => { first: 16777216n, last: 16777471n, record: { city: 'South Brisbane', ... } }
 */
export function mergeMmdbRanges<R = unknown, V = R, T = MmdbRange<V>>(
  data: Buffer | Uint8Array,
  options: MergeOptions<R, V, T> = {},
): MmdbMerged<R, T> {
  const map = options.map;
  const records = new Map<number, R>();
  // Distinct values, compared by identity; runs refer to them by index.
  const values: V[] = [];
  const valueIndex = new Map<V, number>();
  const offsetValue = new Map<number, number>();
  // Runs, as u32 columns. v4: first, last, value. v6: first (4 words),
  // last (4 words), value.
  const r4 = new U32s();
  const r6 = new U32s();

  let runVer = 0; // 0 = no open run
  let runVal = -1;
  let lastOffset = -3;
  let lastVal = -1;
  // Start words and length of the open run's last network.
  let e0 = 0;
  let e1 = 0;
  let e2 = 0;
  let e3 = 0;
  let eLen = 0;

  const close = (): void => {
    if (runVer === 4) {
      r4.push(e3 + 2 ** (32 - eLen) - 1);
      r4.push(runVal);
    } else if (runVer === 6) {
      r6.push((e0 | hostMask(eLen, 0)) >>> 0);
      r6.push((e1 | hostMask(eLen, 1)) >>> 0);
      r6.push((e2 | hostMask(eLen, 2)) >>> 0);
      r6.push((e3 | hostMask(eLen, 3)) >>> 0);
      r6.push(runVal);
    }
    runVer = 0;
  };

  const walk = walkMmdb<R>(
    data,
    (version, w0, w1, w2, w3, length, offset) => {
      if (offset < 0) {
        close();
        return;
      }
      // 1. Value index of this record (cached for runs of the same offset).
      if (offset !== lastOffset) {
        let vi = offsetValue.get(offset);
        if (vi === undefined) {
          const rec = records.get(offset) as R;
          const value = map ? map(rec, offset) : (rec as unknown as V);
          vi = valueIndex.get(value);
          if (vi === undefined) {
            vi = values.length;
            values.push(value);
            valueIndex.set(value, vi);
          }
          offsetValue.set(offset, vi);
        }
        lastOffset = offset;
        lastVal = vi;
      }
      // 2. Extend the open run, or close it and open a new one.
      if (runVer !== version || runVal !== lastVal) {
        close();
        runVer = version;
        runVal = lastVal;
        if (version === 4) r4.push(w3);
        else {
          r6.push(w0);
          r6.push(w1);
          r6.push(w2);
          r6.push(w3);
        }
      }
      e0 = w0;
      e1 = w1;
      e2 = w2;
      e3 = w3;
      eLen = length;
    },
    records,
  );
  close();

  // 3. Materialise.
  const make = options.range ?? ((first: bigint, last: bigint, record: V) => ({ first, last, record }) as T);
  const want = options.versions ?? [4, 6];
  const v4: T[] = [];
  const a4 = r4.a;
  for (let j = 0; want.includes(4) && j < r4.n; j += 3) {
    const out = make(BigInt(a4[j]!), BigInt(a4[j + 1]!), values[a4[j + 2]!]!);
    if (out !== null) v4.push(out);
  }
  const v6: T[] = [];
  const a6 = r6.a;
  const firsts = new BigIntWords();
  const lasts = new BigIntWords();
  for (let j = 0; want.includes(6) && j < r6.n; j += 9) {
    const first = firsts.of(a6[j]!, a6[j + 1]!, a6[j + 2]!, a6[j + 3]!);
    const last = lasts.of(a6[j + 4]!, a6[j + 5]!, a6[j + 6]!, a6[j + 7]!);
    const out = make(first, last, values[a6[j + 8]!]!);
    if (out !== null) v6.push(out);
  }
  return { ...walk, v4, v6 };
}

/** Host-bit mask of word `i` (0 = most significant) for a /`length` IPv6 prefix. */
function hostMask(length: number, i: number): number {
  const lo = i * 32;
  if (length <= lo) return 0xffffffff;
  if (length >= lo + 32) return 0;
  return 2 ** (32 - (length - lo)) - 1;
}
