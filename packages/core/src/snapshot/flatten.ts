/**
 * Longest-prefix-match resolution: turns a set of (possibly nested) prefixes
 * with values into flat, contiguous ranges covering the whole address space.
 * Used by the builder for every source and by tests as the writer's input.
 *
 * Rule: the longest prefix holding an address decides its value; for the
 * same prefix given twice, the later one wins. Space no prefix covers gets
 * `fill`. Adjacent ranges with the same value are merged, so the output is
 * the smallest such list.
 *
 * O(n log n) for the sort, then one pass with a stack of open prefixes.
 *
 * @module
 */

export interface PrefixEntry<V> {
  /** First address of the prefix (host bits zero). */
  readonly start: bigint;
  readonly length: number;
  readonly value: V;
}

/** Contiguous ranges: `starts` strictly increase from 0; range i is [starts[i], starts[i+1]). */
export interface Ranges<V> {
  readonly starts: bigint[];
  readonly values: V[];
}

export function familyBits(version: 4 | 6): number {
  return version === 4 ? 32 : 128;
}

/** Appends a range start, keeping the list merged (equal neighbours fold, same start replaces). */
export function pushRange<V>(out: Ranges<V>, start: bigint, value: V): void {
  const n = out.starts.length;
  if (n > 0 && out.starts[n - 1] === start) {
    out.values[n - 1] = value;
    if (n > 1 && out.values[n - 2] === value) {
      out.starts.pop();
      out.values.pop();
    }
    return;
  }
  if (n > 0 && out.values[n - 1] === value) return;
  out.starts.push(start);
  out.values.push(value);
}

export function flattenPrefixes<V>(version: 4 | 6, prefixes: readonly PrefixEntry<V>[], fill: V): Ranges<V> {
  const bits = familyBits(version);
  const max = (1n << BigInt(bits)) - 1n;
  const sorted = prefixes
    .map((p, order) => ({ ...p, order, end: p.start + (1n << BigInt(bits - p.length)) - 1n }))
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.length - b.length || a.order - b.order));
  const out: Ranges<V> = { starts: [], values: [] };
  pushRange(out, 0n, fill);
  const open: { end: bigint; value: V }[] = [];
  // Closes every open prefix that ends before `limit`, resuming the value of the one beneath.
  const closeBefore = (limit: bigint): void => {
    while (open.length > 0 && open[open.length - 1]!.end < limit) {
      const done = open.pop()!;
      if (done.end < max) pushRange(out, done.end + 1n, open.length > 0 ? open[open.length - 1]!.value : fill);
    }
  };
  for (const p of sorted) {
    if (p.start < 0n || p.end > max || p.length < 0 || p.length > bits) {
      throw new RangeError(`prefix out of range: start ${p.start} length ${p.length}`);
    }
    closeBefore(p.start);
    pushRange(out, p.start, p.value);
    open.push({ end: p.end, value: p.value });
  }
  closeBefore(max + 1n);
  return out;
}
