/**
 * flatRanges (@ipintel/core/internal) lists exactly the ranges the snapshot
 * was written from: random prefix sets are flattened, written and read back,
 * and the walked ranges, with equal neighbours merged (a range crossing /64
 * boundaries is stored as a sub-table plus main ranges), equal the writer's
 * input. Every walked range answers its leaf at both ends, and
 * `info.counts` counts those ranges.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flatRanges, type FlatRanges } from '../src/internal.js';
import { loadSnapshot } from '../src/portable.js';
import { bigIntToText, encodeSnapshot } from '../src/writer.js';
import { modelFromPrefixes, prefixSetArb } from '@ipintel/testkit';
import { modelLeaves } from './model-leaf.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 60) });

const V4_LENGTHS = [0, 1, 8, 16, 17, 24, 31, 32];
const V6_LENGTHS = [0, 3, 32, 48, 63, 64, 65, 96, 112, 128];
const LEAVES = 10;

function startOf(r: FlatRanges, i: number): bigint {
  let x = 0n;
  for (let k = 0; k < r.words; k++) x = (x << 32n) | BigInt(r.starts[r.words * i + k]!);
  return x;
}

/** The walked ranges with equal neighbours merged, as (start, leaf) pairs. */
function merged(r: FlatRanges): [bigint, number][] {
  const out: [bigint, number][] = [];
  for (let i = 0; i < r.leaves.length; i++) if (out.length === 0 || out[out.length - 1]![1] !== r.leaves[i]) out.push([startOf(r, i), r.leaves[i]!]);
  return out;
}

describe('info.counts: the ranges the snapshot answers, runs of one leaf', () => {
  // IPv6's count is the builder's (the meta's ranges_v6), not the index's entries: a range spanning
  // several /32 groups is one range (before, it counted once per group: the world snapshot's
  // `ipintel info` said 4,474,696 where the build said 4,445,039).
  it.each([
    [4, 32, V4_LENGTHS],
    [6, 128, V6_LENGTHS],
  ] as const)('IPv%i: the count is the walked ranges with equal neighbours merged, before and after the index is decoded', (version, bits, lengths) => {
    fc.assert(
      fc.property(prefixSetArb(bits, lengths, LEAVES), (prefixes) => {
        const model = modelFromPrefixes(version === 4 ? prefixes : [], version === 6 ? prefixes : [], LEAVES);
        const intel = loadSnapshot(encodeSnapshot(model));
        const count = (): number => (version === 4 ? intel.info.counts.ipv4_ranges : intel.info.counts.ipv6_ranges);
        const before = count();
        const walked = merged(flatRanges(intel, version)).length;
        expect(before).toBe(walked);
        expect(count()).toBe(walked);
      }),
    );
  });
});

describe('flatRanges', () => {
  it.each([
    [4, 32, V4_LENGTHS],
    [6, 128, V6_LENGTHS],
  ] as const)('IPv%i: the walked ranges are the written ones, and each answers its leaf at both ends', (version, bits, lengths) => {
    fc.assert(
      fc.property(prefixSetArb(bits, lengths, LEAVES), (prefixes) => {
        const model = modelFromPrefixes(version === 4 ? prefixes : [], version === 6 ? prefixes : [], LEAVES);
        const intel = loadSnapshot(encodeSnapshot(model));
        const r = flatRanges(intel, version);
        const want = version === 4 ? model.v4 : model.v6;
        // Leaf ids are the file's (most space first): mapped back to the model's by what they answer.
        const modelOf = modelLeaves(intel);
        expect(merged(r).map(([s, leaf]) => [s, modelOf[leaf]])).toEqual(want.starts.map((s, i) => [s, want.values[i]]));
        const max = (1n << BigInt(bits)) - 1n;
        for (let i = 0; i < r.leaves.length; i++) {
          const last = i + 1 < r.leaves.length ? startOf(r, i + 1) - 1n : max;
          for (const x of [startOf(r, i), last]) {
            if (version === 6 && x >> 32n === 0xffffn) continue; // IPv4-mapped: answered from the IPv4 table
            expect(intel.check(bigIntToText(version, x)).geo.city).toBe(`city-${modelOf[r.leaves[i]!]}`);
          }
        }
      }),
    );
  });
});
