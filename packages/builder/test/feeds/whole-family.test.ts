/**
 * Records that would label far more than their publisher means, read as rejected lines (each
 * found by the feed review of stop 44; no real copy holds one): a ROA or an RIR record of a whole
 * address family, a JSON record naming two prefixes, and az0's placeholder written another way.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDelegated } from '../../src/feeds/routing/rir.js';
import { parseRpkiJson } from '../../src/feeds/routing/rpki.js';
import { feedById } from '../../src/feeds/registry.js';
import type { PrefixesFound } from '../../src/feeds/types.js';
import { enc } from './helpers.js';

const vrps = (...roas: object[]): Uint8Array => enc(JSON.stringify({ metadata: { buildtime: '2026-08-22T00:00:00Z', uniquevrps: roas.length }, roas }));

describe('a ROA for /0', () => {
  it('is rejected in either family (it would make every route it does not match invalid); its neighbours are read', () => {
    const r = parseRpkiJson(vrps({ asn: 'AS64500', prefix: '0.0.0.0/0', maxLength: 32 }, { asn: 'AS13335', prefix: '1.1.1.0/24', maxLength: 24 }, { asn: 'AS0', prefix: '::/0', maxLength: 128 }), 'rpki-vrps');
    expect(r.roas.map((x) => `${x.start}/${x.length}`)).toEqual([`${0x01010100n}/24`]);
    expect(r.rejected.map((d) => [d.line, d.message])).toEqual([
      [1, 'bad prefix "0.0.0.0/0": a ROA for a whole address family (/0)'],
      [3, 'bad prefix "::/0": a ROA for a whole address family (/0)'],
      [0, 'metadata.uniquevrps is 3, read 1 unique VRPs'], // the publisher counted the two
    ]);
  });
});

describe('an RIR record of a whole address family', () => {
  const file = (...records: string[]): Uint8Array => enc(`2|arin|20260101|${records.length}|19830101|20260101|-0500\n${records.join('\n')}\n`);

  it('all of IPv4 (0.0.0.0 and 2^32 addresses) or all of IPv6 (::/0) is rejected; a /8 and a /12 are read', () => {
    const f = parseDelegated(file('arin|US|ipv4|0.0.0.0|4294967296|20000101|allocated', 'arin|US|ipv6|::|0|20000101|allocated', 'arin|US|ipv4|3.0.0.0|16777216|19880223|allocated', 'arin|US|ipv6|2600::|12|20060926|allocated'), 'rir-arin');
    expect(f.prefixes.map((p) => [p.version, p.length])).toEqual([
      [4, 8],
      [6, 12],
    ]);
    expect(f.rejected.map((d) => [d.line, d.message.split(':')[0]])).toEqual([
      [2, 'a record of all IPv4 space is no delegation'],
      [3, 'a record of all IPv6 space is no delegation'],
    ]);
  });

  it('property: any other IPv4 start and count within the space is read, covering exactly its addresses', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 1, max: 0xffffffff }), (start, n0) => {
        const n = Math.min(n0, 0x100000000 - start);
        const text = `${start >>> 24}.${(start >>> 16) & 255}.${(start >>> 8) & 255}.${start & 255}`;
        const f = parseDelegated(file(`arin|US|ipv4|${text}|${n}|20000101|allocated`), 'rir-arin');
        expect(f.rejected).toEqual([]);
        expect(f.prefixes.reduce((sum, p) => sum + 2 ** (32 - p.length), 0)).toBe(n);
      }),
    );
  });
});

describe('a Google JSON record naming both prefixes', () => {
  it('is a rejected record, not read as its IPv4 prefix alone', () => {
    const doc = { syncToken: '1787415242000', prefixes: [{ ipv4Prefix: '34.1.208.0/20' }, { ipv4Prefix: '34.35.0.0/16', ipv6Prefix: '2600:1900::/35' }] };
    for (const id of ['google-cloud', 'google']) {
      const r = feedById(id).read(JSON.stringify(doc)) as PrefixesFound<unknown>;
      expect(r.prefixes.map((p) => p.length), id).toEqual([20]);
      expect(r.rejected, id).toEqual([{ feed: id, line: 2, message: 'prefixes[1]: holds both ipv4Prefix and ipv6Prefix; a record gives one prefix' }]);
    }
  });
});

describe("az0's placeholder address", () => {
  it('is rejected however it is written (an IPv4-mapped form too), and a neighbour is read', () => {
    const r = feedById('az0-vpn').read('# 2026-08-31T13:25:28Z\n1.2.3.4 # windscribe\n::ffff:1.2.3.4 # windscribe\n::ffff:102:304 # windscribe\n1.2.3.5 # nordvpn\n') as PrefixesFound<unknown>;
    expect(r.prefixes.map((p) => p.start)).toEqual([0x01020305n]);
    expect(r.rejected.map((d) => d.line)).toEqual([2, 3, 4]);
    for (const d of r.rejected) expect(d.message).toMatch(/^placeholder address .*, not a VPN server$/);
  });
});
