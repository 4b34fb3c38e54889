/**
 * Writes the IPv4 index (format.ts: `v4.dir` and `v4.blk`) from flat ranges.
 * The layout, and why, is in docs/design.md; the reader is v4-index.ts.
 *
 * @module
 */
import type { Ranges } from './flatten.js';
import { V4_BLOCK, V4_DIR_BITS, V4_MAX_DIR_BITS, V4_MIN_DIR_BITS, V4_SMALL_INDEX } from './format.js';

export interface V4Columns {
  readonly dir: Uint32Array;
  readonly blk: Uint8Array;
}

/** Table size for `n` ranges: the world-sized table, or the smallest one for a small index. */
export function dirBitsFor(n: number): number {
  return n < V4_SMALL_INDEX ? V4_MIN_DIR_BITS : V4_DIR_BITS;
}

/**
 * The direct table and the blocks for contiguous ranges covering 0..2^32-1
 * (starts strictly increasing from 0; the caller has checked them). `bits`
 * picks the table size (default: {@link dirBitsFor}).
 */
export function encodeV4(r: Ranges<number>, bits = dirBitsFor(r.starts.length)): V4Columns {
  if (!Number.isInteger(bits) || bits < V4_MIN_DIR_BITS || bits > V4_MAX_DIR_BITS) {
    throw new RangeError(`IPv4 table bits must be ${V4_MIN_DIR_BITS}..${V4_MAX_DIR_BITS}, got ${bits}`);
  }
  const n = r.starts.length;
  const starts = Float64Array.from(r.starts, Number);
  const size = 2 ** (32 - bits);
  const buckets = 2 ** bits;
  // 1. Per bucket: the range holding its first address and how many start inside it after that.
  const first = new Uint32Array(buckets);
  const inside = new Uint32Array(buckets);
  let bytes = 0;
  let i = 0;
  for (let b = 0; b < buckets; b++) {
    const base = b * size;
    while (i + 1 < n && starts[i + 1]! <= base) i++;
    let j = i + 1;
    while (j < n && starts[j]! < base + size) j++;
    first[b] = i;
    inside[b] = j - i - 1;
    if (j - i - 1 > 0) bytes += 5 * (j - i - 1) + 5;
    i = j - 1;
  }
  // 2. Direct entries and blocks, in bucket order.
  const dir = new Uint32Array(buckets);
  const blk = new Uint8Array(bytes);
  let at = 0;
  for (let b = 0; b < buckets; b++) {
    const f = first[b]!;
    const k = inside[b]!;
    if (k === 0) {
      dir[b] = r.values[f]!;
      continue;
    }
    dir[b] = V4_BLOCK + at;
    blk[at] = k & 0xff;
    blk[at + 1] = k >>> 8;
    const base = b * size;
    for (let q = 1; q <= k; q++) {
      const off = starts[f + q]! - base;
      blk[at + 2 * q] = off & 0xff;
      blk[at + 2 * q + 1] = off >>> 8;
    }
    const leaves = at + 2 + 2 * k;
    for (let q = 0; q <= k; q++) {
      const v = r.values[f + q]!;
      blk[leaves + 3 * q] = v & 0xff;
      blk[leaves + 3 * q + 1] = (v >>> 8) & 0xff;
      blk[leaves + 3 * q + 2] = v >>> 16;
    }
    at += 5 * k + 5;
  }
  return { dir, blk };
}
