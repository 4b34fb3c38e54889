/**
 * The index as a flat list: every range of one family, in address order,
 * with its start and its leaf. For tools that need the whole map rather than
 * one lookup (the exporter); off the hot path.
 *
 * Reads the index columns directly (their layout is the file format's, see
 * lookup.ts), so it does not depend on how RangeIndex searches them. IPv6
 * sub-tables are spliced in: a main range with a sub-table is exactly one
 * /64 block (the writer starts a new main range right after it), so its
 * sub-ranges replace it.
 *
 * @module
 */
import { SUB_TABLE_BIT } from './format.js';
import { id24, type IndexArrays } from './lookup.js';

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

/** Every IPv4 range, in address order. */
export function flatRanges4(a: IndexArrays): FlatRanges {
  const n = a.v4Low.length;
  const starts = new Uint32Array(n);
  const leaves = new Uint32Array(n);
  let bucket = 0;
  for (let i = 0; i < n; i++) {
    // The /16 of range i: the bucket whose slice holds i.
    while (a.v4Offsets[bucket + 1]! <= i) bucket++;
    starts[i] = ((bucket << 16) | a.v4Low[i]!) >>> 0;
    leaves[i] = id24(a.v4Leaf, i);
  }
  return { words: 1, starts, leaves };
}

/** Every IPv6 range, in address order, sub-tables spliced in. */
export function flatRanges6(a: IndexArrays): FlatRanges {
  const nMain = a.v6W1.length;
  const nSub = a.v6SubLeaf.length / 3;
  // Upper bound: each main range with a sub-table is replaced by its sub-ranges.
  const cap = nMain + nSub;
  const starts = new Uint32Array(4 * cap);
  const leaves = new Uint32Array(cap);
  let n = 0;
  let group = 0;
  for (let i = 0; i < nMain; i++) {
    while (a.v6Groups[group + 1]! <= i) group++;
    const w0 = a.v6W0[group]!;
    const w1 = a.v6W1[i]!;
    const leaf = id24(a.v6Leaf, i);
    if (leaf < SUB_TABLE_BIT) {
      starts.set([w0, w1, 0, 0], 4 * n);
      leaves[n++] = leaf;
      continue;
    }
    const k = leaf - SUB_TABLE_BIT;
    for (let j = a.v6Sub[k]!; j < a.v6Sub[k + 1]!; j++) {
      starts.set([w0, w1, a.v6SubW[2 * j]!, a.v6SubW[2 * j + 1]!], 4 * n);
      leaves[n++] = id24(a.v6SubLeaf, j);
    }
  }
  return { words: 4, starts: starts.subarray(0, 4 * n), leaves: leaves.subarray(0, n) };
}
