import { bigIntToText } from '@ipintel/core/writer';
import fc from 'fast-check';
import { gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { parseCidr } from '../../src/feeds/read/cidr.js';
import { unpackFeed } from '../../src/feeds/read/compression.js';
import { buildRoaIndex, parseRpkiJson, validateOrigin, validateOriginNaive } from '../../src/feeds/routing/rpki.js';
import type { Roa, RoasFound, RoutePrefix } from '../../src/feeds/routing/rpki.js';
import { enc, fixtureBytes, readFixture } from './helpers.js';

function route(cidr: string): RoutePrefix {
  const p = parseCidr(cidr);
  if (!p.ok || p.hostBitsSet) throw new Error(cidr);
  return { version: p.version, start: p.start, length: p.length };
}
const showRoa = (r: Roa): string => `${bigIntToText(r.version, r.start)}/${r.length}-${r.maxLength} AS${r.asn}`;

describe('rpki-client JSON fixture', () => {
  const bytes = fixtureBytes('rpki-vrps');
  const set = readFixture<RoasFound>('rpki-vrps');
  it('reads each VRP once', () => {
    expect(set.roas.map(showRoa)).toEqual([
      '1.1.1.0/24-24 AS13335',
      '3.5.140.0/22-24 AS16509',
      '8.8.8.0/24-24 AS15169',
      '185.220.101.0/24-24 AS64496',
      '203.0.113.0/24-32 AS0',
      '2001:4860::/32-48 AS15169',
      '2003::/19-19 AS3320',
    ]);
    expect(set.duplicates).toBe(1);
  });
  it('reports each bad ROA by its index in "roas"', () => {
    expect(set.rejected).toEqual([
      { feed: 'rpki-vrps', line: 9, message: 'maxLength 16 outside 24..32 for 8.8.4.0/24' },
      { feed: 'rpki-vrps', line: 10, message: 'bad prefix "8.8.4.1/24": host bits set' },
      { feed: 'rpki-vrps', line: 11, message: 'bad asn -1' },
      { feed: 'rpki-vrps', line: 12, message: 'bad prefix "2001:db8::/129": prefix length 129 exceeds 128' },
    ]);
  });
  it('accepts the same JSON plain or gzipped', () => {
    const plain = unpackFeed('x', bytes);
    expect(plain[0]).toBe(0x7b); // '{'
    expect(parseRpkiJson(plain, 'rpki-vrps').roas).toEqual(set.roas);
    expect(parseRpkiJson(gzipSync(plain), 'rpki-vrps').roas).toEqual(set.roas);
  });
  it('warns when metadata.uniquevrps disagrees, refuses non-rpki-client JSON', () => {
    const doc = '{"metadata":{"uniquevrps":3},"roas":[{"asn":"AS1","prefix":"10.0.0.0/8","maxLength":8,"ta":"x"}]}';
    const s = parseRpkiJson(enc(doc), 'rpki-vrps');
    expect(s.roas.map(showRoa)).toEqual(['10.0.0.0/8-8 AS1']);
    expect(s.rejected).toEqual([{ feed: 'rpki-vrps', line: 0, message: 'metadata.uniquevrps is 3, read 1 unique VRPs' }]);
    expect(s.dataDate).toBeNull(); // no metadata.buildtime
    expect(() => parseRpkiJson(enc('{"roas": {}}'), 'rpki-vrps')).toThrow(expect.objectContaining({ code: 'feed_format' }));
    expect(() => parseRpkiJson(enc('{"roas": [}'), 'rpki-vrps')).toThrow(/rpki-vrps: not JSON/);
    expect(() => parseRpkiJson(enc('BZh9 not really'), 'rpki-vrps')).toThrow(expect.objectContaining({ code: 'feed_compression', message: expect.stringMatching(/bzip2 data unreadable/) }));
  });
  it('takes metadata.buildtime only when it names a real UTC time; else no date, and a diagnostic', () => {
    const doc = (buildtime: unknown): Uint8Array =>
      enc(JSON.stringify({ metadata: { buildtime }, roas: [{ asn: 'AS1', prefix: '10.0.0.0/8', maxLength: 8, ta: 'x' }] }));
    expect(parseRpkiJson(doc('2025-07-20T10:01:43Z'), 'rpki-vrps')).toMatchObject({ dataDate: '2025-07-20T10:01:43Z', rejected: [] });
    for (const bad of ['2099-13-45T99:99:99Z', '2026-99-99T10:00:00Z', 'yesterday', 1753005703]) {
      const s = parseRpkiJson(doc(bad), 'rpki-vrps');
      expect(s.dataDate).toBeNull();
      expect(s.rejected).toEqual([{ feed: 'rpki-vrps', line: 0, message: `metadata.buildtime ${JSON.stringify(bad)} is not a UTC date and time; data date unknown` }]);
    }
  });
  it('validates routes per RFC 6811', () => {
    const index = buildRoaIndex(set.roas);
    const cases: [string, number | null, string][] = [
      ['8.8.8.0/24', 15169, 'valid'],
      ['8.8.8.0/25', 15169, 'invalid'], // longer than maxLength
      ['8.8.0.0/16', 15169, 'not-found'], // the ROA does not cover a shorter route
      ['1.1.1.0/24', 13335, 'valid'],
      ['185.220.101.0/24', 60729, 'invalid'], // covered by AS64496's ROA only
      ['9.9.9.0/24', 19281, 'not-found'],
      ['3.5.140.0/22', 16509, 'valid'],
      ['3.5.141.0/24', 16509, 'valid'],
      ['3.5.141.128/25', 16509, 'invalid'],
      ['3.5.140.0/22', null, 'invalid'], // AS_SET origin (NONE) never matches
      ['203.0.113.0/24', 0, 'invalid'], // AS0 ROA: covered, never matched
      ['203.0.113.0/25', 64500, 'invalid'],
      ['2001:4860::/32', 15169, 'valid'],
      ['2001:4860:4860::/48', 15169, 'valid'],
      ['2001:4860::/49', 15169, 'invalid'],
      ['2001:4860::/32', 13335, 'invalid'],
      ['2003::/19', 3320, 'valid'],
      ['2003::/20', 3320, 'invalid'],
      ['2606:4700::/32', 13335, 'not-found'],
      ['0.0.0.0/0', 1, 'not-found'],
    ];
    for (const [cidr, origin, want] of cases) {
      expect(`${cidr} ${origin} ${validateOrigin(index, route(cidr), origin)}`).toBe(`${cidr} ${origin} ${want}`);
      expect(validateOriginNaive(set.roas, route(cidr), origin)).toBe(want);
    }
  });
});

describe('validateOrigin equals a naive scan over all ROAs (property)', () => {
  // Prefixes drawn from a small space (one nibble repeated over the address)
  // so that ROAs and routes overlap often.
  // Lengths: anywhere, or (half the time) in a narrow band where ROAs and routes meet.
  const len = (bits: number) => fc.oneof(fc.integer({ min: 0, max: bits }), fc.integer({ min: bits - 12, max: bits - 4 }));
  const v4 = fc.tuple(fc.integer({ min: 0, max: 15 }), len(32)).map(([x, length]) => {
    const addr = BigInt(0x0a000000 + x * 0x111111);
    return { version: 4 as const, start: addr & ~((1n << BigInt(32 - length)) - 1n), length };
  });
  const v6 = fc.tuple(fc.integer({ min: 0, max: 15 }), len(128)).map(([x, length]) => {
    const addr = (0x20010db8n << 96n) | (BigInt(x) * 0x1111111111111111111111111n);
    return { version: 6 as const, start: addr & ~((1n << BigInt(128 - length)) - 1n), length };
  });
  const prefix = fc.oneof(v4, v6);
  const roa = fc.tuple(prefix, fc.constantFrom(0, 1, 2, 3), fc.integer({ min: 0, max: 12 })).map(
    ([p, asn, extra]): Roa => ({ ...p, asn, maxLength: Math.min(p.version === 4 ? 32 : 128, p.length + extra) }),
  );
  // A route is either a random prefix or a ROA's prefix lengthened by 0..14 bits,
  // announced by a random origin or (often) by that ROA's AS.
  const routeSpec = fc.tuple(
    prefix,
    fc.constantFrom(null, 0, 1, 2, 3, 4),
    fc.boolean(),
    fc.nat(),
    fc.integer({ min: 0, max: 14 }),
    fc.boolean(),
  );
  it('agrees on random ROA sets and routes', () => {
    const seen = { valid: 0, invalid: 0, 'not-found': 0 };
    fc.assert(
      fc.property(fc.array(roa, { maxLength: 40 }), fc.array(routeSpec, { maxLength: 30 }), (roas, specs) => {
        const index = buildRoaIndex(roas);
        for (const [random, randomOrigin, fromRoa, pick, extra, roaOrigin] of specs) {
          const base = roas[pick % Math.max(1, roas.length)];
          const r: RoutePrefix =
            fromRoa && base
              ? { version: base.version, start: base.start, length: Math.min(base.version === 4 ? 32 : 128, base.length + extra) }
              : random;
          const origin = fromRoa && base && roaOrigin ? base.asn : randomOrigin;
          const got = validateOrigin(index, r, origin);
          expect(got).toBe(validateOriginNaive(roas, r, origin));
          seen[got]++;
        }
      }),
      { numRuns: 800 },
    );
    // The generators reach every outcome often.
    for (const n of Object.values(seen)) expect(n).toBeGreaterThan(100);
  });
});
