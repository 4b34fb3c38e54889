/**
 * The risk score and the evidence labels against an independent reading of
 * PRODUCT.md (sections 2, 3 and 4), transcribed here by hand: nothing below
 * imports RISK_WEIGHTS, the thresholds or the evidence table of the code, so
 * a change to a weight, a threshold, a reason's name or order, or a label in
 * the code fails here until the product's table says the same.
 *
 * Checked three ways: scoreSignals over every combination of the signals
 * that can fire (exhaustively, 8 flags x 5 connection types), over arbitrary
 * signal sets (names and the flags that carry no weight too), and end to
 * end: arbitrary signal sets written into a snapshot and read back through
 * check() and checkBatch(), so the flag bits of the file, the derived
 * is_datacenter, the evidence labels and the score all meet the model.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadSnapshot, scoreSignals } from '../src/portable.js';
import { encodeSnapshot } from '../src/writer.js';
import type { ConnectionType, Evidence, Signals } from '../src/types.js';
import type { SignalRow } from '../src/snapshot/model.js';
import { EMPTY_SIGNALS, modelFromPrefixes, signalsArb } from '@ipintel/testkit';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 200) });

/** PRODUCT.md section 4, in the table's order: reason, weight, when it fires. */
const PRODUCT_WEIGHTS: readonly (readonly [string, number, (s: Signals) => boolean])[] = [
  ['is_tor', 45, (s) => s.is_tor],
  ['is_proxy', 40, (s) => s.is_proxy],
  // Section 3: is_datacenter iff connection_type == "datacenter".
  ['is_datacenter', 35, (s) => s.connection_type === 'datacenter'],
  ['is_vpn', 30, (s) => s.is_vpn],
  ['is_drop_listed', 50, (s) => s.is_drop_listed],
  ['recent_abuse', 25, (s) => s.recent_abuse],
  ['is_relay', 10, (s) => s.is_relay],
  // "the address is a public resolver or a verified crawler"; a verified crawler adds nothing itself.
  ['benign_network_kind', -15, (s) => s.is_public_resolver || s.is_verified_bot],
];

/** score = clamp(0, 100, sum); low < 30, 30 <= medium <= 59, high >= 60; reasons in table order. */
function productRisk(s: Signals): { score: number; level: string; reasons: string[] } {
  const fired = PRODUCT_WEIGHTS.filter(([, , fires]) => fires(s));
  const sum = fired.reduce((a, [, w]) => a + w, 0);
  const score = sum < 0 ? 0 : sum > 100 ? 100 : sum;
  const level = score < 30 ? 'low' : score <= 59 ? 'medium' : 'high';
  return { score, level, reasons: fired.map(([reason]) => reason) };
}

/** PRODUCT.md section 2: the label of each evidence key's source class (connection_type and routing vary). */
function productEvidence(connection: string, routingInferred: boolean, unavailable: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {
    connection_type: connection,
    tor: 'authoritative',
    vpn: 'inferred',
    proxy: 'beta',
    verified_bot: 'authoritative',
    relay: 'authoritative',
    routing: routingInferred ? 'inferred' : 'authoritative',
    allocation: 'authoritative',
    drop_listed: 'authoritative',
    recent_abuse: 'beta',
    public_resolver: 'authoritative',
  };
  for (const k of unavailable) labels[k] = 'unavailable';
  return labels;
}

const CONNECTIONS: readonly ConnectionType[] = ['datacenter', 'satellite', 'mobile', 'isp', 'unknown'];
const FLAGS = ['is_tor', 'is_proxy', 'is_vpn', 'is_drop_listed', 'recent_abuse', 'is_relay', 'is_public_resolver', 'is_verified_bot'] as const;
const NONE: Signals = (({ connection_evidence: _, ...row }) => ({ ...row, is_datacenter: false }))(EMPTY_SIGNALS);

describe('risk score against PRODUCT.md section 4 (independent model)', () => {
  it('every combination of the signals that can fire: score, level and reasons in table order', () => {
    let combos = 0;
    for (const connection_type of CONNECTIONS) {
      for (let m = 0; m < 1 << FLAGS.length; m++) {
        const s: Signals = { ...NONE, connection_type, is_datacenter: connection_type === 'datacenter' };
        const set = s as unknown as Record<string, unknown>;
        FLAGS.forEach((f, i) => (set[f] = (m & (1 << i)) !== 0));
        if (s.is_verified_bot) set['verified_bot_name'] = 'Googlebot';
        expect(scoreSignals(s), JSON.stringify(s)).toEqual(productRisk(s));
        combos++;
      }
    }
    expect(combos).toBe(5 * 256);
  });

  it('property: arbitrary signal sets (names, anycast and provider fields included) score as the model says', () => {
    fc.assert(
      fc.property(signalsArb, (s) => {
        expect(scoreSignals(s)).toEqual(productRisk(s));
      }),
    );
  });

  it('the worked examples: the spec sample (datacenter + benign = 20, low), the caps, a lone crawler', () => {
    const dc = { ...NONE, connection_type: 'datacenter' as const, is_datacenter: true };
    expect(scoreSignals({ ...dc, is_public_resolver: true })).toEqual({ score: 20, level: 'low', reasons: ['is_datacenter', 'benign_network_kind'] });
    expect(scoreSignals({ ...NONE, is_verified_bot: true, verified_bot_name: 'Googlebot' })).toEqual({ score: 0, level: 'low', reasons: ['benign_network_kind'] });
    // 45 + 40 + 35 + 30 + 50 + 25 + 10 = 235, capped at 100; with benign 220, still 100.
    const all = { ...dc, is_tor: true, is_proxy: true, is_vpn: true, is_drop_listed: true, recent_abuse: true, is_relay: true };
    expect(scoreSignals(all).score).toBe(100);
    expect(scoreSignals({ ...all, is_public_resolver: true }).reasons).toEqual([...PRODUCT_WEIGHTS.map(([r]) => r)]);
    // The thresholds, from below and above: 25 low, 30 medium, 55 medium, 60 high.
    expect(scoreSignals({ ...NONE, recent_abuse: true }).level).toBe('low');
    expect(scoreSignals({ ...NONE, is_vpn: true }).level).toBe('medium');
    expect(scoreSignals({ ...NONE, is_vpn: true, recent_abuse: true }).level).toBe('medium');
    expect(scoreSignals({ ...NONE, is_relay: true, is_drop_listed: true }).level).toBe('high');
  });
});

const rowArb: fc.Arbitrary<SignalRow> = fc
  .tuple(signalsArb, fc.constantFrom('authoritative' as const, 'inferred' as const, 'beta' as const))
  .map(([{ is_datacenter: _, ...s }, connection_evidence]) => ({ ...s, connection_evidence }));

const EVIDENCE_KEYS: readonly (keyof Evidence)[] = [
  'connection_type', 'tor', 'vpn', 'proxy', 'verified_bot', 'relay', 'routing', 'allocation', 'drop_listed', 'recent_abuse', 'public_resolver',
];

describe('check() end to end against the model', () => {
  it('property: any signal sets written to a snapshot come back with the product score, is_datacenter and evidence labels', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(rowArb, fc.boolean()), { minLength: 1, maxLength: 12 }),
        fc.subarray([...EVIDENCE_KEYS]),
        (leaves, unavailable) => {
          const n = leaves.length;
          const base = modelFromPrefixes(
            leaves.map((_, i) => ({ start: BigInt(0x0a000000 + i * 256), length: 24, value: i })),
            [],
            n,
          );
          const intel = loadSnapshot(
            encodeSnapshot({
              ...base,
              unavailable,
              networks: leaves.map(([, inferred], i) => ({ ...base.networks[0]!, asn: 64500 + i, routing_inferred: inferred })),
              signals: leaves.map(([row]) => row),
              leaves: leaves.map((_, i) => ({ geo: i, net: i, sig: i })),
            }),
          );
          const ips = leaves.map((_, i) => `10.0.${i}.7`);
          const batch = intel.checkBatch(ips);
          leaves.forEach(([row, inferred], i) => {
            const r = intel.check(ips[i]!);
            const { connection_evidence, ...fields } = row;
            const signals: Signals = { ...fields, is_datacenter: row.connection_type === 'datacenter' };
            expect(r.signals).toEqual(signals);
            expect(r.signals.is_datacenter).toBe(r.signals.connection_type === 'datacenter');
            expect(r.risk).toEqual(productRisk(signals));
            expect(r.evidence).toEqual(productEvidence(connection_evidence, inferred, unavailable));
            expect(Object.keys(r.evidence)).toEqual(EVIDENCE_KEYS);
            expect(batch[i]).toEqual(r);
          });
        },
      ),
    );
  });
});
