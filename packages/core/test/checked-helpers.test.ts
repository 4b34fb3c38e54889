/**
 * The exported result helpers check what they read (result/checked-helpers.ts):
 * a value of the wrong kind is `invalid_input` naming the field, never a
 * bare TypeError or a wrong answer; a value of the right kind answers as the
 * unchecked function the snapshot's own code calls.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nativeArb } from '@ipintel/testkit';
import { IpIntelError, evidenceFor, riskLevel, scoreSignals, toThirdParty } from '../src/portable.js';
import { evidenceFor as evidenceOf } from '../src/result/evidence.js';
import { riskLevel as levelOf, scoreSignals as scoreOf } from '../src/result/score.js';
import { toThirdParty as thirdPartyOf } from '../src/result/thirdparty.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 500) });

/** Runs `f`; the IpIntelError it threw (failing the test for anything else), or undefined. */
function refusal(f: () => unknown): IpIntelError | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(IpIntelError);
    return e as IpIntelError;
  }
}

/** A value of another kind than the field's: every kind that is not a boolean, string, finite number or null. */
const otherThan = (kind: 'boolean' | 'string|null' | 'number|null' | 'asn' | 'string') =>
  fc.oneof(fc.constant(undefined), fc.constant(Number.NaN), fc.object(), fc.array(fc.integer()), fc.boolean(), fc.string(), fc.constant(null), fc.integer({ min: -5, max: 5 }).map((n) => n - 0.5)).filter((v) => {
    if (kind === 'boolean') return typeof v !== 'boolean';
    if (kind === 'string') return typeof v !== 'string';
    if (kind === 'string|null') return v !== null && typeof v !== 'string';
    if (kind === 'number|null') return v !== null && !(typeof v === 'number' && Number.isFinite(v));
    return !(typeof v === 'number' && Number.isSafeInteger(v) && v >= 0);
  });

const MAPPED = {
  geo: { city: 'string|null', region: 'string|null', country_code: 'string|null', latitude: 'number|null', longitude: 'number|null', timezone: 'string|null' },
  network: { asn: 'asn', as_org: 'string', is_bogon: 'boolean' },
  signals: { is_anycast: 'boolean', is_vpn: 'boolean', is_proxy: 'boolean', is_tor: 'boolean', is_relay: 'boolean', connection_type: 'string', relay_provider: 'string|null', datacenter_provider: 'string|null' },
} as const;
const SCORED = ['is_tor', 'is_proxy', 'is_datacenter', 'is_vpn', 'is_drop_listed', 'recent_abuse', 'is_relay', 'is_public_resolver', 'is_verified_bot'] as const;

describe('toThirdParty, as exported', () => {
  it('maps a native result as the unchecked function does', () => {
    fc.assert(
      fc.property(nativeArb, (n) => {
        expect(toThirdParty(n)).toEqual(thirdPartyOf(n));
      }),
    );
  });

  it('refuses a result with a field it reads of the wrong kind, naming the field', () => {
    const field = fc.constantFrom(...Object.entries(MAPPED).flatMap(([part, fields]) => Object.entries(fields).map(([name, kind]) => ({ part, name, kind }))));
    fc.assert(
      fc.property(nativeArb, field.chain((f) => otherThan(f.kind).map((bad) => ({ ...f, bad }))), (n, { part, name, bad }) => {
        const broken = { ...n, [part]: { ...(n as unknown as Record<string, object>)[part], [name]: bad } };
        const e = refusal(() => toThirdParty(broken));
        expect(e?.code).toBe('invalid_input');
        expect(e?.message).toContain(`result.${part}.${name}`);
      }),
    );
  });

  it('refuses what is no result at all', () => {
    for (const x of [null, undefined, 7, 'ip', [], { ip: '1.2.3.4' }, { ip: 1, geo: {}, network: {}, signals: {} }]) {
      expect(refusal(() => toThirdParty(x as never))?.code).toBe('invalid_input');
    }
  });
});

describe('scoreSignals and riskLevel, as exported', () => {
  it('score signals as the unchecked function does, and refuse a scored signal that is no boolean', () => {
    fc.assert(
      fc.property(nativeArb, fc.constantFrom(...SCORED), otherThan('boolean'), (n, name, bad) => {
        expect(scoreSignals(n.signals)).toEqual(scoreOf(n.signals));
        const e = refusal(() => scoreSignals({ ...n.signals, [name]: bad }));
        expect(e?.code).toBe('invalid_input');
        expect(e?.message).toContain(`signals.${name}`);
      }),
    );
    expect(refusal(() => scoreSignals(null as never))?.code).toBe('invalid_input');
  });

  it('give the level of every score from 0 to 100, and refuse anything else', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 100, noNaN: true }), (s) => {
        expect(riskLevel(s)).toBe(levelOf(s));
      }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.double().filter((d) => !(d >= 0 && d <= 100)), fc.string(), fc.constant(null), fc.object()), (bad) => {
        expect(refusal(() => riskLevel(bad as never))?.code).toBe('invalid_input');
      }),
    );
  });
});

describe('evidenceFor, as exported', () => {
  it('answers for every label pair, and refuses a label that is none', () => {
    for (const c of ['authoritative', 'inferred', 'beta', 'unavailable'] as const) {
      for (const r of ['authoritative', 'inferred'] as const) expect(evidenceFor(c, r)).toBe(evidenceOf(c, r));
    }
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), (bad) => {
        fc.pre(!['authoritative', 'inferred', 'beta', 'unavailable'].includes(bad as string));
        expect(refusal(() => evidenceFor(bad as never))?.code).toBe('invalid_input');
        expect(refusal(() => evidenceFor('beta', bad as never))?.code).toBe('invalid_input');
      }),
    );
  });
});
