import { existsSync, readFileSync } from 'node:fs';
import { bigIntToText } from '@ipintel/core/writer';
import { Reader } from 'mmdb-lib';
import { describe, expect, it } from 'vitest';
import { ICLOUD_RELAY, RELAY_FEEDS, parseIcloudEgressMmdb, parseIcloudRelayV4, parseIcloudRelayV6 } from '../../src/feeds/relay.js';
import type { RelayValue } from '../../src/feeds/relay.js';
import { FeedError } from '../../src/feeds/types.js';
import type { Prefix } from '../../src/feeds/types.js';

const FIXTURES = new URL('../../../../fixtures/feeds/', import.meta.url).pathname;
const FEEDS = process.env.IPINTEL_FEEDS ?? new URL('../../../../../shared/feeds', import.meta.url).pathname;
const HAVE_FEEDS = existsSync(FEEDS);
if (!HAVE_FEEDS) console.log(`relay.test: full-size tests skipped: no feeds folder at ${FEEDS} (set IPINTEL_FEEDS)`);

const cidr = (p: Prefix<unknown>): string => `${bigIntToText(p.version, p.start)}/${p.length}`;
const fixture = (path: string): Uint8Array => readFileSync(FIXTURES + path);
const withCountry = (p: Prefix<RelayValue>): string => `${cidr(p)} ${p.value.country ?? '-'}`;

/** Total addresses covered (prefixes must not overlap). */
const size = (ps: readonly Prefix<unknown>[], version: 4 | 6): bigint =>
  ps.filter((p) => p.version === version).reduce((n, p) => n + (1n << BigInt((version === 4 ? 32 : 128) - p.length)), 0n);

describe('iCloud Private Relay text lists on the fixtures', () => {
  it('IPv4: reads the prefixes, rejects the bad line', () => {
    const r = parseIcloudRelayV4(fixture('relay/icloud-private-relay-ipv4.txt'));
    expect(r.prefixes.map(cidr)).toEqual(['104.28.28.0/31', '172.224.226.0/27', '172.225.46.64/26']);
    expect(r.prefixes.every((p) => p.value.provider === ICLOUD_RELAY && p.value.country === null)).toBe(true);
    expect(r.rejected).toEqual([{ feed: 'icloud-relay-ipv4', line: 3, message: 'bad prefix length: "27x"' }]);
    expect(r.source).toMatchObject({
      id: 'icloud-relay-ipv4',
      publisher: 'Apple',
      url: 'https://mask-api.icloud.com/egress-ip-ranges.csv',
      data_date: null,
      entries: 3,
      evidence: 'authoritative',
    });
    expect(r.source.note).toMatch(/^RE-PROCESSED/);
  });

  it('IPv6 (merged): reads the prefixes, rejects the bad line', () => {
    const r = parseIcloudRelayV6(fixture('relay/icloud-private-relay-ipv6-merged.txt'));
    expect(r.prefixes.map(cidr)).toEqual(['2a02:26f7:b00a:4000::/64', '2a02:26f7:b3c0:4000::/64', '2606:54c3::/55']);
    expect(r.rejected).toEqual([{ feed: 'icloud-relay-ipv6', line: 3, message: 'not an address: "2a02:26f7:b3c0:4000:"' }]);
    expect(r.source.entries).toBe(3);
    expect(r.source.note).toMatch(/CIDR-merged/);
  });

  it('rejects the other family in a per-family list; throws FeedError on an empty list', () => {
    const r = parseIcloudRelayV4('172.224.226.0/27\n2a02:26f7:b3c0:4000::/64\n');
    expect(r.rejected).toEqual([{ feed: 'icloud-relay-ipv4', line: 2, message: 'IPv6 entry in an IPv4 list' }]);
    expect(() => parseIcloudRelayV6('')).toThrow(FeedError);
  });
});

describe('parseIcloudEgressMmdb on the fixture', () => {
  const data = fixture('relay/icloud-egress-ip-ranges.mmdb');
  const r = parseIcloudEgressMmdb(data);

  it('enumerates every network once (IPv4 from ::/96; the ::ffff:0:0/96, Teredo and 6to4 aliases skipped)', () => {
    expect(r.prefixes.map(withCountry)).toEqual([
      '104.28.28.0/31 US',
      '172.224.226.0/27 GB',
      '172.225.46.64/26 DE',
      '2606:54c3::/55 FR',
      '2a02:26f7:b00a:4000::/64 -', // iso_code "" -> country null, still a relay network
      '2a02:26f7:b3c0:4000::/64 US',
    ]);
    expect(r.rejected).toEqual([]);
  });

  it('agrees with mmdb-lib lookups', () => {
    const reader = new Reader(Buffer.from(data));
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
    expect(r.source).toMatchObject({ id: 'icloud-relay-mmdb', data_date: '2026-08-17T05:21:18Z', entries: 6, evidence: 'authoritative' });
    expect(r.source.note).toMatch(/^RE-PROCESSED/);
  });

  it('throws FeedError for bytes that are not an MMDB', () => {
    expect(() => parseIcloudEgressMmdb(new TextEncoder().encode('172.224.226.0/27\n'))).toThrow(FeedError);
    expect(() => parseIcloudEgressMmdb(new Uint8Array(0))).toThrow(FeedError);
  });

  it('registers the three files', () => {
    expect(RELAY_FEEDS.map((f) => [f.id, f.path])).toEqual([
      ['icloud-relay-ipv4', 'relay/icloud-private-relay-ipv4.txt'],
      ['icloud-relay-ipv6', 'relay/icloud-private-relay-ipv6-merged.txt'],
      ['icloud-relay-mmdb', 'relay/icloud-egress-ip-ranges.mmdb'],
    ]);
  });
});

describe.skipIf(!HAVE_FEEDS)('relay adapters on the real feeds', () => {
  const v4 = HAVE_FEEDS ? parseIcloudRelayV4(readFileSync(`${FEEDS}/relay/icloud-private-relay-ipv4.txt`)) : null;
  const v6 = HAVE_FEEDS ? parseIcloudRelayV6(readFileSync(`${FEEDS}/relay/icloud-private-relay-ipv6-merged.txt`)) : null;
  const mm = HAVE_FEEDS ? parseIcloudEgressMmdb(readFileSync(`${FEEDS}/relay/icloud-egress-ip-ranges.mmdb`)) : null;

  it('text lists: 41949 IPv4 + 10455 IPv6 entries (SOURCES.md), nothing rejected', () => {
    expect(v4!.source.entries).toBe(41949);
    expect(v6!.source.entries).toBe(10455);
    expect(v4!.rejected).toEqual([]);
    expect(v6!.rejected).toEqual([]);
  });

  it('MMDB: 9284 IPv4 + 18507 IPv6 networks, every one with a country, built 2026-08-17', () => {
    expect(mm!.prefixes.filter((p) => p.version === 4)).toHaveLength(9284);
    expect(mm!.prefixes.filter((p) => p.version === 6)).toHaveLength(18507);
    expect(mm!.prefixes.every((p) => p.value.country !== null)).toBe(true);
    expect(mm!.source.data_date).toBe('2026-08-17T05:21:18Z');
  });

  it('MMDB and text lists cover exactly the same addresses', () => {
    expect(size(mm!.prefixes, 4)).toBe(size(v4!.prefixes, 4));
    expect(size(mm!.prefixes, 6)).toBe(size(v6!.prefixes, 6));
    expect(size(v4!.prefixes, 4)).toBe(106589n);
  });

  it('the golden addresses are relay networks', () => {
    expect(mm!.prefixes.find((p) => cidr(p) === '2a02:26f7:b3c0:4000::/64')?.value.country).toBe('US');
    expect(v4!.prefixes.some((p) => cidr(p) === '172.224.226.0/27')).toBe(true);
  });
});
