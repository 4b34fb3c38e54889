/**
 * The IPv6 index finds an address's /32 group through a hash table
 * (v6-index.ts, `buildGroupHash`/`findGroup`). The index tests reach it only
 * through whole snapshots; here any set of first words, colliding or not,
 * must find every word at its group and no word that is not one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildGroupHash, findGroup, GOLDEN, groupSlot } from '../src/snapshot/v6-index.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 200) });

/** Sorted distinct 32-bit words, as the decoder guarantees `v6.w0` to be; up to 600 (tables of 16 to 1,024 slots). */
const wordsArb = (max: number) =>
  fc.uniqueArray(fc.nat({ max }), { maxLength: 600, size: 'max' }).map((a) => Uint32Array.from(a.sort((x, y) => x - y)));

/** The word in each slot of a table (undefined for an empty one). */
const layout = (slots: Uint32Array): (number | undefined)[] =>
  Array.from({ length: slots.length / 2 }, (_, h) => (slots[2 * h + 1] === 0 ? undefined : slots[2 * h]));

/** Words whose first slot in a 16-slot table (the smallest) is `slot`. */
function homedAt(slot: number, count: number): number[] {
  const { shift } = buildGroupHash(new Uint32Array(0));
  const out: number[] = [];
  for (let x = 0; out.length < count; x++) if (groupSlot(x, shift) === slot) out.push(x);
  return out;
}

describe('IPv6 group hash', () => {
  it('has at least 1.5 slots per word, finds every word at its group, and nothing for other words', () => {
    // Words from a small range (dense: many share a first slot) and from the whole 32-bit range.
    for (const max of [1500, 0xffffffff]) {
      fc.assert(
        fc.property(wordsArb(max), fc.array(fc.nat({ max }), { maxLength: 50 }), (w0, others) => {
          const hash = buildGroupHash(w0);
          // Checked first: a fuller table would make the probes below slow, a full one endless.
          expect(hash.slots.length / 2).toBeGreaterThanOrEqual(1.5 * w0.length);
          w0.forEach((word, g) => expect(findGroup(hash, word)).toBe(g));
          const words = new Set(w0);
          for (const x of others) if (!words.has(x)) expect(findGroup(hash, x)).toBe(-1);
        }),
      );
    }
  });

  it('probes on past a cluster of words that share a first slot, and around the end of the table', () => {
    // 10 words take a 16-slot table: 6 homed at slot 3 fill slots 3-8; 4 homed at the last slot (15)
    // fill 15, then wrap around to 0-2. Inserted in order, so the layout is known exactly.
    const at3 = homedAt(3, 6);
    const at15 = homedAt(15, 4);
    const w0 = Uint32Array.from([...at3, ...at15].sort((x, y) => x - y));
    const hash = buildGroupHash(w0);
    // The layout proves the collisions and the wrap happened.
    const want: (number | undefined)[] = Array.from({ length: 16 }, () => undefined);
    at3.forEach((x, k) => (want[3 + k] = x));
    at15.forEach((x, k) => (want[(15 + k) % 16] = x));
    expect(layout(hash.slots)).toEqual(want);
    w0.forEach((word, g) => expect(findGroup(hash, word)).toBe(g));
    // A missing word homed in either cluster probes to its end, and finds nothing.
    expect(findGroup(hash, homedAt(3, 7)[6]!)).toBe(-1);
    expect(findGroup(hash, homedAt(15, 5)[4]!)).toBe(-1);
  });

  it('builds in linear time from words crafted to collide under its multiplier, and still finds every word', () => {
    // x / GOLDEN mod 2^32 for x = 1, 2, 3...: all homed at slot 0 under GOLDEN, so linear probing
    // would take n^2/2 probes (a crafted file's IPv6 index: 40 s of load for 200,000 groups).
    const inverse = Number(BigInt.asUintN(32, modInverse(BigInt(GOLDEN), 1n << 32n)));
    const n = 50_000;
    const w0 = Uint32Array.from({ length: n }, (_, i) => Math.imul(i + 1, inverse) >>> 0).sort();
    let draws = 0;
    const hash = buildGroupHash(w0, () => (++draws * 0.618034) % 1);
    expect(hash.mul).not.toBe(GOLDEN);
    expect(hash.mul % 2).toBe(1);
    expect(draws).toBeGreaterThan(0);
    w0.forEach((word, g) => expect(findGroup(hash, word)).toBe(g));
    expect(findGroup(hash, 0)).toBe(-1);
    // Real-looking words keep GOLDEN (no randomness on the normal path).
    expect(buildGroupHash(Uint32Array.from({ length: n }, (_, i) => 0x20010000 + i * 7), () => {
      throw new Error('no retry expected');
    }).mul).toBe(GOLDEN);
  });
});

/** a^-1 mod m (a odd, m a power of two), by the extended Euclidean algorithm. */
function modInverse(a: bigint, m: bigint): bigint {
  let [r0, r1, s0, s1] = [a, m, 1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  return ((s0 % m) + m) % m;
}
