/**
 * The batch writer's byte sink: whatever is appended, in whatever pieces,
 * comes out in order across growth, from a buffer of its own or from a
 * region of the kernel's memory (which growing leaves: kernelAt -1).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteSink } from '../src/batch/sink.js';

describe('ByteSink', () => {
  it('keeps every appended byte and text, in order, across growth', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.string({ maxLength: 80 })), { maxLength: 40 }),
        fc.integer({ min: 1, max: 64 }),
        fc.boolean(),
        (pieces, first, region) => {
          const sink = new ByteSink(region ? new Uint8Array(new SharedArrayBuffer(first)) : new Uint8Array(first), region ? 4096 : -1);
          const want: number[] = [];
          for (const p of pieces) {
            if (typeof p === 'string') {
              sink.putText(p);
              want.push(...new TextEncoder().encode(p));
            } else {
              sink.append(p);
              want.push(...p);
            }
          }
          expect([...sink.view()]).toEqual(want);
          // In the region only while it never grew; byte pieces that fit never make it grow.
          if (!region) expect(sink.kernelAt).toBe(-1);
          if (sink.kernelAt !== -1) expect(sink.buf.buffer).toBeInstanceOf(SharedArrayBuffer);
          if (region && pieces.every((p) => typeof p !== 'string') && want.length <= first) expect(sink.kernelAt).toBe(4096);
          // Leaving the region keeps what was written, in a buffer of its own with room for more.
          const length = sink.buf.length;
          sink.leave();
          expect(sink.kernelAt).toBe(-1);
          expect(sink.buf.length).toBeGreaterThan(length);
          expect(sink.buf.buffer).toBeInstanceOf(ArrayBuffer);
          expect([...sink.view()]).toEqual(want);
        },
      ),
    );
  });
});
