/**
 * The explain sidecar's varints (explain/varint.ts): what the writer writes
 * the reader reads back, numbers and bigints alike (these as words), and an IPv6 address
 * delta read into four words is the bigint's words, with anything at or past
 * 2^128 said to be too wide (the sidecar reader then refuses the section).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteReader, ByteWriter } from '../src/explain/varint.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 1000) });

const wordsOf = (n: bigint): number[] => [96n, 64n, 32n, 0n].map((s) => Number((n >> s) & 0xffffffffn));

describe('sidecar varints', () => {
  it('round-trips numbers below 2^53 and bigints', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.nat(), fc.maxSafeNat()), { maxLength: 20 }), fc.array(fc.bigInt({ min: 0n, max: (1n << 140n) - 1n }), { maxLength: 20 }), (nums, bigs) => {
        const w = new ByteWriter();
        for (const n of nums) w.uint(n);
        for (const b of bigs) w.big(b);
        const r = new ByteReader(w.done());
        expect(nums.map(() => r.uint())).toEqual(nums);
        // Bigints come back as four words (the reader's only form for them), or as too wide past 2^128.
        const words = new Uint32Array(4);
        for (const b of bigs) {
          const wide = r.words128(words);
          expect(wide).toBe(b >= 1n << 128n);
          if (!wide) expect(Array.from(words)).toEqual(wordsOf(b));
        }
        expect(r.remaining).toBe(0);
      }),
    );
  });

  it('reads runs of numbers as uint() does, summed when delta-coded, and stops at the first one of `below` or more', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 2 ** 40 }), { maxLength: 30 }), fc.boolean(), fc.nat({ max: 2 ** 41 }), (nums, delta, below) => {
        const w = new ByteWriter();
        for (const n of nums) w.uint(n);
        w.uint(5);
        const out = new Float64Array(nums.length);
        const r = new ByteReader(w.done());
        const want = delta ? nums.map((_, i) => nums.slice(0, i + 1).reduce((a, b) => a + b, 0)) : nums;
        const stop = want.findIndex((v) => v >= below);
        const bad = r.uints(out, nums.length, delta, below);
        if (stop < 0) {
          expect(bad).toBe(-1);
          expect(Array.from(out)).toEqual(want);
          expect(r.uint()).toBe(5);
        } else {
          expect(bad).toBe(want[stop]);
          expect(Array.from(out.subarray(0, stop))).toEqual(want.slice(0, stop));
        }
      }),
    );
  });

  it('reads a bigint into four words, most significant first, and says when it does not fit in 128 bits', () => {
    const edges = [0n, 1n, 127n, 128n, (1n << 32n) - 1n, 1n << 32n, (1n << 96n) - 1n, 1n << 96n, 1n << 125n, (1n << 128n) - 1n, 1n << 128n, (1n << 140n) - 1n];
    fc.assert(
      fc.property(fc.oneof(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), fc.bigInt({ min: 1n << 128n, max: (1n << 140n) - 1n }), fc.constantFrom(...edges)), (n) => {
        const w = new ByteWriter();
        w.big(n);
        w.uint(7);
        const r = new ByteReader(w.done());
        const out = new Uint32Array(4).fill(0xdeadbeef);
        const wide = r.words128(out);
        expect(wide).toBe(n >= 1n << 128n);
        if (!wide) expect(Array.from(out)).toEqual(wordsOf(n));
        // The reader is left after the varint.
        expect(r.uint()).toBe(7);
      }),
    );
  });

  it('steps over varints as the reader would read them, and refuses one cut short', () => {
    const w = new ByteWriter();
    w.big((1n << 127n) + 5n);
    w.uint(300);
    w.uint(9);
    const r = new ByteReader(w.done());
    r.skipVarints(2);
    expect(r.uint()).toBe(9);
    const cut = new ByteReader(new Uint8Array([0x80, 0x80]));
    expect(() => cut.skipVarints(1)).toThrow(/ends inside a section/);
    expect(() => new ByteReader(new Uint8Array(30).fill(0x80)).words128(new Uint32Array(4))).toThrow(/too long/);
  });
});
