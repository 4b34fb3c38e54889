import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IpIntelError, loadSnapshot } from '../src/portable.js';
import { encodeSnapshot, flattenPrefixes } from '../src/writer.js';
import { EMPTY_SIGNALS, modelFromPrefixes } from '@ipintel/testkit';
import { formatIPv6 } from '../src/ip/format.js';
import { parseIPv6 } from '../src/ip/parse.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 300) });

const base = modelFromPrefixes([{ start: 0x08080800n, length: 24, value: 1 }], [{ start: 0x20014860n << 96n, length: 32, value: 1 }], 2);
// Leaf 1: a Tor exit on a network allocated 2020-01-01.
const model = {
  ...base,
  signals: [EMPTY_SIGNALS, { ...EMPTY_SIGNALS, is_tor: true, connection_type: 'datacenter' as const, connection_evidence: 'authoritative' as const, datacenter_provider: 'Example Cloud' }],
  leaves: [{ geo: 0, net: 0, sig: 0 }, { geo: 1, net: 0, sig: 1 }],
};
const NOW = Date.parse('2026-11-22T12:00:00Z');
const intel = loadSnapshot(encodeSnapshot(model), { now: () => NOW });

describe('check()', () => {
  it('answers IPv4, IPv6 and IPv4-mapped IPv6 alike', () => {
    const a = intel.check('8.8.8.8');
    expect(a.version).toBe(4);
    expect(a.signals.is_tor).toBe(true);
    expect(a.risk).toEqual({ score: 80, level: 'high', reasons: ['is_tor', 'is_datacenter'] });
    const m = intel.check('::ffff:8.8.8.8');
    expect(m.ip).toBe('8.8.8.8');
    expect(m).toEqual(a);
    const b = intel.check('2001:4860:0000::1');
    expect(b.ip).toBe('2001:4860::1');
    expect(b.version).toBe(6);
    expect(b.geo.city).toBe('city-1');
  });

  it('reports IPv6 in RFC 5952 form whatever form it was given in', () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.boolean(), (ip, upper) => {
        const r = intel.check(upper ? ip.toUpperCase() : ip);
        if (r.version === 4) return; // IPv4-mapped
        const w = new Uint32Array(4);
        parseIPv6(ip, w);
        expect(r.ip).toBe(formatIPv6(w));
      }),
    );
  });

  it('computes allocation age on the day of the lookup', () => {
    expect(intel.check('8.8.8.8').network.allocation_date).toBe('2020-01-01');
    expect(intel.check('8.8.8.8').network.allocation_age_days).toBe(Math.floor((NOW - Date.parse('2020-01-01')) / 86_400_000));
    let now = NOW;
    const moving = loadSnapshot(encodeSnapshot(model), { now: () => now });
    const before = moving.check('8.8.8.8').network.allocation_age_days!;
    now += 86_400_000;
    expect(moving.check('8.8.8.8').network.allocation_age_days).toBe(before + 1);
    // A clock that steps back is a new day too.
    now -= 2 * 86_400_000;
    expect(moving.check('8.8.8.8').network.allocation_age_days).toBe(before - 1);
  });

  it('checkBatch computes allocation age on the day of each call, over more than one stage', () => {
    let now = NOW;
    const moving = loadSnapshot(encodeSnapshot(model), { now: () => now });
    const ips = Array.from({ length: 600 }, () => '8.8.8.8');
    const ages = () => new Set(moving.checkBatch(ips).map((r) => ('network' in r ? r.network.allocation_age_days : -1)));
    const before = moving.check('8.8.8.8').network.allocation_age_days!;
    expect(ages()).toEqual(new Set([before]));
    now += 86_400_000;
    expect(ages()).toEqual(new Set([before + 1]));
    now += 86_400_000;
    expect(moving.checkBatch(['8.8.8.8'])[0]).toMatchObject({ network: { allocation_age_days: before + 2 } });
  });

  it('returns JSON-serialisable results whose shared sub-objects are frozen', () => {
    const r = intel.check('8.8.8.8');
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
    for (const part of [r.geo, r.network, r.signals, r.evidence, r.risk, r.risk.reasons]) expect(Object.isFrozen(part)).toBe(true);
    expect(intel.check('8.8.8.9').geo).toBe(r.geo); // shared, not copied
    expect(r.signals.is_datacenter).toBe(r.signals.connection_type === 'datacenter');
  });

  it('returns the thirdparty shape on request and refuses unknown formats', () => {
    // region is null in this model, so the key is absent (toStrictEqual checks absence).
    expect(intel.check('8.8.8.8', { format: 'thirdparty' })).toStrictEqual({
      ip: '8.8.8.8',
      city: 'city-1',
      country: 'TL',
      loc: '1,-1',
      org: 'AS64500 Test AS',
      timezone: 'Etc/UTC',
      privacy: { vpn: false, proxy: false, tor: true, relay: false, hosting: true, service: 'Example Cloud' },
    });
    expect(() => intel.check('8.8.8.8', { format: 'xml' as never })).toThrow(IpIntelError);
    try {
      intel.check('8.8.8.8', { format: 'xml' as never });
    } catch (e) {
      expect((e as IpIntelError).code).toBe('invalid_format');
    }
  });

  it('throws invalid_ip for anything that is not an address', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constant(undefined), fc.object()), (x) => {
        if (typeof x === 'string' && /^[0-9a-fA-F:.]+$/.test(x)) return; // may be valid
        try {
          intel.check(x as string);
          expect.unreachable();
        } catch (e) {
          expect(e).toBeInstanceOf(IpIntelError);
          expect((e as IpIntelError).code).toBe('invalid_ip');
        }
      }),
    );
  });
});

describe('checkBatch()', () => {
  it('keeps order, carries errors in place and accepts any iterable', () => {
    function* gen() {
      yield '8.8.8.8';
      yield 'nope';
      yield 42;
      yield '2001:4860::1';
    }
    const out = intel.checkBatch(gen());
    expect(out).toHaveLength(4);
    expect('error' in out[0]! ? null : out[0]!.ip).toBe('8.8.8.8');
    expect(out[1]).toEqual({ ip: 'nope', error: { code: 'invalid_ip', message: expect.stringContaining('"nope"') } });
    expect(out[2]).toMatchObject({ ip: '42', error: { code: 'invalid_ip' } });
    expect('error' in out[3]! ? null : out[3]!.ip).toBe('2001:4860::1');
    expect(intel.checkBatch(new Set(['1.1.1.1']), { format: 'thirdparty' })[0]).toHaveProperty('privacy');
  });

  it('reads each element once: an element whose getter changes its answer gets the answer of the one read', () => {
    const reads: string[] = [];
    const flaky: unknown[] = ['8.8.8.8', 'x', 'y'];
    let n = 0;
    Object.defineProperty(flaky, 0, { get: () => (reads.push('0'), n++ === 0 ? '8.8.8.8' : 42), enumerable: true });
    const out = intel.checkBatch(flaky);
    expect(reads).toHaveLength(1);
    expect(out[0]).toEqual(intel.check('8.8.8.8'));
  });

  // Before: the length was read again for each stage of 256, so a getter that shortened the array left holes at the end
  // (a result array of 300 with 44 missing entries, which `forEach` skips and `for...of` reads as undefined).
  it('gives one result per element the array held when called, even if reading an element shortens or lengthens it', () => {
    for (const [from, to] of [[300, 1], [300, 0], [2, 600]] as const) {
      const list: unknown[] = Array.from({ length: from }, () => '8.8.8.8');
      Object.defineProperty(list, 0, { get: () => ((list.length = to), list.fill('1.1.1.1', from), '8.8.8.8'), enumerable: true, configurable: true });
      const out = intel.checkBatch(list);
      expect(out).toHaveLength(from);
      expect(Object.keys(out)).toHaveLength(from); // no holes
      expect(out.every((r) => typeof r === 'object' && r !== null && 'ip' in r)).toBe(true);
    }
  });

  it('refuses what cannot be iterated as a list of addresses as invalid_input', () => {
    const broken = { [Symbol.iterator]: () => ({ next: () => 5 }) };
    expect(() => intel.checkBatch(broken as unknown as string[])).toThrow(expect.objectContaining({ code: 'invalid_input' }) as Error);
    expect(() => intel.checkBatch({ [Symbol.iterator]: () => 5 } as unknown as string[])).toThrow(expect.objectContaining({ code: 'invalid_input' }) as Error);
    // A String object is iterable by character: a string where a list was meant.
    expect(() => intel.checkBatch(new String('8.8.8.8') as unknown as string[])).toThrow(expect.objectContaining({ code: 'invalid_input' }) as Error);
    // An iterator's own error is its own, not ours.
    const failing = (function* () {
      yield '8.8.8.8';
      throw new RangeError('from the caller');
    })();
    expect(() => intel.checkBatch(failing)).toThrow(RangeError);
  });

  it('equals check() element-wise for arbitrary input', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.ipV4(), fc.ipV6(), fc.string({ maxLength: 8 }))), (ips) => {
        const out = intel.checkBatch(ips);
        expect(out).toHaveLength(ips.length);
        ips.forEach((ip, i) => {
          let want: unknown;
          try {
            want = intel.check(ip);
          } catch (e) {
            want = { ip, error: (e as IpIntelError).toJSON() };
          }
          expect(out[i]).toEqual(want);
        });
      }),
      { numRuns: 100 },
    );
  });

  it('equals check() element-wise across its stages of 256 (long mixed batches, both formats)', () => {
    const element = fc.oneof({ weight: 8, arbitrary: fc.ipV4() }, fc.ipV6(), fc.string({ maxLength: 8 }), fc.constantFrom(null, 42, '::ffff:8.8.8.8'));
    fc.assert(
      fc.property(fc.array(element, { minLength: 200, maxLength: 700 }), fc.constantFrom('native' as const, 'thirdparty' as const), (ips, format) => {
        const out = intel.checkBatch(ips, { format });
        expect(out).toHaveLength(ips.length);
        ips.forEach((ip, i) => {
          let want: unknown;
          try {
            want = intel.check(ip as string, { format });
          } catch (e) {
            want = { ip: ip === null ? 'null' : String(ip), error: (e as IpIntelError).toJSON() };
          }
          expect(out[i]).toEqual(want);
        });
      }),
      { numRuns: 15 },
    );
  });

  it('throws only for a call that is wrong as a whole', () => {
    expect(() => intel.checkBatch(42 as never)).toThrow(/iterable/);
    expect(() => intel.checkBatch(['8.8.8.8'], { format: 'csv' as never })).toThrow(/format/);
  });

  // Issue 11 row 6: these elements used to escape as a TypeError / RangeError from String(element).
  it('gives every hostile element a typed invalid_ip error in place, with a message that cannot throw', () => {
    let deep: unknown[] = [];
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    const hostile: unknown[] = [
      Object.create(null),
      deep,
      { toString: () => { throw new Error('boom'); } },
      { [Symbol.toPrimitive]: () => { throw new Error('boom'); } },
      Symbol('s'),
      revoked,
      () => '8.8.8.8',
      ['8.8.8.8'],
      10n,
      null,
      undefined,
    ];
    const out = intel.checkBatch([...hostile, '8.8.8.8']);
    expect(out).toHaveLength(hostile.length + 1);
    hostile.forEach((_, i) => {
      const r = out[i] as { ip: unknown; error: { code: string; message: unknown } };
      expect(r.error.code, `element ${i}`).toBe('invalid_ip');
      expect(typeof r.ip).toBe('string');
      expect(typeof r.error.message).toBe('string');
      expect(() => JSON.stringify(r)).not.toThrow();
    });
    expect(out.slice(6, 11).map((r) => r.ip)).toEqual(['[function]', '[object]', '10', 'null', 'undefined']);
    expect((out[hostile.length] as { ip: string }).ip).toBe('8.8.8.8');
  });
});

describe('options', () => {
  it('treats null and undefined options as none, and refuses a non-object with a typed invalid_input', () => {
    const plain = intel.check('8.8.8.8');
    expect(intel.check('8.8.8.8', null as never)).toEqual(plain);
    expect(intel.check('8.8.8.8', undefined)).toEqual(plain);
    expect(intel.checkBatch(['8.8.8.8'], null as never)).toEqual([plain]);
    for (const bad of ['thirdparty', 42, true]) {
      for (const call of [() => intel.check('8.8.8.8', bad as never), () => intel.checkBatch(['8.8.8.8'], bad as never)]) {
        let err: unknown;
        try {
          call();
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(IpIntelError);
        expect((err as IpIntelError).code).toBe('invalid_input');
      }
    }
    const throwing = { get format(): string { throw new Error('x'); } };
    expect(() => intel.check('8.8.8.8', throwing as never)).toThrow('x'); // the caller's own getter
  });

  it('property: explain of any type but a boolean is invalid_input in either layout (the thirdparty layout ignores explain, not a wrong type of it)', () => {
    fc.assert(
      fc.property(fc.anything().filter((v) => v !== undefined && typeof v !== 'boolean'), fc.constantFrom('native', 'thirdparty'), (explain, format) => {
        for (const call of [() => intel.check('8.8.8.8', { format, explain } as never), () => intel.checkBatch(['8.8.8.8'], { format, explain } as never)]) {
          expect(call).toThrow(expect.objectContaining({ code: 'invalid_input', message: expect.stringMatching(/^explain must be a boolean/) }) as Error);
        }
      }),
    );
    // A boolean explain in the thirdparty layout is ignored, as docs/api.md says.
    expect(intel.check('8.8.8.8', { format: 'thirdparty', explain: true })).toEqual(intel.check('8.8.8.8', { format: 'thirdparty' }));
    expect(intel.checkBatch(['8.8.8.8'], { format: 'thirdparty', explain: true })).toEqual(intel.checkBatch(['8.8.8.8'], { format: 'thirdparty' }));
  });
});

describe('flattenPrefixes', () => {
  it('merges adjacent equal values and covers the space from 0', () => {
    const r = flattenPrefixes(4, [{ start: 0n, length: 1, value: 1 }, { start: 0x80000000n, length: 1, value: 1 }], 0);
    expect(r).toEqual({ starts: [0n], values: [1] });
  });
});
