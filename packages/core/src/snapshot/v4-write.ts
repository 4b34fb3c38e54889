/**
 * Writes the IPv4 index (format.ts: `v4.dir` and `v4.blk`) from flat ranges.
 * The layout, and why, is in docs/design.md; the reader is v4-index.ts.
 *
 * @module
 */
import { put24 } from '../bytes.js';
import type { Ranges } from './flatten.js';
import { V4_BLOCK, V4_DIR_BITS, V4_MAX_DIR_BITS, V4_MIN_DIR_BITS, V4_SLICE, V4_SLICE_BLOCK, V4_SMALL_INDEX } from './format.js';

export interface V4Columns {
  readonly dir: Uint32Array;
  readonly blk: Uint8Array;
}

/** Table size for `n` ranges: the world-sized table, or the smallest one for a small index. */
export function dirBitsFor(n: number): number {
  return n < V4_SMALL_INDEX ? V4_MIN_DIR_BITS : V4_DIR_BITS;
}

/**
 * The direct table and the bucket records for contiguous ranges covering
 * 0..2^32-1 (starts strictly increasing from 0; the caller has checked
 * them). `bits` picks the table size (default: {@link dirBitsFor}).
 */
export function encodeV4(r: Ranges<number>, bits = dirBitsFor(r.starts.length)): V4Columns {
  if (!Number.isInteger(bits) || bits < V4_MIN_DIR_BITS || bits > V4_MAX_DIR_BITS) {
    throw new RangeError(`IPv4 table bits must be ${V4_MIN_DIR_BITS}..${V4_MAX_DIR_BITS}, got ${bits}`);
  }
  const n = r.starts.length;
  const starts = Float64Array.from(r.starts, Number);
  const size = 2 ** (32 - bits);
  const buckets = 2 ** bits;
  const slices = size / V4_SLICE;
  // 1. Per bucket: the range holding its first address, and the size of its record (0: one range holds it all).
  const first = new Uint32Array(buckets);
  const sizes = new Uint32Array(buckets);
  let bytes = 0;
  let i = 0;
  for (let b = 0; b < buckets; b++) {
    const base = b * size;
    while (i + 1 < n && starts[i + 1]! <= base) i++;
    let j = i + 1;
    while (j < n && starts[j]! < base + size) j++;
    first[b] = i;
    if (j - i - 1 > 0) {
      sizes[b] = recordSize(starts, i + 1, j, base, slices);
      bytes += sizes[b]!;
    }
    i = j - 1;
  }
  // 2. Direct entries and records, in bucket order.
  const dir = new Uint32Array(buckets);
  const blk = new Uint8Array(bytes);
  let at = 0;
  for (let b = 0; b < buckets; b++) {
    if (sizes[b] === 0) {
      dir[b] = r.values[first[b]!]!;
      continue;
    }
    dir[b] = V4_BLOCK + at;
    writeRecord(blk, at, starts, r.values, first[b]!, b * size, slices);
    at += sizes[b]!;
  }
  return { dir, blk };
}

/**
 * Bytes of a bucket's record given the starts `[from, to)` inside it: the
 * map, then per slice with starts that are not on its boundary, the count,
 * those starts and one leaf more than them.
 */
function recordSize(starts: Float64Array, from: number, to: number, base: number, slices: number): number {
  let bytes = 3 * slices;
  let slice = -1;
  for (let q = from; q < to; q++) {
    const off = starts[q]! - base;
    if (off % V4_SLICE === 0) continue;
    const t = Math.floor(off / V4_SLICE);
    if (t !== slice) bytes += 4; // the count and the slice's first leaf
    slice = t;
    bytes += 4; // a start and its leaf
  }
  return bytes;
}

/** Writes the record of the bucket at address `base`, whose first address range `f` holds, at `blk[at]`. */
function writeRecord(blk: Uint8Array, at: number, starts: Float64Array, values: ArrayLike<number>, f: number, base: number, slices: number): void {
  const n = starts.length;
  let tail = at + 3 * slices;
  let q = f;
  for (let t = 0; t < slices; t++) {
    const lo = base + t * V4_SLICE;
    while (q + 1 < n && starts[q + 1]! <= lo) q++;
    let end = q + 1;
    while (end < n && starts[end]! < lo + V4_SLICE) end++;
    const k = end - q - 1;
    if (k === 0) {
      put24(blk, at + 3 * t, values[q]!);
      continue;
    }
    put24(blk, at + 3 * t, V4_SLICE_BLOCK + (tail - at));
    blk[tail] = k;
    for (let p = 1; p <= k; p++) blk[tail + p] = starts[q + p]! - lo;
    for (let p = 0; p <= k; p++) put24(blk, tail + 1 + k + 3 * p, values[q + p]!);
    tail += 4 * k + 4;
    q = end - 1;
  }
}
