/**
 * Column filters: reversible rewrites of an integer column before it is
 * deflated, so that deflate finds the regularity the numbers have.
 *
 * `delta`: each element replaced by its difference from the one before
 * (the first from 0), modulo 2^bits, so any column round-trips exactly.
 * Columns that mostly rise (the IPv6 range words, the string offsets, the
 * IPv4 direct table, the IPv6 groups) become runs of small numbers: on the
 * world snapshot the IPv6 range words went from 8.0 MB deflated to 2.3 MB.
 *
 * The reader undoes it in place, on the buffer it inflated into: a running
 * sum, one pass, no second buffer (so no garbage left in the RSS after a
 * load). A byte-plane filter (every element's byte 0, then every byte 1...)
 * compressed 10-15% more but needs a second buffer the size of the column
 * to undo: it added ~45 MB to the RSS right after `openSync()` of the world
 * snapshot until the next collection, and ~45 ms to the load, so it was
 * dropped (docs/design.md).
 *
 * @module
 */

export const COLUMN_FILTERS = ['delta'] as const;
export type ColumnFilter = (typeof COLUMN_FILTERS)[number];

export function isColumnFilter(x: unknown): x is ColumnFilter {
  return (COLUMN_FILTERS as readonly unknown[]).includes(x);
}

/** The stored form of an integer column under `filter`: a new array. */
export function applyFilter(_filter: ColumnFilter, column: Uint16Array | Uint32Array): Uint16Array | Uint32Array {
  const out = column instanceof Uint32Array ? new Uint32Array(column.length) : new Uint16Array(column.length);
  let prev = 0;
  for (let i = 0; i < column.length; i++) {
    const v = column[i]!;
    out[i] = v - prev; // the typed array wraps it modulo 2^bits
    prev = v;
  }
  return out;
}

/** Undoes `filter` in place (the column as stored, already inflated). */
export function undoFilter(_filter: ColumnFilter, stored: Uint16Array | Uint32Array): void {
  // One loop per element type: it runs once per load, over up to 4.5 M elements.
  if (stored instanceof Uint32Array) {
    let acc = 0;
    for (let i = 0; i < stored.length; i++) stored[i] = acc = (acc + stored[i]!) >>> 0;
  } else {
    let acc = 0;
    for (let i = 0; i < stored.length; i++) stored[i] = acc = (acc + stored[i]!) & 0xffff;
  }
}
