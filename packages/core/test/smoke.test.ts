import { describe, expect, it } from 'vitest';
import { loadSnapshot } from '../src/portable.js';
import { encodeSnapshot } from '../src/writer.js';
import { modelFromPrefixes } from '@ipintel/testkit';

describe('smoke', () => {
  it('round-trips a tiny snapshot', () => {
    const bytes = encodeSnapshot(
      modelFromPrefixes(
        [{ start: 0x08080800n, length: 24, value: 1 }, { start: 0x08080808n, length: 32, value: 2 }],
        [{ start: 0x20014860n << 96n, length: 32, value: 3 }, { start: (0x20014860n << 96n) | 5n, length: 128, value: 2 }],
        4,
      ),
    );
    const intel = loadSnapshot(bytes);
    expect(intel.check('8.8.8.8').geo.city).toBe('city-2');
    expect(intel.check('8.8.8.9').geo.city).toBe('city-1');
    expect(intel.check('8.8.9.9').geo.city).toBe('city-0');
    expect(intel.check('2001:4860::5').geo.city).toBe('city-2');
    expect(intel.check('2001:4860::6').geo.city).toBe('city-3');
    expect(intel.match('8.8.8.9').prefix).toBe('8.8.8.9/32');
    expect(intel.match('8.8.8.200').prefix).toBe('8.8.8.128/25');
  });
});
