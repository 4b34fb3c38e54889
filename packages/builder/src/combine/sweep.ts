/**
 * Walks several layers of one family at once: calls `visit` at every address
 * where any layer's value changes, with every layer's value there. This is
 * where "sources combine per address" happens (a Tor exit inside AWS is both).
 *
 * O(boundaries x layers) comparisons; layers all start at address 0.
 *
 * @module
 */
import type { Ranges } from '@ipintel/core/writer';

/**
 * `visit(start, values, changed)`: `changed` is the lowest layer index whose
 * value changed at `start` (0 at address 0), so callers can reuse work for
 * the layers before it.
 */
export function sweep(layers: readonly Ranges<number>[], visit: (start: bigint, values: Int32Array, changed: number) => void): void {
  const k = layers.length;
  const idx = new Int32Array(k);
  const values = new Int32Array(k);
  const next: (bigint | null)[] = new Array<bigint | null>(k);
  for (let j = 0; j < k; j++) {
    const l = layers[j]!;
    if (l.starts[0] !== 0n) throw new RangeError('every layer must start at address 0');
    values[j] = l.values[0]!;
    next[j] = l.starts.length > 1 ? l.starts[1]! : null;
  }
  let pos = 0n;
  let changed = 0;
  for (;;) {
    visit(pos, values, changed);
    // 1. The nearest next boundary of any layer.
    let min: bigint | null = null;
    for (let j = 0; j < k; j++) {
      const n = next[j]!;
      if (n !== null && (min === null || n < min)) min = n;
    }
    if (min === null) return;
    // 2. Advance the layers that change there.
    changed = k;
    for (let j = 0; j < k; j++) {
      if (next[j] === min) {
        if (j < changed) changed = j;
        const l = layers[j]!;
        const i = ++idx[j]!;
        values[j] = l.values[i]!;
        next[j] = i + 1 < l.starts.length ? l.starts[i + 1]! : null;
      }
    }
    pos = min;
  }
}
