/**
 * The answer slots of the largest leaves (RecordTables.leafSlots, ids below
 * HOT_LEAVES) and the path of every other leaf must answer alike, and both
 * must follow the UTC day (allocation_age_days). Small test snapshots have
 * fewer leaves than get slots, so this one has more: one /32 per leaf, so
 * the writer's order (most space first, ties in the model's order) keeps
 * model leaf i at file id i and the last leaves past the slots.
 */
import { describe, expect, it } from 'vitest';
import { leafOfIPv4, resultForLeaf } from '../src/internal.js';
import { loadSnapshot } from '../src/portable.js';
import { HOT_LEAVES } from '../src/snapshot/tables.js';
import { bigIntToText } from '../src/writer.js';
import { modelFromPrefixes } from '@ipintel/testkit';
import { alternatingParts, expectAgesFollowTheDay, NOON } from './slot-snapshot.js';
import { modelLeaf } from './model-leaf.js';

const LEAVES = HOT_LEAVES + 4;
const BASE = 0x0a000000; // 10.0.0.0: leaf i (i >= 1) holds 10.0.0.0 + i
const prefixes = Array.from({ length: LEAVES - 1 }, (_, k) => ({ start: BigInt(BASE + k + 1), length: 32, value: k + 1 }));
const snapshot = alternatingParts(modelFromPrefixes(prefixes, [], LEAVES));
const bytes = snapshot.bytes;
const ipOf = (leaf: number) => bigIntToText(4, BigInt(BASE + leaf));
// Both sides of the line, and the leaf of the rest of the space (the largest: id 0).
const SAMPLE = [1, 2, HOT_LEAVES - 2, HOT_LEAVES - 1, HOT_LEAVES, HOT_LEAVES + 1, LEAVES - 1];

describe('answer slots of the largest leaves', () => {
  it('the sample reaches leaves on both sides of the slots', () => {
    const intel = loadSnapshot(bytes, { now: () => NOON });
    const ids = SAMPLE.map((m) => leafOfIPv4(intel, BASE + m));
    expect(ids.some((id) => id < HOT_LEAVES)).toBe(true);
    expect(ids.filter((id) => id >= HOT_LEAVES).length).toBeGreaterThanOrEqual(2);
  });

  it('check() answers every sampled leaf as the model says and as resultForLeaf does, first use and after', () => {
    const intel = loadSnapshot(bytes, { now: () => NOON });
    for (let round = 0; round < 2; round++) {
      for (const m of [0, ...SAMPLE]) {
        const ip = m === 0 ? '192.0.2.1' : ipOf(m);
        const r = intel.check(ip);
        expect(r.geo.city).toBe(`city-${m}`);
        expect(r.network.asn).toBe(64500 + (m % 2));
        expect(r.signals.is_tor).toBe(((m >> 1) & 1) === 1);
        // checkBatch takes the pair slots' path, never the answer slots.
        expect(intel.checkBatch([ip])[0]).toEqual(r);
        const id = leafOfIPv4(intel, m === 0 ? 0xc0000201 : BASE + m);
        expect(modelLeaf(intel, id)).toBe(m);
        expect(resultForLeaf(intel, id, ip, 4)).toEqual(r);
      }
    }
  });

  it('follows the UTC day on both paths (a clock stepping back is a new day too)', () => {
    expectAgesFollowTheDay(snapshot, SAMPLE, ipOf);
  });
});
