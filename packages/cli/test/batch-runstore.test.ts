/**
 * The rendered-run store on its own: cells written through writers that ask
 * for room come out as the same bytes whatever room the store starts with,
 * and a writer that never fits (or a store that fails to grow) stops with an
 * error instead of retrying forever.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { CellWriter } from '@ipintel/core/internal';
import { MAX_CELL_BYTES, OwnStoreSpace, RunStore } from '../src/batch/records.js';

/** A writer of `text` (ASCII) that refuses, as core's writers do, when `out` has too little room after `at`. */
function writerOf(text: string): CellWriter {
  const bytes = new TextEncoder().encode(text);
  return (_row, _today, out, at) => {
    if (out.length - at < bytes.length) return -1;
    out.set(bytes, at);
    return at + bytes.length;
  };
}


describe('RunStore.putCells', () => {
  it('stores literals and written cells back to back, the same bytes for any starting room', () => {
    const part = fc.oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).map((t) => ({ literal: true, t })),
      fc.string({ unit: 'grapheme-ascii', maxLength: 3000 }).map((t) => ({ literal: false, t })),
    );
    fc.assert(
      fc.property(fc.array(fc.array(part, { maxLength: 6 }), { maxLength: 8 }), fc.integer({ min: 0, max: 4096 }), (records, reserve) => {
        const store = new RunStore(new OwnStoreSpace(reserve));
        const places: [number, number][] = [];
        for (const [row, parts] of records.entries()) {
          const start = store.putCells(parts.map((p) => (p.literal ? new TextEncoder().encode(p.t) : writerOf(p.t))), row, 0);
          places.push([start, store.used - start]);
        }
        const text = (at: number, n: number) => new TextDecoder().decode(store.bytes.subarray(at, at + n));
        records.forEach((parts, row) => expect(text(...places[row]!)).toBe(parts.map((p) => p.t).join('')));
      }),
    );
  });

  it('stops with an error when a writer refuses every room (no endless retry)', () => {
    const store = new RunStore(new OwnStoreSpace(1024));
    const refuses: CellWriter = () => -1;
    expect(() => store.putCells([refuses], 7, 0)).toThrow(`a cell of record 7 asked for more than ${MAX_CELL_BYTES} bytes`);
  });

  it('stops with an error when the store does not grow for a writer', () => {
    // A space whose growth is broken: it keeps its 16 bytes.
    const store = new RunStore({ store: new Uint8Array(16), growStore: () => {} });
    expect(() => store.putCells([writerOf('x'.repeat(100))], 3, 0)).toThrow('did not grow');
  });
});
