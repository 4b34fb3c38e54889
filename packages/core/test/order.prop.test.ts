/**
 * The writer's id order (snapshot/order.ts): leaves and geo rows numbered
 * most address space first. Renumbering must change no answer, must be a
 * permutation, must really put larger rows first, and must be stable (an
 * ordered model orders to itself, so equal-space rows keep the builder's
 * order and the bytes stay deterministic). End to end, index.prop.test.ts
 * checks every encoded snapshot (ordered by the encoder) against the oracle.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { geoSpace, largestFirstModel, leafSpace } from '../src/snapshot/order.js';
import { encodeSnapshot, type SnapshotModel } from '../src/writer.js';
import { modelFromPrefixes, prefixSetArb } from '@ipintel/testkit';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 60) });

const LEAVES = 10;
const V4_LENGTHS = [0, 1, 8, 16, 20, 24, 31, 32];
const V6_LENGTHS = [0, 3, 32, 48, 64, 65, 96, 128];

/** A model whose leaves share geo rows (leaf i has geo row geoOf[i]), so a geo row's space is a sum. */
const modelArb: fc.Arbitrary<SnapshotModel> = fc
  .tuple(prefixSetArb(32, V4_LENGTHS, LEAVES), prefixSetArb(128, V6_LENGTHS, LEAVES), fc.array(fc.nat({ max: 3 }), { minLength: LEAVES, maxLength: LEAVES }))
  .map(([p4, p6, geoOf]) => {
    const m = modelFromPrefixes(p4, p6, LEAVES);
    return { ...m, geo: m.geo.slice(0, 4), leaves: geoOf.map((g) => ({ geo: g, net: 0, sig: 0 })) };
  });

/** What range `i` of a family answers, as row values (ids resolved). */
function answerAt(m: SnapshotModel, family: 'v4' | 'v6', i: number): unknown {
  const leaf = m.leaves[m[family].values[i]!]!;
  return { geo: m.geo[leaf.geo], net: m.networks[leaf.net], sig: m.signals[leaf.sig] };
}

/** True when (v4[k], v6[k]) never increases with k, compared v4 first. */
function largestFirst(v4: Float64Array, v6: Float64Array): boolean {
  for (let k = 1; k < v4.length; k++) {
    if (v4[k]! > v4[k - 1]! || (v4[k] === v4[k - 1] && v6[k]! > v6[k - 1]!)) return false;
  }
  return true;
}

describe('largestFirstModel', () => {
  it('changes no answer: every range resolves to the same geo, network and signal rows', () => {
    fc.assert(
      fc.property(modelArb, (m) => {
        const o = largestFirstModel(m);
        for (const family of ['v4', 'v6'] as const) {
          expect(o[family].starts).toEqual(m[family].starts);
          for (let i = 0; i < m[family].starts.length; i++) expect(answerAt(o, family, i)).toEqual(answerAt(m, family, i));
        }
        expect(o.networks).toBe(m.networks);
        expect(o.signals).toBe(m.signals);
      }),
    );
  });

  it('renumbers by permutation: the same leaves and geo rows, each once', () => {
    fc.assert(
      fc.property(modelArb, (m) => {
        const o = largestFirstModel(m);
        expect(new Set(o.geo)).toEqual(new Set(m.geo));
        expect(o.geo).toHaveLength(m.geo.length);
        const rows = (x: SnapshotModel) => x.leaves.map((l) => JSON.stringify(x.geo[l.geo])).sort();
        expect(rows(o)).toEqual(rows(m));
      }),
    );
  });

  it('puts the leaves and geo rows with the most space first', () => {
    fc.assert(
      fc.property(modelArb, (m) => {
        const o = largestFirstModel(m);
        const leaf = leafSpace(o);
        expect(largestFirst(leaf.v4, leaf.v6)).toBe(true);
        const geo = geoSpace(o, leaf);
        expect(largestFirst(geo.v4, geo.v6)).toBe(true);
      }),
    );
  });

  it('counts the space of every address once per family', () => {
    fc.assert(
      fc.property(modelArb, (m) => {
        const s = leafSpace(m);
        expect(s.v4.reduce((a, b) => a + b, 0)).toBe(2 ** 32);
        expect(geoSpace(m, s).v4.reduce((a, b) => a + b, 0)).toBe(2 ** 32);
        expect(Math.abs(s.v6.reduce((a, b) => a + b, 0) / 2 ** 64 - 1)).toBeLessThan(1e-9); // /64 units: 2^64 of them
      }),
    );
  });

  it('is stable: an ordered model orders to itself', () => {
    fc.assert(
      fc.property(modelArb, (m) => {
        const o = largestFirstModel(m);
        expect(largestFirstModel(o)).toEqual(o);
      }),
    );
  });

  it('the writer refuses a leaf whose ids are not rows of their tables, before renumbering', () => {
    const m = modelFromPrefixes([{ start: 0x08080800n, length: 24, value: 1 }], [], 2);
    for (const field of ['geo', 'net', 'sig'] as const) {
      for (const bad of [-1, 0.5, Number.NaN, 2, 1e9]) {
        const leaves = [m.leaves[0]!, { ...m.leaves[1]!, [field]: bad }];
        expect(() => encodeSnapshot({ ...m, leaves })).toThrow(/leaf refers past a table/);
      }
    }
  });
});
