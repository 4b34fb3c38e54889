/**
 * The IPv6 index finds an address's /32 group through a hash table
 * (v6-index.ts, `buildGroupHash`/`findGroup`). The index tests reach it only
 * through whole snapshots; here any set of first words, colliding or not,
 * must find every word at its group and no word that is not one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildGroupHash, findGroup } from '../src/snapshot/v6-index.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 200) });

/** Sorted distinct 32-bit words, as the decoder guarantees `v6.w0` to be. */
const wordsArb = (max: number) =>
  fc.uniqueArray(fc.nat({ max: max }), { maxLength: 300 }).map((a) => Uint32Array.from(a.sort((x, y) => x - y)));

describe('IPv6 group hash', () => {
  it('finds every first word at its group, and nothing for other words', () => {
    // A small range of words (dense, many collisions) and the whole 32-bit range.
    for (const max of [600, 0xffffffff]) {
      fc.assert(
        fc.property(wordsArb(max), fc.array(fc.nat({ max }), { maxLength: 50 }), (w0, others) => {
          const hash = buildGroupHash(w0);
          expect(hash.slots.length / 2).toBeGreaterThanOrEqual(1.5 * w0.length);
          w0.forEach((word, g) => expect(findGroup(hash, word)).toBe(g));
          const words = new Set(w0);
          for (const x of others) if (!words.has(x)) expect(findGroup(hash, x)).toBe(-1);
        }),
      );
    }
  });

  it('keeps probing past collisions: words that share a first slot are all found', () => {
    // Words whose multiplicative hash lands in one slot of a 16-slot table: a full cluster.
    const hash0 = buildGroupHash(new Uint32Array(0));
    const same: number[] = [];
    for (let x = 0; same.length < 8; x++) if (Math.imul(x, 0x9e3779b1) >>> hash0.shift === 3) same.push(x);
    const w0 = Uint32Array.from(same);
    const hash = buildGroupHash(w0);
    expect(hash.shift).toBe(hash0.shift);
    w0.forEach((word, g) => expect(findGroup(hash, word)).toBe(g));
  });
});
