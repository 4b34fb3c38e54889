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
  /** The table as signed words: >= 0 a leaf, < 0 a block (offset in the low 31 bits). */
  private readonly dir: Int32Array;
  private readonly blk: Uint8Array;
  private readonly shift: number;
  private readonly mask: number;
  private readonly groupEntries = new Int32Array(STAGE);

  /** The columns must have passed {@link checkV4}. */
  constructor(dir: Uint32Array, blk: Uint8Array) {
    this.dir = new Int32Array(dir.buffer, dir.byteOffset, dir.length);
    this.blk = blk;
    this.shift = 32 - Math.log2(dir.length);
    this.mask = 2 ** this.shift - 1;
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
   * answers as {@link leaf}, faster for many addresses.
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
 * Checks the IPv4 index against everything a lookup relies on: a table of
 * 2^b entries (b in 16..24), each a leaf below `leaves` or the offset of the
 * next record; records tiling `blk` exactly, each a map of one entry per
 * slice (a leaf below `leaves`, or the offset of the record's next slice
 * block) followed by its slice blocks with nothing between them, each with
 * k >= 1 increasing starts inside its slice and k + 1 leaves below
 * `leaves`. Returns the
 * number of ranges (runs of one leaf), for `info.counts`. Throws
 * `snapshot_corrupt`. (Loops split per shape: checks.ts says why.)
 */
export function checkV4(dir: Uint32Array, blk: Uint8Array, leaves: number): number {
  const bits = Math.log2(dir.length);
  if (!Number.isInteger(bits) || bits < V4_MIN_DIR_BITS || bits > V4_MAX_DIR_BITS) {
    throw corrupt(`v4.dir has ${dir.length} entries, not 2^${V4_MIN_DIR_BITS}..2^${V4_MAX_DIR_BITS}`, 'v4.dir');
  }
  // What the reader takes for granted: a map entry at or above 2^23 is a block's
  // offset, never a leaf (validateMain also bounds the leaf count), and an
  // offset fits 31 bits (lookupMany keeps them as ~offset in an Int32Array).
  if (leaves > V4_SLICE_BLOCK) throw corrupt(`${leaves} leaves, more than an IPv4 map can name (${V4_SLICE_BLOCK})`, 'leaf.ids');
  if (blk.length > 0x7fffffff) throw corrupt(`v4.blk has ${blk.length} bytes, more than 2^31 - 1`, 'v4.blk');
  const state = { words: new DataView(blk.buffer, blk.byteOffset, blk.byteLength), next: 0, ranges: 0, prev: -1 };
  const slices = 2 ** (32 - bits) / V4_SLICE;
  for (let d = 0; d < dir.length; ) {
    // Runs of direct entries, then one record: each loop stays on one path.
    d = directRun(dir, d, leaves, state);
    if (d < 0) throw corrupt('v4.dir holds a leaf id out of range', 'v4.dir');
    if (d === dir.length) break;
    if (dir[d]! - V4_BLOCK !== state.next || !checkRecord(blk, state, slices, leaves)) {
      throw corrupt(`v4.dir points at a malformed record (bucket ${d})`, 'v4.dir');
    }
    d++;
  }
  if (state.next !== blk.length) throw corrupt(`v4.blk: the records end at byte ${state.next} of ${blk.length}`, 'v4.blk');
  return state.ranges;
}

interface CheckState {
  /** `blk` as a DataView. */
  readonly words: DataView;
  /** Where the next record must start. */
  next: number;
  ranges: number;
  /** Leaf of the last piece seen. */
  prev: number;
}

/** Checks the direct entries from `d` on; returns the index of the first record entry (or the end), -1 for a bad leaf. */
function directRun(dir: Uint32Array, d: number, leaves: number, st: CheckState): number {
  let prev = st.prev;
  let ranges = st.ranges;
  for (; d < dir.length; d++) {
    const e = dir[d]!;
    if (e >= V4_BLOCK) break;
    if (e >= leaves) return -1;
    if (e !== prev) ranges++;
    prev = e;
  }
  st.prev = prev;
  st.ranges = ranges;
  return d;
}

/** Checks the record at `st.next` (a map of `slices` entries, then its slice blocks) and moves past it; false when it is malformed. */
function checkRecord(blk: Uint8Array, st: CheckState, slices: number, leaves: number): boolean {
  const o = st.next;
  let next = o + 3 * slices;
  if (next > blk.length) return false;
  let prev = st.prev;
  let ranges = st.ranges;
  // One 4-byte read per entry where the map is not the last bytes of `blk` (3 byte reads otherwise).
  const words = next + 1 <= blk.length ? st.words : null;
  for (let t = 0; t < slices; t++) {
    const v = words !== null ? words.getUint32(o + 3 * t, true) & 0xffffff : u24(blk, o + 3 * t);
    if (v < leaves) {
      // Counted by arithmetic: neighbouring slices share a leaf about as often
      // as not, and a branch on it was mispredicted half the time (2x the check).
      const x = v ^ prev;
      ranges += (x | -x) >>> 31;
      prev = v;
      continue;
    }
    if (v < V4_SLICE_BLOCK) return false;
    // The slice's block: the next one after the map and the blocks before it.
    const s = next;
    if (o + v - V4_SLICE_BLOCK !== s || s >= blk.length) return false;
    const k = blk[s]!;
    const end = s + 4 * k + 4;
    if (k < 1 || end > blk.length) return false;
    let last = 0;
    for (let q = 1; q <= k; q++) {
      const x = blk[s + q]!;
      if (x <= last) return false;
      last = x;
    }
    for (let j = s + 1 + k; j < end; j += 3) {
      const leaf = u24(blk, j);
      if (leaf >= leaves) return false;
      if (leaf !== prev) ranges++;
      prev = leaf;
    }
    next = end;
  }
  st.prev = prev;
  st.ranges = ranges;
  st.next = next;
  return true;
}
