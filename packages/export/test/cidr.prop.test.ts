/**
 * forEachCidr against BigInt arithmetic: for random ranges of both families
 * (ends near block boundaries on purpose), the blocks are aligned, in order,
 * contiguous, cover exactly the range, and each is the largest block that
 * starts there and fits (so there are as few as possible).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forEachCidr } from '../src/cidr.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 200) });

const words = (x: bigint, w: number): Uint32Array => Uint32Array.from({ length: w }, (_, k) => Number((x >> BigInt(32 * (w - 1 - k))) & 0xffffffffn));
const value = (a: Uint32Array, w: number): bigint => a.slice(0, w).reduce((x, v) => (x << 32n) | BigInt(v), 0n);

/** An address near a block boundary (or anywhere). */
const address = (bits: number) =>
  fc.oneof(
    fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n }),
    fc.tuple(fc.integer({ min: 0, max: bits }), fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n }), fc.integer({ min: -2, max: 2 })).map(([k, x, d]) => {
      const size = 1n << BigInt(k);
      const y = x - (x % size) + BigInt(d);
      const max = (1n << BigInt(bits)) - 1n;
      return y < 0n ? 0n : y > max ? max : y;
    }),
  );

describe('forEachCidr', () => {
  it.each([
    [32, 1],
    [128, 4],
  ] as const)('splits any %i-bit range into the fewest aligned blocks that cover it exactly', (bits, w) => {
    fc.assert(
      fc.property(address(bits), address(bits), (x, y) => {
        const [first, last] = x <= y ? [x, y] : [y, x];
        const blocks: [bigint, number][] = [];
        forEachCidr(words(first, w), words(last, w), w, (start, length) => blocks.push([value(start, w), length]));
        let next = first;
        for (const [start, length] of blocks) {
          const size = 1n << BigInt(bits - length);
          expect(start).toBe(next);
          expect(start % size).toBe(0n);
          expect(start + size - 1n <= last).toBe(true);
          // The largest: twice the size either is not aligned here or runs past the end.
          if (length > 0) expect(start % (size * 2n) !== 0n || start + size * 2n - 1n > last).toBe(true);
          next = start + size;
        }
        expect(next).toBe(last + 1n);
      }),
    );
  });

  it('covers the whole space with one /0 block, and one address with one full-length block', () => {
    const all: number[] = [];
    forEachCidr(Uint32Array.of(0, 0, 0, 0), Uint32Array.of(~0, ~0, ~0, ~0).map((v) => v >>> 0), 4, (_, l) => all.push(l));
    expect(all).toEqual([0]);
    const one: number[] = [];
    forEachCidr(Uint32Array.of(0x01020304), Uint32Array.of(0x01020304), 1, (_, l) => one.push(l));
    expect(one).toEqual([32]);
  });
});
