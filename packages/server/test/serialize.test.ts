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
