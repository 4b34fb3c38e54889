/**
 * resultJson must give exactly JSON.stringify's text, for native and
 * thirdparty results and for objects with undefined, null and nested values.
 */
import { loadSnapshot } from '@ipintel/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonPreview, resultJson } from '../src/http/serialize.js';
import { fixtureBytes } from './support/fixtures.js';

describe('resultJson', () => {
  it('equals JSON.stringify for results', () => {
    const intel = loadSnapshot(fixtureBytes('a'));
    for (const ip of ['8.8.8.8', '8.8.8.9', '10.0.0.1', '1.1.1.1', '2001:4860::1', '::1', '::ffff:8.8.8.8']) {
      for (const format of ['native', 'thirdparty'] as const) {
        const r = intel.check(ip, { format });
        expect(resultJson(r)).toBe(JSON.stringify(r));
        expect(resultJson(r)).toBe(JSON.stringify(r)); // again, from the cache
      }
    }
  });

  it('equals JSON.stringify for the results of random addresses (the native template and the general loop)', () => {
    const intel = loadSnapshot(fixtureBytes('a'));
    const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((b) => b.join('.'));
    const v6 = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }).map((w) => w.map((x) => x.toString(16)).join(':'));
    fc.assert(
      fc.property(fc.oneof(v4, v6, fc.constantFrom('8.8.8.8', '2001:4860::1', '::ffff:8.8.8.8')), fc.constantFrom('native', 'thirdparty'), (ip, format) => {
        const r = intel.check(ip, { format });
        expect(resultJson(r)).toBe(JSON.stringify(r));
      }),
      { numRuns: 2000, seed: 13 },
    );
  });

  it('takes the general loop for objects shaped almost like a native result', () => {
    const r = loadSnapshot(fixtureBytes('a')).check('8.8.8.8') as unknown as Record<string, unknown>;
    const { ip, ...rest } = r;
    const variants: object[] = [
      { ...r, extra: 1 }, // one key more
      { ...rest, ip }, // the same keys in another order
      { ...r, geo: { ...(r['geo'] as object) } }, // a part that is not frozen (not cached: it could change)
      { ...r, risk: null }, // a part that is not an object
      { ...r, ip: 42 }, // a field of another type
      { ...r, version: Number.NaN }, // JSON's null
      { ...r, attribution: 'q"\\\u2028é' }, // quoting
      { ...r, explanation: Object.freeze({ why: ['x'] }) },
    ];
    for (const v of variants) expect(resultJson(v)).toBe(JSON.stringify(v));
    const mutable = { ...r, geo: { city: 'A' } };
    expect(resultJson(mutable)).toBe(JSON.stringify(mutable));
    mutable.geo.city = 'B'; // an unfrozen part is serialised afresh every time
    expect(resultJson(mutable)).toBe(JSON.stringify(mutable));
  });

  it('equals JSON.stringify for odd values', () => {
    const frozen = Object.freeze({ a: 1, b: Object.freeze(['x', null]), c: 'q"\\' });
    const v = { 'k"ey': frozen, u: undefined, n: null, f: () => 1, d: 1.5, s: 'é\n', o: { again: frozen }, arr: [1, undefined] };
    expect(resultJson(v)).toBe(JSON.stringify(v));
  });
});

describe('jsonPreview', () => {
  it('is the start of JSON.stringify for every JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat({ max: 100 }), (v, max) => {
        expect(jsonPreview(JSON.parse(JSON.stringify(v)), max)).toBe(JSON.stringify(v).slice(0, max));
      }),
      { numRuns: 3000, seed: 7 },
    );
  });

  it('stops early on values too deep for JSON.stringify', () => {
    const deep = JSON.parse('['.repeat(50_000) + ']'.repeat(50_000)) as unknown;
    expect(jsonPreview(deep, 64)).toBe('['.repeat(64));
  });
});
