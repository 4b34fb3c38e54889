/**
 * A result's shared parts come from separate caches (network by row, and by
 * network/signal pair on the way to it; signals, risk and evidence by signal
 * set and routing flag): whatever rows leaves
 * combine, and in whatever order they are first asked for, each answer must
 * carry its own rows' values, never a part cached for another combination.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadSnapshot } from '../src/portable.js';
import { encodeSnapshot } from '../src/writer.js';
import { EMPTY_SIGNALS, modelFromPrefixes } from '@ipintel/testkit';
import type { SnapshotModel } from '../src/snapshot/model.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 100) });

const CONNECTIONS = ['isp', 'datacenter', 'mobile', 'satellite'] as const;
const LABELS = ['authoritative', 'inferred', 'beta'] as const;

const combo = fc.record({
  nets: fc.array(fc.record({ inferred: fc.boolean(), year: fc.integer({ min: 1990, max: 2025 }) }), { minLength: 1, maxLength: 5 }),
  sigs: fc.array(fc.record({ tor: fc.boolean(), c: fc.constantFrom(...CONNECTIONS), e: fc.constantFrom(...LABELS) }), { minLength: 1, maxLength: 4 }),
  leaves: fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 24 }),
  order: fc.array(fc.nat(), { minLength: 1, maxLength: 60 }),
});

describe('result parts', () => {
  it('follow each leaf own network row and signal set, in any order of first use', () => {
    fc.assert(
      fc.property(combo, ({ nets, sigs, leaves, order }) => {
        const n = leaves.length;
        // Leaf i holds 10.0.i.0/24.
        const base = modelFromPrefixes(
          leaves.map((_, i) => ({ start: BigInt(0x0a000000 + i * 256), length: 24, value: i })),
          [],
          n,
        );
        const model: SnapshotModel = {
          ...base,
          networks: nets.map((x, i) => ({ ...base.networks[0]!, asn: 64500 + i, allocation_date: `${x.year}-01-01`, routing_inferred: x.inferred })),
          signals: sigs.map((s) => ({ ...EMPTY_SIGNALS, is_tor: s.tor, connection_type: s.c, connection_evidence: s.e })),
          leaves: leaves.map(([net, sig], i) => ({ geo: i, net: net % nets.length, sig: sig % sigs.length })),
        };
        const intel = loadSnapshot(encodeSnapshot(model), { now: () => Date.parse('2026-06-01T00:00:00Z') });
        const ask = (i: number) => intel.check(`10.0.${i}.1`);
        for (const k of order) {
          const i = k % n;
          const leaf = model.leaves[i]!;
          const net = nets[leaf.net]!;
          const sig = sigs[leaf.sig]!;
          const r = ask(i);
          expect(r.geo.city).toBe(`city-${i}`);
          expect(r.network.asn).toBe(64500 + leaf.net);
          expect(r.network.allocation_date).toBe(`${net.year}-01-01`);
          expect(r.evidence.routing).toBe(net.inferred ? 'inferred' : 'authoritative');
          expect(r.evidence.connection_type).toBe(sig.e);
          expect(r.signals.connection_type).toBe(sig.c);
          expect(r.signals.is_tor).toBe(sig.tor);
          expect(r.risk.reasons.includes('is_tor')).toBe(sig.tor);
        }
        // One network object per network row, whichever pair met it first.
        const byNet = new Map<number, unknown>();
        for (let i = 0; i < n; i++) {
          const net = model.leaves[i]!.net;
          const network = ask(i).network;
          if (byNet.has(net)) expect(network).toBe(byNet.get(net));
          else byNet.set(net, network);
        }
        // checkBatch takes the staged path: the same answers.
        const ips = order.map((k) => `10.0.${k % n}.1`);
        expect(intel.checkBatch(ips)).toEqual(ips.map((ip) => intel.check(ip)));
      }),
    );
  });
});
