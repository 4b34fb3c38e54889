/**
 * A layer is one role's answer for every address of a family, as flat
 * ranges: `values[i]` holds for [starts[i], starts[i+1]). Value 0 = "none";
 * other values index the layer's table (`table[value - 1]`).
 *
 * Longest prefix wins within a layer (core's flattenPrefixes); equal values
 * share one table entry (interned by a key), so adjacent equal ranges merge.
 *
 * @module
 */
import { flattenPrefixes, pushRange, type Ranges } from '@ipintel/core/writer';
import type { Prefix } from '../feeds/types.js';
import type { Interval } from './input.js';

export interface Layer<V> {
  readonly ranges: Ranges<number>;
  readonly table: V[];
}

/** Interns values by a key so that equal values get one id (1-based). */
class Interner<V> {
  readonly table: V[] = [];
  private readonly ids = new Map<string, number>();
  id(value: V, key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      this.table.push(value);
      id = this.table.length;
      this.ids.set(key, id);
    }
    return id;
  }
}

/** A layer from prefixes (longest prefix wins; for equal prefixes the later one wins). */
export function prefixLayer<V>(version: 4 | 6, prefixes: readonly Prefix<V>[], key: (v: V) => string): Layer<V> {
  const interner = new Interner<V>();
  const entries = [];
  for (const p of prefixes) {
    if (p.version !== version) continue;
    entries.push({ start: p.start, length: p.length, value: interner.id(p.value, key(p.value)) });
  }
  return { ranges: flattenPrefixes(version, entries, 0), table: interner.table };
}

/** A layer from sorted, non-overlapping intervals (geo, ASN tables). */
export function intervalLayer<V>(version: 4 | 6, intervals: readonly Interval<V>[], key: (v: V) => string): Layer<V> {
  const interner = new Interner<V>();
  const max = version === 4 ? 0xffffffffn : (1n << 128n) - 1n;
  const out: Ranges<number> = { starts: [], values: [] };
  pushRange(out, 0n, 0);
  let prevLast = -1n;
  for (const iv of intervals) {
    if (iv.first <= prevLast || iv.last < iv.first || iv.last > max) {
      throw new RangeError(`intervals must be sorted and disjoint (at ${iv.first})`);
    }
    pushRange(out, iv.first, interner.id(iv.value, key(iv.value)));
    if (iv.last < max) pushRange(out, iv.last + 1n, 0);
    prevLast = iv.last;
  }
  return { ranges: out, table: interner.table };
}

/** A presence layer: 1 where any prefix covers the address. */
export function presenceLayer(version: 4 | 6, prefixes: readonly Prefix<unknown>[]): Layer<true> {
  return prefixLayer(version, prefixes.map((p) => ({ ...p, value: true as const })), () => '1');
}
