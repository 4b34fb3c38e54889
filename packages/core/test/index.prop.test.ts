/**
 * Differential test: random prefix sets are written with the real writer, read
 * back with the real reader, and every lookup is compared with a naive
 * longest-prefix scan (the oracle). Nested and adjacent prefixes are made on
 * purpose; IPv6 prefixes longer than /64 exercise the sub-tables.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leafCount, leafCoverage, leafGeoPairsMany, leafOfIPv4, leafRecords, leafRecordsMany, pairCount, pairRecords, resultForLeaf } from '../src/internal.js';
import { loadSnapshot } from '../src/portable.js';
import { bigIntToText, encodeSnapshot, type PrefixEntry } from '../src/writer.js';
import { modelFromPrefixes, naiveLpm, prefixSetArb, probeAddresses, stoppedClock } from '@ipintel/testkit';
import { modelLeaf, modelLeaves } from './model-leaf.js';

const RUNS = Number(process.env.FC_RUNS ?? 60);
fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: RUNS });

const V4_LENGTHS = [0, 1, 8, 12, 15, 16, 17, 20, 23, 24, 25, 28, 31, 32];
const V6_LENGTHS = [0, 3, 16, 19, 29, 31, 32, 33, 40, 47, 48, 56, 63, 64, 65, 80, 96, 112, 127, 128];
const LEAVES = 12;

describe('index vs naive longest-prefix scan', () => {
  it('IPv4: every probed address gets the oracle answer', () => {
    fc.assert(
      fc.property(prefixSetArb(32, V4_LENGTHS, LEAVES), fc.array(fc.bigInt({ min: 0n, max: 0xffffffffn }), { maxLength: 50 }), (prefixes, random) => {
        const intel = loadSnapshot(encodeSnapshot(modelFromPrefixes(prefixes, [], LEAVES)));
        for (const x of probeAddresses(32, prefixes, random)) {
          const want = naiveLpm(32, prefixes, x);
          expect(intel.check(bigIntToText(4, x)).geo.city).toBe(`city-${want}`);
          // The file numbers leaves its own way (most space first): the raw leaf answers as the model's leaf.
          expect(modelLeaf(intel, leafOfIPv4(intel, Number(x)))).toBe(want);
        }
      }),
    );
  });

  it('IPv6: every probed address gets the oracle answer (including sub-/64 boundaries)', () => {
    fc.assert(
      fc.property(
        prefixSetArb(128, V6_LENGTHS, LEAVES),
        fc.array(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), { maxLength: 50 }),
        (prefixes, random) => {
          const intel = loadSnapshot(encodeSnapshot(modelFromPrefixes([], prefixes, LEAVES)));
          for (const x of probeAddresses(128, prefixes, random)) {
            if (x >> 32n === 0xffffn) continue; // IPv4-mapped: answered from the IPv4 table by design
            const want = naiveLpm(128, prefixes, x);
            expect(intel.check(bigIntToText(6, x)).geo.city).toBe(`city-${want}`);
          }
        },
      ),
    );
  });

  it('match() returns the largest block around the address whose addresses all share its answer', () => {
    fc.assert(
      fc.property(prefixSetArb(32, V4_LENGTHS, LEAVES), fc.bigInt({ min: 0n, max: 0xffffffffn }), (prefixes, x) => {
        const intel = loadSnapshot(encodeSnapshot(modelFromPrefixes(prefixes, [], LEAVES)));
        const m = intel.match(bigIntToText(4, x));
        const size = 1n << BigInt(32 - m.prefix_length);
        const first = x - (x % size);
        expect(m.prefix).toBe(`${bigIntToText(4, first)}/${m.prefix_length}`);
        const want = naiveLpm(32, prefixes, x);
        // Every prefix edge inside the block answers the same; the block twice as large does not.
        for (const y of probeAddresses(32, prefixes, [first, first + size - 1n])) {
          if (y >= first && y < first + size) expect(naiveLpm(32, prefixes, y)).toBe(want);
        }
        if (m.prefix_length > 0) {
          const parent = x - (x % (size * 2n));
          const differs = probeAddresses(32, prefixes, [parent, parent + size * 2n - 1n]).some(
            (y) => y >= parent && y < parent + size * 2n && naiveLpm(32, prefixes, y) !== want,
          );
          expect(differs).toBe(true);
        }
      }),
    );
  });

  it('the writer is deterministic: the same model gives the same bytes', () => {
    fc.assert(
      fc.property(prefixSetArb(32, V4_LENGTHS, LEAVES), prefixSetArb(128, V6_LENGTHS, LEAVES), (p4, p6) => {
        const a = encodeSnapshot(modelFromPrefixes(p4, p6, LEAVES));
        const b = encodeSnapshot(modelFromPrefixes(p4, p6, LEAVES));
        expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
      }),
      { numRuns: 20 },
    );
  });
});

describe('@ipintel/core/internal: leafCoverage, leafRecords, resultForLeaf', () => {
  it('coverage per leaf equals the oracle count of addresses per value (IPv4) and sums to the whole space', () => {
    fc.assert(
      fc.property(prefixSetArb(32, [8, 12, 16, 20, 24, 28, 32], LEAVES), (prefixes) => {
        const intel = loadSnapshot(encodeSnapshot(modelFromPrefixes(prefixes, [], LEAVES)));
        const { v4, v6 } = leafCoverage(intel);
        expect(v4.reduce((a, b) => a + b, 0)).toBe(2 ** 32);
        expect(v6.reduce((a, b) => a + b, 0)).toBe(2 ** 64);
        // Oracle: walk the boundaries of all prefixes, value per segment by the naive scan.
        const cuts = new Set<bigint>([0n, 1n << 32n]);
        for (const p of prefixes) {
          cuts.add(p.start);
          cuts.add(p.start + (1n << BigInt(32 - p.length)));
        }
        const sorted = [...cuts].sort((a, b) => (a < b ? -1 : 1));
        const want = new Array<number>(LEAVES).fill(0);
        for (let i = 0; i + 1 < sorted.length; i++) want[naiveLpm(32, prefixes, sorted[i]!)]! += Number(sorted[i + 1]! - sorted[i]!);
        // File leaf ids mapped to the model's by what they answer.
        expect(Array.from(v4)).toEqual(modelLeaves(intel).map((k) => want[k]));
        // The writer numbers leaves most IPv4 space first (snapshot/order.ts).
        for (let id = 1; id < v4.length; id++) expect(v4[id]).toBeLessThanOrEqual(v4[id - 1]!);
      }),
      { numRuns: 30 },
    );
  });

  it('IPv6 coverage counts /64 blocks, with shares inside finer blocks', () => {
    const p = (hi: bigint, len: number, value: number): PrefixEntry<number> => ({ start: hi, length: len, value });
    const intel = loadSnapshot(
      encodeSnapshot(modelFromPrefixes([], [p(0x20010db8n << 96n, 48, 1), p((0x20010db8n << 96n) | 0x80n, 121, 2)], 3)),
    );
    const { v6 } = leafCoverage(intel);
    expect(v6[2]).toBeCloseTo(128 / 2 ** 64, 30);
    expect(v6[1]).toBeCloseTo(2 ** 16 - 128 / 2 ** 64, 6);
    expect(v6[0]! + v6[1]! + v6[2]!).toBe(2 ** 64);
  });

  it('leafGeoPairsMany and pairRecords give the ids leafRecords gives, one pair per network and signal set', () => {
    const base = modelFromPrefixes([], [], 1);
    const signals = [base.signals[0]!, { ...base.signals[0]!, is_tor: true }, { ...base.signals[0]!, is_vpn: true }];
    const networks = [0, 1, 2, 3].map((i) => ({ ...base.networks[0]!, asn: 64500 + i }));
    const leafArb = fc.record({ geo: fc.constant(0), net: fc.nat({ max: 3 }), sig: fc.nat({ max: 2 }) });
    fc.assert(
      fc.property(fc.uniqueArray(leafArb, { minLength: 1, maxLength: 12, selector: (l) => `${l.net}/${l.sig}` }), (leaves) => {
        const intel = loadSnapshot(encodeSnapshot({ ...base, networks, signals, leaves }));
        const n = leafCount(intel);
        const all = Uint32Array.from({ length: n }, (_, i) => i);
        const gp = new Uint32Array(2 * n);
        const ids = new Uint32Array(3 * n);
        leafGeoPairsMany(intel, all, n, gp);
        leafRecordsMany(intel, all, n, ids);
        const seen = new Map<number, string>();
        const pr = new Uint32Array(2);
        for (let j = 0; j < n; j++) {
          const pair = gp[2 * j + 1]!;
          expect(gp[2 * j]).toBe(ids[3 * j]);
          expect(pair).toBeLessThan(pairCount(intel));
          pairRecords(intel, pair, pr);
          expect([pr[0], pr[1]]).toEqual([ids[3 * j + 1], ids[3 * j + 2]]);
          // One pair id per (network, signal set): leaves that share one share the id, others do not.
          const key = `${pr[0]}/${pr[1]}`;
          expect(seen.get(pair) ?? key).toBe(key);
          seen.set(pair, key);
        }
        expect(new Set(seen.values()).size).toBe(seen.size);
        for (const bad of [pairCount(intel), -1, 0.5, Number.NaN]) expect(() => pairRecords(intel, bad, pr)).toThrow(/out of range/);
        expect(() => leafGeoPairsMany(intel, Uint32Array.of(n), 1, gp)).toThrow(/out of range/);
        expect(() => leafGeoPairsMany(intel, all, n, new Uint32Array(2 * n - 1))).toThrow(/n fits/);
        expect(() => leafGeoPairsMany(intel, Array.from(all) as unknown as Uint32Array, n, gp)).toThrow(/Uint32Array/);
        expect(() => pairRecords(intel, 0, new Uint32Array(1))).toThrow(/at least 2/);
      }),
      { numRuns: 50 },
    );
  });

  it('leafRecords gives the ids behind a result and refuses unknown leaves', () => {
    // A stopped clock: resultForLeaf and check() each read the day (allocation_age_days) and are compared.
    const intel = loadSnapshot(encodeSnapshot(modelFromPrefixes([{ start: 0x08080800n, length: 24, value: 2 }], [], 3)), { now: stoppedClock });
    const out = new Uint32Array(3);
    const leaf = leafOfIPv4(intel, 0x08080808);
    leafRecords(intel, leaf, out);
    // Model leaf 2 (geo row 2) holds a /24: the second most space after leaf 0's rest of the
    // space, so the file (most space first) numbers both the leaf and its geo row 1.
    expect([leaf, ...out]).toEqual([1, 1, 0, 0]);
    for (const bad of [3, -1, 0.5, Number.NaN]) {
      expect(() => leafRecords(intel, bad, out)).toThrow(/out of range/);
      expect(() => resultForLeaf(intel, bad, '8.8.8.8', 4)).toThrow(/out of range/);
    }
    expect(resultForLeaf(intel, leaf, '8.8.8.8', 4)).toEqual(intel.check('8.8.8.8'));
    expect(resultForLeaf(intel, 2, '8.8.8.8', 4).geo.city).toBe('city-1');
  });
});
