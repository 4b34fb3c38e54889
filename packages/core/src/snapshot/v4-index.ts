/**
 * The IPv4 index: the hot path of every IPv4 check. Layout in format.ts,
 * reasons in docs/design.md.
 *
 * A lookup is one read of the direct table (4 MB for a world snapshot, so it
 * mostly stays in the CPU's last-level cache), which answers at once for a
 * bucket held by one range (about half of random public addresses); else one
 * block, whose starts and leaves are stored together so that the search and
 * the answer usually share one cache line. Nothing allocates.
 *
 * `lookupMany` does the same for many addresses in stages (all table reads
 * of a group, then all block headers, then the searches), so the cache misses
 * of independent addresses overlap instead of queueing one behind another.
 *
 * @module
 */
import { corrupt } from '../errors.js';
import { V4_BLOCK, V4_MAX_DIR_BITS, V4_MIN_DIR_BITS } from './format.js';

/** Addresses per stage of lookupMany: enough to overlap misses, few enough that the scratch stays in L1. */
const STAGE = 256;

/** The 24-bit little-endian id at byte i. */
export function u24(b: Uint8Array, i: number): number {
  return b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);
}

/** The 16-bit little-endian number at byte i. */
export function u16(b: Uint8Array, i: number): number {
  return b[i]! | (b[i + 1]! << 8);
}

/** Index among a block's starts (0..k) of the segment holding offset `low`: the count of starts <= low. */
function segmentOf(b: Uint8Array, o: number, k: number, low: number): number {
  const s = o + 2;
  if (k <= 8) {
    // Short blocks (most): a scan over one cache line.
    let j = 0;
    while (j < k && u16(b, s + 2 * j) <= low) j++;
    return j;
  }
  let l = 0;
  let r = k;
  while (l < r) {
    const m = (l + r) >>> 1;
    if (u16(b, s + 2 * m) <= low) l = m + 1;
    else r = m;
  }
  return l;
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
    const k = u16(b, o);
    return u24(b, o + 2 + 2 * k + 3 * segmentOf(b, o, k, addr & this.mask));
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
      // 2. Block headers: start every block's first cache line loading before any search waits on one.
      let touch = 0;
      for (let i = g; i < end; i++) {
        const e = ent[i - g]!;
        if (e < 0) touch += b[e & 0x7fffffff]!;
      }
      // 3. Direct answers and block searches.
      for (let i = g; i < end; i++) {
        const e = ent[i - g]!;
        if (e >= 0) {
          out[i] = e;
          continue;
        }
        const o = e & 0x7fffffff;
        const k = u16(b, o);
        out[i] = u24(b, o + 2 + 2 * k + 3 * segmentOf(b, o, k, addrs[i]! & mask));
      }
      if (touch < 0) throw new Error('unreachable');
    }
  }

  /** The pieces of bucket `d` in order (off the hot path: allocates). */
  private segments(d: number): Segment[] {
    const e = this.dir[d]!;
    if (e >= 0) return [{ at: 0, leaf: e }];
    const o = e & 0x7fffffff;
    const b = this.blk;
    const k = u16(b, o);
    const leaves = o + 2 + 2 * k;
    const out: Segment[] = [{ at: 0, leaf: u24(b, leaves) }];
    for (let q = 1; q <= k; q++) out.push({ at: u16(b, o + 2 * q), leaf: u24(b, leaves + 3 * q) });
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
 * next block; blocks tiling `blk` exactly, each with k >= 1 increasing
 * starts inside its bucket and k + 1 leaves below `leaves`. Returns the
 * number of ranges (runs of one leaf), for `info.counts`. Throws
 * `snapshot_corrupt`. (Loops split per shape: checks.ts says why.)
 */
export function checkV4(dir: Uint32Array, blk: Uint8Array, leaves: number): number {
  const bits = Math.log2(dir.length);
  if (!Number.isInteger(bits) || bits < V4_MIN_DIR_BITS || bits > V4_MAX_DIR_BITS) {
    throw corrupt(`v4.dir has ${dir.length} entries, not 2^${V4_MIN_DIR_BITS}..2^${V4_MAX_DIR_BITS}`, 'v4.dir');
  }
  const state = { next: 0, ranges: 0, prev: -1 };
  const size = 2 ** (32 - bits);
  for (let d = 0; d < dir.length; ) {
    // Runs of direct entries, then one block: each loop stays on one path.
    d = directRun(dir, d, leaves, state);
    if (d < 0) throw corrupt('v4.dir holds a leaf id out of range', 'v4.dir');
    if (d === dir.length) break;
    if (dir[d]! - V4_BLOCK !== state.next || !checkBlock(blk, state, size, leaves)) {
      throw corrupt(`v4.dir points at a malformed block (bucket ${d})`, 'v4.dir');
    }
    d++;
  }
  if (state.next !== blk.length) throw corrupt(`v4.blk: the blocks end at byte ${state.next} of ${blk.length}`, 'v4.blk');
  return state.ranges;
}

interface CheckState {
  /** Where the next block must start. */
  next: number;
  ranges: number;
  /** Leaf of the last piece seen. */
  prev: number;
}

/** Checks the direct entries from `d` on; returns the index of the first block entry (or the end), -1 for a bad leaf. */
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

/** Checks the block at `st.next` and moves past it; false when it is malformed. */
function checkBlock(blk: Uint8Array, st: CheckState, size: number, leaves: number): boolean {
  const o = st.next;
  if (o + 2 > blk.length) return false;
  const k = u16(blk, o);
  const end = o + 5 * k + 5;
  if (k < 1 || end > blk.length) return false;
  let last = 0;
  for (let q = 1; q <= k; q++) {
    const s = u16(blk, o + 2 * q);
    if (s <= last || s >= size) return false;
    last = s;
  }
  let prev = st.prev;
  let ranges = st.ranges;
  for (let j = o + 2 + 2 * k; j < end; j += 3) {
    const leaf = u24(blk, j);
    if (leaf >= leaves) return false;
    if (leaf !== prev) ranges++;
    prev = leaf;
  }
  st.prev = prev;
  st.ranges = ranges;
  st.next = end;
  return true;
}
