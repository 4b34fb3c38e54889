/**
 * The index as a flat list: every range of one family, in address order,
 * with its start and its leaf. For tools that need the whole map rather than
 * one lookup (the exporter); off the hot path.
 *
 * Reads the index columns directly (their layout is the file format's, see
 * format.ts), so it does not depend on how RangeIndex searches them. IPv6
 * sub-tables are spliced in: a main range with a sub-table is exactly one
 * /64 block (the writer starts a new main range right after it), so its
 * sub-ranges replace it.
 *
 * @module
 */
import { SUB_TABLE_BIT } from './format.js';
import type { V6Columns } from './decode.js';
import type { V4Arrays } from './lookup.js';
import { id24 } from './v6-index.js';
import { eachPiece, rangeCount4 } from './v4-index.js';

/**
 * Ranges of one family: range i starts at `starts[w*i .. w*i+w)` (w = 1
 * word for IPv4, 4 big-endian words for IPv6) and ends where range i+1
 * starts (the last one at the end of the space). Range 0 starts at 0.
 */
export interface FlatRanges {
  /** Words per start: 1 (IPv4) or 4 (IPv6). */
  readonly words: 1 | 4;
  readonly starts: Uint32Array;
  readonly leaves: Uint32Array;
}

/**
 * Every IPv4 range, in address order: the pieces of each bucket of the
 * direct table (a direct entry is one piece; a record's map gives one per
 * /24, and a /24's block of k starts cuts it into k + 1), with equal
 * neighbours merged, so a range that spans /24s or buckets comes out as one.
 */
export function flatRanges4(a: V4Arrays): FlatRanges {
  const dir = a.v4Dir;
  const blk = a.v4Blk;
  const shift = 32 - Math.log2(dir.length);
  // 1. Count the merged ranges (what info.counts says), 2. write them: two passes instead of a growing array.
  const n = rangeCount4(dir, blk);
  const starts = new Uint32Array(n);
  const leaves = new Uint32Array(n);
  let i = 0;
  eachPiece4(dir, blk, shift, (start, leaf) => {
    starts[i] = start;
    leaves[i++] = leaf;
  });
  return { words: 1, starts, leaves };
}

/** Calls `emit(start, leaf)` for every run of one leaf in the IPv4 index, in address order. */
function eachPiece4(dir: Uint32Array, blk: Uint8Array, shift: number, emit: (start: number, leaf: number) => void): void {
  let prev = -1;
  let base = 0;
  const piece = (at: number, leaf: number): void => {
    if (leaf === prev) return;
    prev = leaf;
    emit((base + at) >>> 0, leaf);
  };
  const size = 2 ** shift;
  for (let d = 0; d < dir.length; d++) {
    base = d * size;
    eachPiece(blk, dir[d]!, size, piece);
  }
}

/** Every IPv6 range, in address order, sub-tables spliced in. */
export function flatRanges6(c: V6Columns): FlatRanges {
  const w0s = c['v6.w0'];
  const groups = c['v6.groups'];
  const w1s = c['v6.w1'];
  const leaf6 = c['v6.leaf'];
  const sub = c['v6.sub'];
  const subW = c['v6.subw'];
  const subLeaf = c['v6.subleaf'];
  const nMain = w1s.length;
  const nSub = subLeaf.length / 3;
  // Upper bound: each main range with a sub-table is replaced by its sub-ranges.
  const cap = nMain + nSub;
  const starts = new Uint32Array(4 * cap);
  const leaves = new Uint32Array(cap);
  let n = 0;
  let group = 0;
  for (let i = 0; i < nMain; i++) {
    while (groups[group + 1]! <= i) group++;
    const w0 = w0s[group]!;
    const w1 = w1s[i]!;
    const leaf = id24(leaf6, i);
    if (leaf < SUB_TABLE_BIT) {
      starts.set([w0, w1, 0, 0], 4 * n);
      leaves[n++] = leaf;
      continue;
    }
    const k = leaf - SUB_TABLE_BIT;
    for (let j = sub[k]!; j < sub[k + 1]!; j++) {
      starts.set([w0, w1, subW[2 * j]!, subW[2 * j + 1]!], 4 * n);
      leaves[n++] = id24(subLeaf, j);
    }
  }
  return { words: 4, starts: starts.subarray(0, 4 * n), leaves: leaves.subarray(0, n) };
}
