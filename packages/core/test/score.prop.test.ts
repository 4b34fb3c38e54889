import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RISK_WEIGHTS, riskLevel, scoreSignals } from '../src/portable.js';
import type { Signals } from '../src/types.js';
import { EMPTY_SIGNALS, signalsArb } from '@ipintel/testkit';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 1000) });

// The empty signal set of the kit, in the result's shape (no evidence field; is_datacenter derived).
const { connection_evidence, ...emptyRow } = EMPTY_SIGNALS;
const NONE: Signals = { ...emptyRow, is_datacenter: false };

/** The positive-weight signals, as setters on a signal set. */
const POSITIVE: Record<string, (s: Signals) => Signals> = {
  is_tor: (s) => ({ ...s, is_tor: true }),
  is_proxy: (s) => ({ ...s, is_proxy: true }),
  is_datacenter: (s) => ({ ...s, connection_type: 'datacenter', is_datacenter: true }),
  is_vpn: (s) => ({ ...s, is_vpn: true }),
  is_drop_listed: (s) => ({ ...s, is_drop_listed: true }),
  recent_abuse: (s) => ({ ...s, recent_abuse: true }),
  is_relay: (s) => ({ ...s, is_relay: true }),
};

describe('risk score', () => {
  it('is an integer in 0..100 whose level follows the thresholds', () => {
    fc.assert(
      fc.property(signalsArb, (s) => {
        const r = scoreSignals(s);
        expect(Number.isInteger(r.score)).toBe(true);
        expect(r.score).toBeGreaterThanOrEqual(0);
        expect(r.score).toBeLessThanOrEqual(100);
        expect(r.level).toBe(r.score < 30 ? 'low' : r.score <= 59 ? 'medium' : 'high');
      }),
    );
  });

  it('level boundaries sit at 29/30 and 59/60', () => {
    expect([riskLevel(0), riskLevel(29), riskLevel(30), riskLevel(59), riskLevel(60), riskLevel(100)]).toEqual([
      'low', 'low', 'medium', 'medium', 'high', 'high',
    ]);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 }), (x) => {
        expect(riskLevel(x)).toBe(x < 30 ? 'low' : x < 60 ? 'medium' : 'high');
      }),
    );
  });

  it('is min(100, max(0, sum of the weights that fired)) and reasons are exactly those, in table order', () => {
    fc.assert(
      fc.property(signalsArb, (s) => {
        const fired = RISK_WEIGHTS.filter((w) => w.fires(s));
        const r = scoreSignals(s);
        expect(r.reasons).toEqual(fired.map((w) => w.reason));
        expect(r.score).toBe(Math.min(100, Math.max(0, fired.reduce((a, w) => a + w.weight, 0))));
        // Independently of the table: each reason matches its signal.
        expect(r.reasons.includes('is_tor')).toBe(s.is_tor);
        expect(r.reasons.includes('is_datacenter')).toBe(s.connection_type === 'datacenter');
        expect(r.reasons.includes('benign_network_kind')).toBe(s.is_public_resolver || s.is_verified_bot);
      }),
    );
  });

  it('adding a positive-weight signal never lowers the score', () => {
    fc.assert(
      fc.property(signalsArb, fc.constantFrom(...Object.keys(POSITIVE)), (s, key) => {
        expect(scoreSignals(POSITIVE[key]!(s)).score).toBeGreaterThanOrEqual(scoreSignals(s).score);
      }),
    );
  });

  it('a verified crawler adds no weight of its own', () => {
    fc.assert(
      fc.property(signalsArb, (s) => {
        const base = { ...s, is_verified_bot: false, verified_bot_name: null };
        const bot = { ...s, is_verified_bot: true, verified_bot_name: 'Googlebot' };
        // The bot only (possibly) adds the benign reason, never a positive weight.
        const diff = scoreSignals(bot).reasons.filter((r) => !scoreSignals(base).reasons.includes(r));
        expect(diff.every((r) => r === 'benign_network_kind')).toBe(true);
        expect(scoreSignals(bot).score).toBeLessThanOrEqual(scoreSignals(base).score);
      }),
    );
  });

  it('the spec weights: tor 45, proxy 40, datacenter 35, vpn 30', () => {
    expect(scoreSignals(POSITIVE.is_tor!(NONE)).score).toBe(45);
    expect(scoreSignals(POSITIVE.is_proxy!(NONE)).score).toBe(40);
    expect(scoreSignals(POSITIVE.is_datacenter!(NONE)).score).toBe(35);
    expect(scoreSignals(POSITIVE.is_vpn!(NONE)).score).toBe(30);
    expect(scoreSignals(NONE)).toEqual({ score: 0, level: 'low', reasons: [] });
  });

  it('datacenter + benign network kind alone scores 20, low (the spec sample)', () => {
    const s = { ...POSITIVE.is_datacenter!(NONE), is_public_resolver: true };
    expect(scoreSignals(s)).toEqual({ score: 20, level: 'low', reasons: ['is_datacenter', 'benign_network_kind'] });
    const bot = { ...POSITIVE.is_datacenter!(NONE), is_verified_bot: true, verified_bot_name: 'Googlebot' };
    expect(scoreSignals(bot)).toEqual({ score: 20, level: 'low', reasons: ['is_datacenter', 'benign_network_kind'] });
  });

  it('results are frozen', () => {
    const r = scoreSignals(POSITIVE.is_tor!(NONE));
    expect(Object.isFrozen(r)).toBe(true);
    expect(Object.isFrozen(r.reasons)).toBe(true);
  });
});
