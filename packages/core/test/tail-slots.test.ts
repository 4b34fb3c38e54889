/**
 * Answer slots for the leaves only IPv6 reaches (RecordTables' tail slots,
 * given on the first IPv6 check: the writer numbers those leaves last, so
 * none of them is a hot leaf). The slots' path and the path through the
 * leaf's ids must answer alike, follow the UTC day, and the tail must be
 * exactly those leaves; `tailOfReached`, which finds where they begin, is
 * held to a plain reference for any ids.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resultForLeaf } from '../src/internal.js';
import { loadSnapshot, type IpIntel } from '../src/portable.js';
import { put24 } from '../src/bytes.js';
import { tailOfReached } from '../src/snapshot/v6-index.js';
import { HOT_LEAVES } from '../src/snapshot/tables.js';
import { bigIntToText } from '../src/writer.js';
import { modelFromPrefixes } from '@ipintel/testkit';
import { alternatingParts, expectAgesFollowTheDay, NOON } from './slot-snapshot.js';
import { modelLeaf, modelLeaves } from './model-leaf.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 200) });

// Model leaf 0 holds the rest of both families; 1..V6_FROM-1 an IPv4 /32 each, more leaves than get hot
// slots (small snapshots have fewer, and then no tail: every leaf is hot); BOTH an IPv4 /32 and an IPv6
// /48 too; V6_FROM..LEAVES-1 an IPv6 /48 each (the leaves only IPv6 reaches).
const V6_FROM = HOT_LEAVES + 20;
const LEAVES = V6_FROM + 20;
const BOTH = 5;
const v6Of = (m: number): bigint => (0x20010db8n << 96n) | (BigInt(m) << 80n);
const v6Text = (m: number): string => bigIntToText(6, v6Of(m) + 1n);
const v4Of = (m: number): number => 0x0a000000 + m;
const v4Text = (m: number): string => bigIntToText(4, BigInt(v4Of(m)));
const snapshot = alternatingParts(
  modelFromPrefixes(
    Array.from({ length: V6_FROM - 1 }, (_, k) => ({ start: BigInt(v4Of(k + 1)), length: 32, value: k + 1 })),
    [BOTH, ...Array.from({ length: LEAVES - V6_FROM }, (_, k) => V6_FROM + k)].map((m) => ({ start: v6Of(m), length: 48, value: m })),
    LEAVES,
  ),
);
const bytes = snapshot.bytes;
const IPV6_ONLY = Array.from({ length: LEAVES - V6_FROM }, (_, k) => V6_FROM + k);

/** The answer-slot bookkeeping of an IpIntel (private: this test holds it to what it should be). */
const tail = (intel: IpIntel): { tailFrom: number; tailCount: number } => (intel as unknown as { tables: { tailFrom: number; tailCount: number } }).tables;
/** File leaf id by model leaf (the writer numbers leaves its own way). */
const idsOf = (intel: IpIntel): number[] => {
  const ids: number[] = [];
  modelLeaves(intel).forEach((m, id) => (ids[m] = id));
  return ids;
};

describe('answer slots of the leaves only IPv6 reaches', () => {
  it('are given on the first IPv6 check, to exactly those leaves', () => {
    const intel = loadSnapshot(bytes, { now: () => NOON });
    intel.check(v4Text(3));
    expect(tail(intel).tailCount).toBe(0);
    intel.check(v6Text(V6_FROM));
    const { tailFrom, tailCount } = tail(intel);
    expect(tailFrom + tailCount).toBe(LEAVES);
    const inTail = Array.from({ length: tailCount }, (_, k) => modelLeaf(intel, tailFrom + k)).sort((a, b) => a - b);
    expect(inTail).toEqual(IPV6_ONLY);
    // The leaf IPv6 shares with IPv4 is not in the tail.
    expect(idsOf(intel)[BOTH]).toBeLessThan(tailFrom);
  });

  it('are given at load with preload', () => {
    const intel = loadSnapshot(bytes, { now: () => NOON, preload: true });
    expect(tail(intel).tailCount).toBe(LEAVES - V6_FROM);
  });

  it('check() answers every leaf as the model says and as resultForLeaf and checkBatch do, first use and after', () => {
    const intel = loadSnapshot(bytes, { now: () => NOON });
    const ids = idsOf(intel);
    for (let round = 0; round < 2; round++) {
      for (const m of [0, 1, BOTH, V6_FROM - 1, ...IPV6_ONLY]) {
        const ips = m === 0 ? ['192.0.2.1', '2a00::1'] : [...(m < V6_FROM ? [v4Text(m)] : []), ...(m === BOTH || m >= V6_FROM ? [v6Text(m)] : [])];
        for (const ip of ips) {
          const r = intel.check(ip);
          expect(r.geo.city).toBe(`city-${m}`);
          expect(r.network.asn).toBe(64500 + (m % 2));
          expect(r.signals.is_tor).toBe(((m >> 1) & 1) === 1);
          expect(intel.checkBatch([ip])[0]).toEqual(r);
          expect(resultForLeaf(intel, ids[m]!, ip, r.version)).toEqual(r);
        }
      }
    }
    expect(tail(intel).tailCount).toBe(LEAVES - V6_FROM);
  });

  it('follow the UTC day (a clock stepping back is a new day too)', () => {
    expectAgesFollowTheDay(snapshot, IPV6_ONLY, v6Text);
  });
});

describe('tailOfReached', () => {
  /** Ids as a column of 3-byte leaf ids. */
  const column = (ids: readonly number[]): Uint8Array => {
    const b = new Uint8Array(3 * ids.length);
    ids.forEach((id, i) => put24(b, 3 * i, id));
    return b;
  };

  it('is where the run of named leaves that ends at the last leaf begins, for any ids', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 300 }).chain((n) =>
          fc.tuple(fc.constant(n), fc.array(fc.array(fc.oneof(fc.nat({ max: n + 4 }), fc.constant(0x800000 + n)), { maxLength: 400 }), { maxLength: 3 })),
        ),
        ([n, lists]) => {
          const named = new Set(lists.flat());
          let want = n;
          while (want > 0 && named.has(want - 1)) want--;
          expect(tailOfReached(lists.map(column), n)).toBe(want);
        },
      ),
    );
  });

  it('is the leaf count when the last leaf is not named, and 0 when every leaf is', () => {
    expect(tailOfReached([column([0, 1, 2])], 4)).toBe(4);
    expect(tailOfReached([column([3, 1]), column([0, 2])], 4)).toBe(0);
    expect(tailOfReached([column([3, 2, 0])], 4)).toBe(2);
  });
});
