/**
 * The IPv4 index: the hot path of every IPv4 check. Layout in format.ts,
 * reasons in docs/design.md.
 *
 * A lookup is one read of the direct table (4 MB for a world snapshot, so it
 * mostly stays in the CPU's last-level cache), which answers at once for a
 * bucket held by one range (about half of random public addresses); else one
 * read of the bucket's map, which answers for a /24 held by one range (all
 * but ~3% of the rest); else a search of that /24's small block. Nothing
 * allocates.
 *
 * `lookupMany` does the same for many addresses in stages (all table reads
 * of a group, then all map reads, then the searches), so the cache misses
 * of independent addresses overlap instead of queueing one behind another.
 *
 * @module
 */
import { corrupt } from '../errors.js';
import { V4_BLOCK, V4_MAX_DIR_BITS, V4_MIN_DIR_BITS, V4_SLICE, V4_SLICE_BLOCK } from './format.js';

/** Addresses per stage of lookupMany: enough to overlap misses, few enough that the scratch stays in L1. */
const STAGE = 256;

/** The 24-bit little-endian id at byte i. */
export function u24(b: Uint8Array, i: number): number {
  return b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);
}

/** Leaf of offset `low` (0..255) in the slice block at `s`: k, k starts (u8), k + 1 leaves. */
function sliceLeaf(b: Uint8Array, s: number, low: number): number {
  const k = b[s]!;
  let j = 0;
  if (k <= 16) {
    // Short blocks (most): a scan over one cache line.
    while (j < k && b[s + 1 + j]! <= low) j++;
  } else {
    let r = k;
    while (j < r) {
      const m = (j + r) >>> 1;
      if (b[s + 1 + m]! <= low) j = m + 1;
      else r = m;
    }
  }
  return u24(b, s + 1 + k + 3 * j);
}

/**
 * Calls `emit(offset, leaf)` for the pieces of the bucket whose table entry
 * (unsigned) is `entry`, in order, offsets inside the bucket of `size`
 * addresses; neighbouring pieces may share a leaf (slices that do).
 */
export function eachPiece(blk: Uint8Array, entry: number, size: number, emit: (at: number, leaf: number) => void): void {
  if (entry < V4_BLOCK) {
    emit(0, entry);
    return;
  }
  const o = entry - V4_BLOCK;
  for (let t = 0; t < size / V4_SLICE; t++) {
    const v = u24(blk, o + 3 * t);
    const at = t * V4_SLICE;
    if (v < V4_SLICE_BLOCK) {
      emit(at, v);
      continue;
    }
    const s = o + v - V4_SLICE_BLOCK;
    const k = blk[s]!;
    const leaves = s + 1 + k;
    emit(at, u24(blk, leaves));
    for (let q = 1; q <= k; q++) emit(at + blk[s + q]!, u24(blk, leaves + 3 * q));
  }
}

/** One piece of a bucket: from offset `at` to the next piece, answered by `leaf`. */
interface Segment {
  readonly at: number;
  readonly leaf: number;
}

export class V4Index {
  // The fields are declared, not defined (`declare`: TypeScript emits no field definition for them),
  // and the constructor assigns each once. A defined field is first set to undefined when the object
  // is made, so the constructor's value is its second: V8 then keeps it as a mutable field and each
  // lookup loads it and checks what it holds. Assigned once, it is a constant that optimised code
  // embeds: leafOfIPv4 ran 1.3-1.7x as fast (docs/design.md, "Twenty-second round").
  /** The table as signed words: >= 0 a leaf, < 0 a block (offset in the low 31 bits). */
  private declare readonly dir: Int32Array;
  private declare readonly blk: Uint8Array;
  private declare readonly shift: number;
  private declare readonly mask: number;
  private declare readonly groupEntries: Int32Array;

  /** The columns must have passed {@link checkV4}. */
  constructor(dir: Uint32Array, blk: Uint8Array) {
    this.dir = new Int32Array(dir.buffer, dir.byteOffset, dir.length);
    this.blk = blk;
    this.shift = 32 - Math.log2(dir.length);
    this.mask = 2 ** this.shift - 1;
    this.groupEntries = new Int32Array(STAGE);
  }

  /** Leaf id of an IPv4 address (an unsigned 32-bit number). */
  leaf(addr: number): number {
    const e = this.dir[addr >>> this.shift]!;
    if (e >= 0) return e;
    const o = e & 0x7fffffff;
    const b = this.blk;
    const v = u24(b, o + 3 * ((addr & this.mask) >>> 8));
    if (v < V4_SLICE_BLOCK) return v;
    return sliceLeaf(b, o + v - V4_SLICE_BLOCK, addr & 0xff);
  }

  /**
   * Leaf ids of `addrs[from, to)` into `out[from, to)`, in stages: the same
   * answers as {@link leaf}, with the reads of a group's addresses overlapping
   * (checkBatch's and lookupMany's path; leaves.ts has how it compares with a
   * caller's loop of leaf).
   */
  lookupMany(addrs: Uint32Array, out: Uint32Array, from: number, to: number): void {
    const dir = this.dir;
    const b = this.blk;
    const shift = this.shift;
    const mask = this.mask;
    const ent = this.groupEntries;
    for (let g = from; g < to; g += STAGE) {
      const end = Math.min(to, g + STAGE);
      // 1. Table entries (independent reads).
      for (let i = g; i < end; i++) ent[i - g] = dir[addrs[i]! >>> shift]!;
      // 2. Map entries (independent reads): a leaf, or ~offset of the slice's block.
      for (let i = g; i < end; i++) {
        const e = ent[i - g]!;
        if (e >= 0) continue;
        const o = e & 0x7fffffff;
        const v = u24(b, o + 3 * ((addrs[i]! & mask) >>> 8));
        ent[i - g] = v < V4_SLICE_BLOCK ? v : ~(o + v - V4_SLICE_BLOCK);
      }
      // 3. Answers, and the searches of slice blocks.
      for (let i = g; i < end; i++) {
        const e = ent[i - g]!;
        out[i] = e >= 0 ? e : sliceLeaf(b, ~e, addrs[i]! & 0xff);
      }
    }
  }

  /** The pieces of bucket `d` in order (off the hot path: allocates). */
  private segments(d: number): Segment[] {
    const out: Segment[] = [];
    eachPiece(this.blk, this.dir[d]! >>> 0, this.mask + 1, (at, leaf) => out.push({ at, leaf }));
    return out;
  }

  /**
   * First and last address of the run of addresses around `addr` that share
   * its leaf (off the hot path: walks bucket by bucket over long runs).
   */
  bounds(addr: number): [number, number] {
    const size = this.mask + 1;
    const leaf = this.leaf(addr);
    const buckets = this.dir.length;
    // 1. Backwards: the run's first piece, maybe in an earlier bucket.
    let d = addr >>> this.shift;
    let segs = this.segments(d);
    let j = segmentOf1(segs, addr & this.mask);
    let start: number;
    for (;;) {
      while (j > 0 && segs[j - 1]!.leaf === leaf) j--;
      if (j > 0 || d === 0) {
        start = d * size + segs[j]!.at;
        break;
      }
      const prev = this.segments(d - 1);
      if (prev[prev.length - 1]!.leaf !== leaf) {
        start = d * size;
        break;
      }
      d--;
      segs = prev;
      j = prev.length - 1;
    }
    // 2. Forwards: the run's last piece, maybe in a later bucket.
    d = addr >>> this.shift;
    segs = this.segments(d);
    j = segmentOf1(segs, addr & this.mask);
    let end: number;
    for (;;) {
      while (j + 1 < segs.length && segs[j + 1]!.leaf === leaf) j++;
      if (j + 1 < segs.length) {
        end = d * size + segs[j + 1]!.at - 1;
        break;
      }
      if (d + 1 === buckets) {
        end = 0xffffffff;
        break;
      }
      const next = this.segments(d + 1);
      if (next[0]!.leaf !== leaf) {
        end = (d + 1) * size - 1;
        break;
      }
      d++;
      segs = next;
      j = 0;
    }
    return [start, end];
  }

  /** Adds the IPv4 addresses each leaf holds into `into[leaf]`. */
  coverage(into: Float64Array): void {
    const size = this.mask + 1;
    for (let d = 0; d < this.dir.length; d++) {
      const segs = this.segments(d);
      for (let q = 0; q < segs.length; q++) {
        const next = q + 1 < segs.length ? segs[q + 1]!.at : size;
        into[segs[q]!.leaf]! += next - segs[q]!.at;
      }
    }
  }
}

/** Index of the last piece starting at or before `low`. */
function segmentOf1(segs: readonly Segment[], low: number): number {
  let j = 0;
  while (j + 1 < segs.length && segs[j + 1]!.at <= low) j++;
  return j;
}

/**
 * Table entries checked per call of the check's loops. The check runs once
 * per load, cold: V8 optimises a function called over and over sooner than
 * one long-running loop (on-stack replacement), so the pass over a world
 * snapshot's 2^20 entries runs in calls of this many (docs/design.md,
 * "Seventeenth round").
 */
const CHECK_CHUNK = 16384;

/**
 * Checks the IPv4 index against everything a lookup relies on: a table of
 * 2^b entries (b in 16..24), each a leaf below `leaves` or the offset of the
 * next record; records tiling `blk` exactly, each a map of one entry per
 * slice (a leaf below `leaves`, or the offset of the record's next slice
 * block) followed by its slice blocks with nothing between them, each with
 * k >= 1 increasing starts inside its slice and k + 1 leaves below
 * `leaves`. Throws `snapshot_corrupt`. It does not count the ranges: the
 * count ({@link rangeCount4}) is made when someone asks for it.
 */
export function checkV4(dir: Uint32Array, blk: Uint8Array, leaves: number): void {
  const bits = Math.log2(dir.length);
  if (!Number.isInteger(bits) || bits < V4_MIN_DIR_BITS || bits > V4_MAX_DIR_BITS) {
    throw corrupt(`v4.dir has ${dir.length} entries, not 2^${V4_MIN_DIR_BITS}..2^${V4_MAX_DIR_BITS}`, 'v4.dir');
  }
  // What the reader takes for granted: a map entry at or above 2^23 is a block's
  // offset, never a leaf (validateTables also bounds the leaf count), and an
  // offset fits 31 bits (lookupMany keeps them as ~offset in an Int32Array).
  if (leaves > V4_SLICE_BLOCK) throw corrupt(`${leaves} leaves, more than an IPv4 map can name (${V4_SLICE_BLOCK})`, 'leaf.ids');
  if (blk.length > 0x7fffffff) throw corrupt(`v4.blk has ${blk.length} bytes, more than 2^31 - 1`, 'v4.blk');
  const slices = 2 ** (32 - bits) / V4_SLICE;
  // A map of 4n entries is 12n bytes and a block 4k + 4, so in a well-formed
  // index every record starts at a multiple of 4 and its map can be read as
  // words, four entries from three: 2x the speed of byte reads. Maps of 1 or
  // 2 entries (tables of 2^24, 2^23), or bytes not 4-aligned, take the byte loop.
  const words = slices % 4 === 0 && blk.byteOffset % 4 === 0 ? new Uint32Array(blk.buffer, blk.byteOffset, blk.length >>> 2) : null;
  let next = 0;
  for (let d = 0; d < dir.length; d += CHECK_CHUNK) {
    const to = Math.min(dir.length, d + CHECK_CHUNK);
    next = words !== null ? recordsByWords(dir, d, to, blk, words, slices, leaves, next) : recordsByBytes(dir, d, to, blk, slices, leaves, next);
    if (next < 0) {
      const bad = ~next;
      if (dir[bad]! < V4_BLOCK) throw corrupt('v4.dir holds a leaf id out of range', 'v4.dir');
      throw corrupt(`v4.dir points at a malformed record (bucket ${bad})`, 'v4.dir');
    }
  }
  if (next !== blk.length) throw corrupt(`v4.blk: the records end at byte ${next} of ${blk.length}`, 'v4.blk');
}

/**
 * Checks the buckets `dir[from, to)`, whose first record must start at byte
 * `next` of `blk`, reading each map as words (`words` views `blk`; `slices`
 * a multiple of 4); returns where the next record must start, or `~d` for
 * the first bad bucket d.
 */
function recordsByWords(dir: Uint32Array, from: number, to: number, blk: Uint8Array, words: Uint32Array, slices: number, leaves: number, next: number): number {
  const n = blk.length;
  const mapWords = (3 * slices) >>> 2;
  for (let d = from; d < to; d++) {
    const e = dir[d]!;
    if (e < V4_BLOCK) {
      if (e >= leaves) return ~d;
      continue;
    }
    const o = next;
    next = o + 3 * slices;
    if (e - V4_BLOCK !== o || next > n) return ~d;
    for (let q = o >>> 2, end = q + mapWords; q < end; q += 3) {
      const a = words[q]!;
      const b = words[q + 1]!;
      const c = words[q + 2]!;
      const e0 = a & 0xffffff;
      const e1 = (a >>> 24) | ((b & 0xffff) << 8);
      const e2 = (b >>> 16) | ((c & 0xff) << 16);
      const e3 = c >>> 8;
      // Most entries are leaves; a block's entry (or a bad one) is checked with its block.
      if (e0 < leaves && e1 < leaves && e2 < leaves && e3 < leaves) continue;
      // One call of blockEnd, not one per entry: V8 inlines each call, and with four this
      // function's optimised code took ~4x as long to compile (27 against 7.6 ms), which the
      // load, running the check once and cold, waited for (docs/design.md, "Twenty-first round").
      for (let k = 0; k < 4; k++) {
        const v = k === 0 ? e0 : k === 1 ? e1 : k === 2 ? e2 : e3;
        if (v >= leaves && (next = blockEnd(blk, o, v, next, leaves)) < 0) return ~d;
      }
    }
  }
  return next;
}

/**
 * {@link recordsByWords} for any map length and alignment: the map's entries
 * read as bytes. Two functions rather than one with a branch per map: each
 * keeps one loop shape, which V8 optimises once (checks.ts says why).
 */
function recordsByBytes(dir: Uint32Array, from: number, to: number, blk: Uint8Array, slices: number, leaves: number, next: number): number {
  const n = blk.length;
  for (let d = from; d < to; d++) {
    const e = dir[d]!;
    if (e < V4_BLOCK) {
      if (e >= leaves) return ~d;
      continue;
    }
    const o = next;
    next = o + 3 * slices;
    if (e - V4_BLOCK !== o || next > n) return ~d;
    for (let i = o; i < o + 3 * slices; i += 3) {
      const v = u24(blk, i);
      if (v >= leaves && (next = blockEnd(blk, o, v, next, leaves)) < 0) return ~d;
    }
  }
  return next;
}

/**
 * A map entry `v` of the record at `o` that is not a leaf: it must be the
 * offset of the slice block that starts at `s` (the next byte after the map
 * and the blocks before it), a whole block of k >= 1 increasing starts and
 * k + 1 leaves below `leaves`. Returns the block's end, or -1.
 */
function blockEnd(blk: Uint8Array, o: number, v: number, s: number, leaves: number): number {
  if (v < V4_SLICE_BLOCK || o + v - V4_SLICE_BLOCK !== s || s >= blk.length) return -1;
  const k = blk[s]!;
  const end = s + 4 * k + 4;
  if (k < 1 || end > blk.length) return -1;
  let last = 0;
  for (let q = 1; q <= k; q++) {
    const x = blk[s + q]!;
    if (x <= last) return -1;
    last = x;
  }
  for (let j = s + 1 + k; j < end; j += 3) if (u24(blk, j) >= leaves) return -1;
  return end;
}

/**
 * IPv4 ranges (runs of one leaf, in address order) of an index that passed
 * {@link checkV4}: what `info.counts.ipv4_ranges` says. A walk of every
 * piece (~0.1 s for a world snapshot), made on first read of the count, not
 * at load.
 */
export function rangeCount4(dir: Uint32Array, blk: Uint8Array): number {
  let ranges = 0;
  let prev = -1;
  const piece = (_at: number, leaf: number): void => {
    if (leaf !== prev) ranges++;
    prev = leaf;
  };
  const size = 2 ** (32 - Math.log2(dir.length));
  for (let d = 0; d < dir.length; d++) eachPiece(blk, dir[d]!, size, piece);
  return ranges;
}
