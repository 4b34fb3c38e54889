/**
 * The snapshot's ranges with the export's records: every range of a family
 * in address order (core's flatRanges), its leaf replaced by the leaf's
 * record id, and neighbours with the same record merged.
 *
 * @module
 */
import type { IpIntel } from '@ipintel/core';
import { flatRanges } from '@ipintel/core/internal';

/**
 * Contiguous ranges covering one family's space: range i starts at
 * `starts[w*i .. w*i+w)` (w = `words`: 1 for IPv4, 4 big-endian words for
 * IPv6) and ends where range i+1 starts; `values[i]` is its value (a record
 * id, or a data offset for the MMDB tree; -1: none).
 */
export interface Ranges {
  readonly words: 1 | 4;
  readonly starts: Uint32Array;
  readonly values: Int32Array;
}

/** The ranges with equal neighbours merged (the same object when there are none). */
export function mergeEqual(r: Ranges): Ranges {
  const n = r.values.length;
  let keep = 0;
  for (let i = 0; i < n; i++) if (i === 0 || r.values[i] !== r.values[i - 1]) keep++;
  if (keep === n) return r;
  const w = r.words;
  const starts = new Uint32Array(keep * w);
  const values = new Int32Array(keep);
  let j = 0;
  for (let i = 0; i < n; i++) {
    if (i > 0 && r.values[i] === r.values[i - 1]) continue;
    starts.set(r.starts.subarray(i * w, i * w + w), j * w);
    values[j++] = r.values[i]!;
  }
  return { words: w, starts, values };
}

/** The family's ranges valued by `map(recordOf[leaf])`, merged. */
export function recordRanges(intel: IpIntel, version: 4 | 6, valueOfLeaf: (leaf: number) => number): Ranges {
  const flat = flatRanges(intel, version);
  const values = new Int32Array(flat.leaves.length);
  for (let i = 0; i < values.length; i++) values[i] = valueOfLeaf(flat.leaves[i]!);
  return mergeEqual({ words: flat.words, starts: flat.starts, values });
}
