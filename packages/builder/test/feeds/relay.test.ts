import { bigIntToText } from '@ipintel/core/writer';
import { Reader } from 'mmdb-lib';
import { describe, expect, it } from 'vitest';
import { feedById } from '../../src/feeds/registry.js';
import { ICLOUD_RELAY } from '../../src/feeds/relay.js';
import type { RelayValue } from '../../src/feeds/relay.js';
import type { Prefix, PrefixFeed } from '../../src/feeds/types.js';
import { cidr, enc, fixtureBytes, readFixture, readFullSize } from './helpers.js';

type Relay = PrefixFeed<RelayValue>;
const withCountry = (p: Prefix<RelayValue>): string => `${cidr(p)} ${p.value.country ?? '-'}`;

/** Total addresses covered (prefixes must not overlap). */
const size = (ps: readonly Prefix<unknown>[], version: 4 | 6): bigint =>
  ps.filter((p) => p.version === version).reduce((n, p) => n + (1n << BigInt((version === 4 ? 32 : 128) - p.length)), 0n);

describe('iCloud Private Relay text lists', () => {
  it('IPv4: reads the prefixes (no country), rejects the bad line, says it is re-processed', () => {
    const r = readFixture<Relay>('icloud-relay-ipv4');
    expect(r.prefixes.map(cidr)).toEqual(['104.28.28.0/31', '172.224.226.0/27', '172.225.46.64/26']);
    expect(r.prefixes.every((p) => p.value.provider === ICLOUD_RELAY && p.value.country === null)).toBe(true);
    expect(r.rejected).toEqual([{ feed: 'icloud-relay-ipv4', line: 3, message: 'bad prefix length: "27x"' }]);
    expect(r.source.note).toMatch(/^RE-PROCESSED/);
  });

  it('IPv6 (merged): reads the prefixes, rejects the bad line', () => {
    const r = readFixture<Relay>('icloud-relay-ipv6');
    expect(r.prefixes.map(cidr)).toEqual(['2a02:26f7:b00a:4000::/64', '2a02:26f7:b3c0:4000::/64', '2606:54c3::/55']);
    expect(r.rejected).toEqual([{ feed: 'icloud-relay-ipv6', line: 3, message: 'not an address: "2a02:26f7:b3c0:4000:"' }]);
    expect(r.source.note).toMatch(/CIDR-merged/);
  });

  it('rejects a prefix with host bits set in either list, instead of widening it to addresses Apple never listed', () => {
    for (const [id, text, bad] of [
      ['icloud-relay-ipv4', '172.224.226.0/27\n172.224.226.9/24\n', '172.224.226.9/24'],
      ['icloud-relay-ipv6', '2a02:26f7:b3c0:4000::/64\n2a02:26f7:b3c0:4000::1/48\n', '2a02:26f7:b3c0:4000::1/48'],
    ] as const) {
      const r = feedById(id).read(text) as Relay;
      expect(r.prefixes).toHaveLength(1);
      expect(r.rejected).toEqual([{ feed: id, line: 2, message: `host bits set: ${JSON.stringify(bad)}` }]);
    }
  });

  it('rejects the other family in a per-family list', () => {
    const r = feedById('icloud-relay-ipv4').read('172.224.226.0/27\n2a02:26f7:b3c0:4000::/64\n');
    expect(r.rejected).toEqual([{ feed: 'icloud-relay-ipv4', line: 2, message: 'IPv6 entry in an IPv4 list' }]);
  });
});

describe('iCloud egress MMDB', () => {
  const r = readFixture<Relay>('icloud-relay-mmdb');

  it('enumerates every network once (IPv4 from ::/96; the ::ffff:0:0/96, Teredo and 6to4 aliases skipped)', () => {
    expect(r.prefixes.map(withCountry)).toEqual([
      '104.28.28.0/31 US',
      '172.224.226.0/27 GB',
      '172.225.46.64/26 DE',
      '2606:54c3::/55 FR',
      '2a02:26f7:b00a:4000::/64 -', // iso_code "" -> country null, still a relay network
      '2a02:26f7:b3c0:4000::/64 US',
    ]);
  });

  it('agrees with mmdb-lib lookups', () => {
    const reader = new Reader(Buffer.from(fixtureBytes('icloud-relay-mmdb')));
    for (const p of r.prefixes) {
      const [rec, len] = reader.getWithPrefixLength(bigIntToText(p.version, p.start));
      expect(len).toBe(p.length);
      const iso = (rec as { country?: { iso_code?: string } } | null)?.country?.iso_code;
      expect(iso || null).toBe(p.value.country);
    }
    expect(reader.get('172.224.226.32')).toBeNull();
  });

  it('shares value objects per country and reads the build epoch as the data date', () => {
    const us = r.prefixes.filter((p) => p.value.country === 'US');
    expect(us[0]!.value).toBe(us[1]!.value);
    expect(r.source.data_date).toBe('2026-08-17T05:21:18Z');
    expect(r.source.note).toMatch(/^RE-PROCESSED/);
  });

  it('a text list is not an MMDB', () => {
    expect(() => feedById('icloud-relay-mmdb').read(enc('172.224.226.0/27\n'))).toThrow(/not a readable MMDB/);
  });
});

describe('iCloud relay, full size (vendored copy)', () => {
  it('the MMDB (9284 IPv4 + 18507 IPv6 networks) names a country everywhere and covers exactly what the text lists cover', async () => {
    const v4 = await readFullSize<Relay>('icloud-relay-ipv4');
    const v6 = await readFullSize<Relay>('icloud-relay-ipv6');
    const mm = await readFullSize<Relay>('icloud-relay-mmdb');
    expect(mm.prefixes.filter((p) => p.version === 4)).toHaveLength(9284);
    expect(mm.prefixes.every((p) => p.value.country !== null)).toBe(true);
    expect(size(mm.prefixes, 4)).toBe(size(v4.prefixes, 4));
    expect(size(mm.prefixes, 6)).toBe(size(v6.prefixes, 6));
    expect(size(v4.prefixes, 4)).toBe(106589n);
    expect(mm.prefixes.find((p) => cidr(p) === '2a02:26f7:b3c0:4000::/64')?.value.country).toBe('US');
    expect(v4.prefixes.some((p) => cidr(p) === '172.224.226.0/27')).toBe(true);
  });
});
