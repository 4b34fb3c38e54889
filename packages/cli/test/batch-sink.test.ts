/**
 * The batch writer's byte sink: copyRange copies any range of any source
 * exactly, whatever the offsets (its short pieces go in unaligned 4-byte
 * words, its long ones with TypedArray#set), and growing keeps what was written.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteSink } from '../src/batch/sink.js';

describe('ByteSink.copyRange', () => {
  it('writes exactly the bytes of every copied range, in order, across growth', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 600 }),
        fc.array(fc.tuple(fc.nat(), fc.nat({ max: 300 })), { maxLength: 40 }),
        fc.integer({ min: 1, max: 64 }),
        (src, cuts, first) => {
          const words = new DataView(src.buffer, src.byteOffset, src.byteLength);
          const sink = new ByteSink(new Uint8Array(first));
          const want: number[] = [];
          for (const [a, len] of cuts) {
            const at = a % src.length;
            const n = Math.min(len, src.length - at);
            sink.copyRange(src, words, at, n);
            want.push(...src.subarray(at, at + n));
          }
          expect([...sink.view()]).toEqual(want);
        },
      ),
    );
  });
});
