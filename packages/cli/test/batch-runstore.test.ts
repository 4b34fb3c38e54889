/**
 * The store of rendered runs on its own (run-store.ts): runs written in any
 * pieces come out whole and contiguous whatever the chunk size (a run that
 * outgrows its chunk moves to a new one), runs already finished never move,
 * and a writer that never fits (or a space that does not give room) stops
 * with an error instead of retrying forever.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { CellWriter } from '@ipintel/core/internal';
import { MAX_CELL_BYTES, OwnStoreSpace, RunStore } from '../src/batch/run-store.js';

/** A writer of `text` (ASCII) that refuses, as core's writers do, when `out` has too little room after `at`. */
function writerOf(text: string): CellWriter {
  const bytes = new TextEncoder().encode(text);
  return (_row, _today, out, at) => {
    if (out.length - at < bytes.length) return -1;
    out.set(bytes, at);
    return at + bytes.length;
  };
}

type Part = { kind: 'literal' | 'cell' | 'text'; t: string } | { kind: 'copy'; of: number };

describe('RunStore', () => {
  it('keeps every run whole and in place, the same bytes for any chunk size and starting room', () => {
    const part: fc.Arbitrary<Part> = fc.oneof(
      fc.record({ kind: fc.constantFrom('literal' as const, 'cell' as const, 'text' as const), t: fc.string({ unit: 'grapheme-ascii', maxLength: 3000 }) }),
      fc.record({ kind: fc.constant('copy' as const), of: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(fc.array(part, { maxLength: 6 }), { maxLength: 10 }), fc.integer({ min: 1, max: 4096 }), fc.integer({ min: 1, max: 8192 }), (runs, chunk, room) => {
        const space = new OwnStoreSpace(room);
        const store = new RunStore(space, chunk);
        const places: [number, number][] = [];
        const want: string[] = [];
        for (const [row, parts] of runs.entries()) {
          store.begin();
          let text = '';
          for (const p of parts) {
            if ('of' in p) {
              // A copy of an earlier run (a joined run's piece), when there is one.
              if (places.length > 0) {
                const [at, n] = places[p.of % places.length]!;
                store.appendCopy(at, n);
                text += want[p.of % places.length]!;
              }
              continue;
            }
            if (p.kind === 'literal') store.appendCells([new TextEncoder().encode(p.t)], row, 0);
            else if (p.kind === 'cell') store.appendCells([writerOf(p.t)], row, 0);
            else store.appendText(p.t);
            text += p.t;
          }
          const start = store.finish();
          places.push([start, store.pos - start]);
          want.push(text);
        }
        const got = (at: number, n: number): string => new TextDecoder().decode(space.view().subarray(at, at + n));
        places.forEach((p, i) => expect(got(...p)).toBe(want[i]));
      }),
    );
  });

  it('stops with an error when a writer refuses every room (no endless retry)', () => {
    const store = new RunStore(new OwnStoreSpace(1024), 256);
    const refuses: CellWriter = () => -1;
    store.begin();
    expect(() => store.appendCells([refuses], 7, 0)).toThrow(`a cell of record 7 asked for more than ${MAX_CELL_BYTES} bytes`);
  });

  it('stops with an error when the space gives no room for a writer', () => {
    // A space whose chunks are never there: it claims, but its memory stays 16 bytes.
    const mem = new Uint8Array(16);
    let top = 0;
    const store = new RunStore({ claim: (n) => ((top += n), top - n), view: () => mem }, 8);
    store.begin();
    expect(() => store.appendCells([writerOf('x'.repeat(100))], 3, 0)).toThrow();
  });
});
