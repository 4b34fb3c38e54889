import { bigIntToText } from '@ipintel/core/writer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { feedById } from '../../src/feeds/registry.js';
import { asnRangesToPrefixes, parseAsnCsvRanges } from '../../src/feeds/routing/ip-location-db-asn.js';
import type { AsnRangesFound } from '../../src/feeds/routing/ip-location-db-asn.js';
import { parseOriginField, parsePfx2as } from '../../src/feeds/routing/pfx2as.js';
import type { OriginsValue } from '../../src/feeds/routing/pfx2as.js';
import { RIS_MIN_PEERS, parseRisWhois } from '../../src/feeds/routing/ris-whois.js';
import type { RisFound } from '../../src/feeds/routing/ris-whois.js';
import type { PrefixesFound } from '../../src/feeds/types.js';
import { enc, fixtureBytes, readFixture, readFullSize, show } from './helpers.js';

const origins = (v: { origins: readonly number[] }): string => v.origins.join(' ');
const asnOrg = (v: { asn: number; org: string }): string => `AS${v.asn} ${v.org}`;

function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  return fn().then((out) => {
    console.log(`${label}: ${(performance.now() - t0).toFixed(0)} ms`);
    return out;
  });
}

describe('CAIDA pfx2as', () => {
  it('parses CAIDA origin fields (MOAS `_`, AS_SET `,`)', () => {
    expect(parseOriginField('15169')).toEqual([15169]);
    expect(parseOriginField('24151_24409')).toEqual([24151, 24409]);
    expect(parseOriginField('45458,134240_45458,65000,134240')).toEqual([45458, 134240, 65000]);
    expect(parseOriginField('4294967295')).toEqual([4294967295]);
    for (const bad of ['', 'AS1', '1__2', '1_', '4294967296', '01', '1 ']) expect(parseOriginField(bad)).toBeNull();
  });
  const feed = readFixture<PrefixesFound<OriginsValue>>('routeviews-pfx2as');
  it('reads every prefix with its origins', () => {
    expect(show(feed.prefixes, origins)).toEqual([
      '1.1.1.0/24 13335',
      '1.2.4.0/24 24151 24409',
      '3.5.140.0/22 16509',
      '8.8.8.0/24 15169',
      '66.249.64.0/19 15169',
      '67.14.0.0/17 209 3356 6223 6224 19901',
      '172.224.226.0/24 36183',
      '185.220.101.0/24 60729',
    ]);
    expect(feed.prefixes.every((p) => p.version === 4)).toBe(true);
    // Equal origin fields share one frozen value.
    expect(feed.prefixes[3]!.value).toBe(feed.prefixes[4]!.value);
    expect(Object.isFrozen(feed.prefixes[0]!.value.origins)).toBe(true);
  });
  it('reports each malformed line', () => {
    expect(feed.rejected).toEqual([
      { feed: 'routeviews-pfx2as', line: 5, message: 'not an address: "10.0.0.300"' },
      { feed: 'routeviews-pfx2as', line: 6, message: 'bad prefix length: "33"' },
      { feed: 'routeviews-pfx2as', line: 7, message: 'host bits set in 8.8.4.1/24' },
      { feed: 'routeviews-pfx2as', line: 8, message: 'bad origin AS field: "AS19281"' },
      { feed: 'routeviews-pfx2as', line: 9, message: 'expected prefix<TAB>length<TAB>origin: "9.9.9.0 24 19281"' },
    ]);
  });
  it('takes the data date from the gzip file name; a plain copy states none, and gets the declared copy date', () => {
    expect(parsePfx2as(fixtureBytes('routeviews-pfx2as'), 'x').dataDate).toBe('2024-04-06T12:00:00Z');
    const plain = feedById('routeviews-pfx2as').read(enc('8.8.8.0\t24\t15169\r\n')) as typeof feed;
    expect(plain.dataDate).toBeNull();
    expect(plain.source.data_date).toBe(feedById('routeviews-pfx2as').copyDate);
    expect(show(plain.prefixes, origins)).toEqual(['8.8.8.0/24 15169']);
  });
});

describe('a routing table of the other IP version in the declared one\'s place', () => {
  it('pfx2as: the IPv6 table (routeviews6) is feed_format for the IPv4 source; an IPv6 row among IPv4 ones is rejected', () => {
    const v6 = enc('2001:db8::\t32\t64500\n2606:4700::\t32\t13335\n');
    expect(show(parsePfx2as(v6, 'x').prefixes, origins)).toEqual(['2001:db8::/32 64500', '2606:4700::/32 13335']);
    expect(() => feedById('routeviews-pfx2as').read(v6)).toThrow(expect.objectContaining({ code: 'feed_format' }) as Error);
    const mixed = feedById('routeviews-pfx2as').read(enc('8.8.8.0\t24\t15169\n2606:4700::\t32\t13335\n')) as PrefixesFound<OriginsValue>;
    expect(show(mixed.prefixes, origins)).toEqual(['8.8.8.0/24 15169']);
    expect(mixed.rejected).toEqual([{ feed: 'routeviews-pfx2as', line: 2, message: 'IPv6 prefix in an IPv4 table: "2606:4700::\\t32\\t13335"' }]);
  });
  it('RIS: the IPv4 dump is feed_format for the IPv6 source, whatever the peer counts; a mapped route is still left out, not rejected', () => {
    const v4 = enc('%\n13335\t1.1.1.0/24\t300\n15169\t8.8.8.0/24\t2\n');
    expect(show(parseRisWhois(v4, 'x').prefixes, origins)).toEqual(['1.1.1.0/24 13335']);
    expect(() => feedById('ris-whois-ipv6').read(v4)).toThrow(expect.objectContaining({ code: 'feed_format' }) as Error);
    const mixed = parseRisWhois(enc('13335\t2606:4700::/32\t300\n13335\t1.1.1.0/24\t300\n9198\t::ffff:92.47.144.56/127\t300\n'), 'ris-whois-ipv6', RIS_MIN_PEERS, 6);
    expect(show(mixed.prefixes, origins)).toEqual(['2606:4700::/32 13335']);
    expect(mixed.rejected).toEqual([{ feed: 'ris-whois-ipv6', line: 2, message: 'IPv4 prefix in an IPv6 dump: "1.1.1.0/24"' }]);
    expect(mixed.skipped).toBe(1);
    expect(parseRisWhois(enc('13335\t2606:4700::/32\t300\n'), 'x', RIS_MIN_PEERS, 4).rejected).toEqual([
      { feed: 'x', line: 1, message: 'IPv6 prefix in an IPv4 dump: "2606:4700::/32"' },
    ]);
  });
});

describe('RIS whois dump', () => {
  const data = fixtureBytes('ris-whois-ipv6');
  const feed = readFixture<RisFound>('ris-whois-ipv6');
  it('keeps routes seen by enough peers and merges MOAS rows', () => {
    expect(RIS_MIN_PEERS).toBe(10);
    expect(show(feed.prefixes, origins)).toEqual([
      '2001:4860::/32 15169',
      '2606:4700::/32 13335',
      '2003::/19 3320',
      '2001:510::/32 36786 64463',
      '2001:678:6d0::/48 212748',
    ]);
    expect(feed.rows).toBe(13);
    expect(feed.skipped).toBe(4); // two ::/0 rows, two rows under 10 peers
    expect(feed.source.note).toBe('routes seen by fewer than 10 RIS peers, the default route and IPv4-mapped IPv6 routes are left out');
  });
  it('reports each malformed line', () => {
    expect(feed.rejected).toEqual([
      { feed: 'ris-whois-ipv6', line: 22, message: 'bad origin AS field: "2001:470::/32"' },
      { feed: 'ris-whois-ipv6', line: 23, message: 'bad prefix "2001:4860::1/32": host bits set' },
      { feed: 'ris-whois-ipv6', line: 24, message: 'expected origin<TAB>prefix<TAB>peers: "15169\\t2001:4860::/32"' },
    ]);
  });
  it('honours a lower threshold, never keeps the default route', () => {
    const all = parseRisWhois(data, 'ris-whois-ipv6', 1);
    expect(all.skipped).toBe(2);
    expect(show(all.prefixes, origins)).toContain('2001:db8:1::/48 64512');
    expect(show(all.prefixes, origins)).toContain('2001:470::/32 6939');
    expect(all.prefixes.some((p) => p.length === 0)).toBe(false);
  });
  it('dates the dump by its generation line only when that names a real time (Feb 30 was taken as 2024-02-30)', () => {
    const route = '13335\t2606:4700::/32\t300\n';
    expect(parseRisWhois(enc(`% This file was generated at Fri Dec 20 10:06:01 UTC 2024.\n${route}`), 'x').dataDate).toBe('2024-12-20T10:06:01Z');
    for (const bad of ['Fri Feb 30 10:06:01', 'Fri Dec 20 24:06:01', 'Fri Dec 32 10:06:01']) {
      const f = parseRisWhois(enc(`% This file was generated at ${bad} UTC 2024.\n${route}`), 'x');
      expect(f.dataDate, bad).toBeNull();
      expect(f.rejected, bad).toEqual([{ feed: 'x', line: 1, message: expect.stringMatching(/names no real time/) }]);
      expect(f.prefixes, bad).toHaveLength(1);
    }
  });
  it('leaves out an IPv4-mapped IPv6 route (::ffff:92.47.144.56/127 is in the 2024-12-20 dump): it was read as an IPv4 route', () => {
    for (const minPeers of [RIS_MIN_PEERS, 1]) {
      const f = parseRisWhois(enc('9198\t::ffff:92.47.144.56/127\t300\n9198\t::ffff:5c2f:9000/116\t300\n13335\t2606:4700::/32\t300\n'), 'x', minPeers);
      expect(show(f.prefixes, origins)).toEqual(['2606:4700::/32 13335']);
      expect([f.rows, f.skipped, f.rejected]).toEqual([3, 2, []]);
    }
  });
  it('orders MOAS origins by peers, then AS number', () => {
    const f = parseRisWhois(enc('2\t2001:db8::/32\t50\n1\t2001:db8::/32\t50\n{3,1}\t2001:db8::/32\t60\n'), 'x');
    expect(show(f.prefixes, origins)).toEqual(['2001:db8::/32 1 3 2']);
  });
});

describe('ip-location-db ASN CSV', () => {
  const v4 = readFixture<AsnRangesFound>('ip-location-db-asn-ipv4');
  const v6 = readFixture<AsnRangesFound>('ip-location-db-asn-ipv6');
  const range = (r: { version: 4 | 6; first: bigint; last: bigint; asn: number; org: string }): string =>
    `${bigIntToText(r.version, r.first)}-${bigIntToText(r.version, r.last)} AS${r.asn} ${r.org}`;
  it('reads ranges, unquoting organisation names', () => {
    expect(v4.ranges.map(range)).toEqual([
      '1.1.1.0-1.1.1.255 AS13335 Cloudflare, Inc.',
      '2.26.200.0-2.26.215.255 AS201907 LLC "SPUTNIK"',
      '3.5.140.0-3.5.143.255 AS16509 Amazon.com, Inc.',
      '8.8.8.0-8.8.8.255 AS15169 Google LLC',
      '66.249.64.0-66.249.95.255 AS15169 Google LLC',
      '172.224.226.0-172.224.226.255 AS36183 Akamai Technologies, Inc.',
      '185.220.101.0-185.220.101.255 AS60729 Stiftung Erneuerbare Freiheit',
      '214.95.0.0-215.0.255.255 AS749 United States Department of Defense (DoD)',
      '215.1.0.0-215.1.3.255 AS721 DoD Network Information Center',
    ]);
    expect(v4.source).toMatchObject({ id: 'ip-location-db-asn', data_date: null });
  });
  it('reports malformed, overlapping and unordered rows', () => {
    const feed = 'ip-location-db-asn-ipv4';
    expect(v4.rejected).toEqual([
      { feed, line: 5, message: 'expected range_start,range_end,asn,org: "8.8.9.0,8.8.9.255,15169"' },
      { feed, line: 6, message: 'bad AS number "AS19281"' },
      { feed, line: 7, message: 'range end 10.255.255.255 before start 11.0.0.0' },
      { feed, line: 8, message: 'bad CSV quoting in org "\\"Broken \\"quote\\""' },
      { feed, line: 13, message: "range overlaps the previous row's range; clipped to start after it (65536 addresses dropped)" },
      { feed, line: 14, message: "range lies inside the previous row's range; dropped" },
      { feed, line: 15, message: "out of order: starts before the previous row's start" },
    ]);
  });
  it('derives the fewest CIDR prefixes, sharing values', () => {
    const prefixes = asnRangesToPrefixes(v4.ranges);
    expect(show(prefixes, asnOrg)).toEqual([
      '1.1.1.0/24 AS13335 Cloudflare, Inc.',
      '2.26.200.0/21 AS201907 LLC "SPUTNIK"',
      '2.26.208.0/21 AS201907 LLC "SPUTNIK"',
      '3.5.140.0/22 AS16509 Amazon.com, Inc.',
      '8.8.8.0/24 AS15169 Google LLC',
      '66.249.64.0/19 AS15169 Google LLC',
      '172.224.226.0/24 AS36183 Akamai Technologies, Inc.',
      '185.220.101.0/24 AS60729 Stiftung Erneuerbare Freiheit',
      '214.95.0.0/16 AS749 United States Department of Defense (DoD)',
      '214.96.0.0/11 AS749 United States Department of Defense (DoD)',
      '214.128.0.0/9 AS749 United States Department of Defense (DoD)',
      '215.0.0.0/16 AS749 United States Department of Defense (DoD)',
      '215.1.0.0/22 AS721 DoD Network Information Center',
    ]);
    expect(prefixes[4]!.value).toBe(prefixes[5]!.value);
  });
  it('reads IPv6 ranges', () => {
    expect(show(asnRangesToPrefixes(v6.ranges), asnOrg)).toEqual([
      '2001:4860::/32 AS15169 Google LLC',
      '2606:4700::/32 AS13335 Cloudflare, Inc.',
      '2a00:1450::/34 AS15169 Google LLC',
      '2a00:1450:4000::/48 AS15169 Google LLC',
    ]);
    expect(v6.rejected).toEqual([
      { feed: 'ip-location-db-asn-ipv6', line: 4, message: 'range end 2a00:1450:4001:: before start 2a00:1450:4001::1' },
    ]);
  });
});

describe('ip-location-db ASN CSV, rows of the other IP version', () => {
  const read = (id: string, text: string): AsnRangesFound => feedById(id).read(enc(text)) as unknown as AsnRangesFound;

  it('the IPv6 file rejects IPv4 rows, IPv4-mapped ones included: no made-up AS for 216.0.0.1', () => {
    const f = read('ip-location-db-asn-ipv6', '::ffff:216.0.0.0,::ffff:216.0.0.255,64500,Mapped\n2001:db8::,2001:db8::ff,5,six\n1.0.0.0,1.0.0.255,1,A\n');
    expect(f.ranges.map((r) => `${r.version} ${bigIntToText(r.version, r.first)} AS${r.asn}`)).toEqual(['6 2001:db8:: AS5']);
    expect(f.rejected).toEqual([
      { feed: 'ip-location-db-asn-ipv6', line: 1, message: 'IPv4 address in the IPv6 file' },
      { feed: 'ip-location-db-asn-ipv6', line: 3, message: 'IPv4 address in the IPv6 file' },
    ]);
  });

  it('the IPv4 file rejects IPv6 rows, and the order check sees across them (the build once failed unnamed)', () => {
    const f = read('ip-location-db-asn-ipv4', '1.0.0.0,1.0.0.255,1,A\n2001:db8::,2001:db8::ff,5,six\n1.0.0.10,1.0.0.20,4,Inside\n0.255.0.0,0.255.0.255,3,Before\n');
    expect(f.ranges.map((r) => `${bigIntToText(4, r.first)}-${bigIntToText(4, r.last)} AS${r.asn}`)).toEqual(['1.0.0.0-1.0.0.255 AS1']);
    expect(f.rejected.map((d) => [d.line, d.message])).toEqual([
      [2, 'IPv6 address in the IPv4 file'],
      [3, "range lies inside the previous row's range; dropped"],
      [4, "out of order: starts before the previous row's start"],
    ]);
  });

  it('rejects a row of AS 0 (reserved: no network holds it), whatever its org, and keeps the rows around it', () => {
    const f = parseAsnCsvRanges(enc('1.0.0.0,1.0.0.255,13335,A\n1.0.1.0,1.0.1.255,0,"Not routed"\n1.0.2.0,1.0.2.255,00,Z\n1.0.3.0,1.0.3.255,15169,G\n'), 'test', 4);
    expect(f.ranges.map((r) => r.asn)).toEqual([13335, 15169]);
    expect(f.rejected.map((d) => [d.line, d.message])).toEqual([
      [2, 'AS 0 is reserved (RFC 7607) and holds no range'],
      [3, 'bad AS number "00"'],
    ]);
  });

  it("any rows, either file: ranges of the file's version only, ascending and disjoint; every other row a diagnostic", () => {
    const v4 = fc.nat(0xffffffff).map((n) => [4, BigInt(n)] as const);
    const v6 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map((n) => [6, n] as const);
    const mapped = fc.nat(0xffffffff).map((n) => [6, (0xffffn << 32n) | BigInt(n)] as const); // ::ffff:a.b.c.d: IPv4 to core
    const row = fc.tuple(fc.oneof(v4, v6, mapped), fc.nat(300)).map(([[ver, first], span]) => {
      const max = ver === 4 ? 0xffffffffn : (1n << 128n) - 1n;
      const last = first + BigInt(span) > max ? max : first + BigInt(span);
      return `${bigIntToText(ver, first)},${bigIntToText(ver, last)},64500,Org`;
    });
    fc.assert(
      fc.property(fc.constantFrom(4 as const, 6 as const), fc.array(row, { maxLength: 30 }), (version, rows) => {
        const f = parseAsnCsvRanges(enc(rows.join('\n')), 'test', version);
        for (let i = 0; i < f.ranges.length; i++) {
          const r = f.ranges[i]!;
          expect(r.version).toBe(version);
          expect(r.first <= r.last).toBe(true);
          if (version === 6) expect(r.first >> 32n === 0xffffn && r.last >> 32n === 0xffffn).toBe(false);
          if (i > 0) expect(f.ranges[i - 1]!.last < r.first).toBe(true);
        }
        // A row not used whole has a diagnostic (a clipped one has a range and a diagnostic).
        expect(f.ranges.length + f.rejected.length).toBeGreaterThanOrEqual(rows.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('iptoasn and asmap (context only)', () => {
  it('reads iptoasn ranges, skipping AS0', () => {
    const f = readFixture<PrefixesFound<{ asn: number; country: string | null; org: string }> & { skipped: number }>('iptoasn-ipv6');
    expect(show(f.prefixes, (v) => `AS${v.asn} ${v.country} ${v.org}`)).toEqual([
      '2001:4:112::/48 AS112 US -Reserved AS-',
      '2001:480:50::/48 AS6043 null AS6043',
      '2001:4860::/32 AS15169 US GOOGLE',
      '2a00:1450::/34 AS15169 US GOOGLE',
      '2a00:1450:4000::/48 AS15169 US GOOGLE',
    ]);
    expect(f.skipped).toBe(1);
    expect(f.rejected).toEqual([
      {
        feed: 'iptoasn-ipv6',
        line: 5,
        message: 'bad address range: "2001:4860:zz::\\t2001:4860:ffff::\\t15169\\tUS\\tGOOGLE"',
      },
      {
        feed: 'iptoasn-ipv6',
        line: 6,
        message: 'expected 5 tab-separated fields, got 4: "2606:4700::\\t2606:4700:ffff:ffff:ffff:ffff:ffff:ffff\\t13335\\tUS"',
      },
    ]);
  });
  it('reads the decoded asmap', () => {
    const f = readFixture<PrefixesFound<{ asn: number }>>('asmap');
    expect(show(f.prefixes, (v) => `AS${v.asn}`)).toEqual([
      '1.0.0.0/24 AS13335',
      '1.0.4.0/22 AS38803',
      '8.0.0.0/9 AS3356',
      '8.8.8.0/24 AS15169',
      '2001:4860::/32 AS15169',
      '2c0f:fff0::/32 AS37125',
    ]);
    expect(f.rejected).toEqual([
      { feed: 'asmap', line: 5, message: 'expected "prefix AS<n>": "1.2.3.0/24 13335"' },
      { feed: 'asmap', line: 6, message: 'host bits set: "1.2.3.4/24 AS1"' },
    ]);
  });
});

describe('the ASN table, full size (npm package)', () => {
  it('ip-location-db ASN (npm): the one overlap of the package is clipped, not lost; lookups', async () => {
    const r4 = await timed('ip-location-db v4 ranges (412k lines)', () => readFullSize<AsnRangesFound>('ip-location-db-asn-ipv4'));
    // The package's README warns of known bugs: this is the one overlap.
    expect(r4.rejected).toEqual([
      {
        feed: 'ip-location-db-asn-ipv4',
        line: 399_116,
        message: "range overlaps the previous row's range; clipped to start after it (65536 addresses dropped)",
      },
    ]);
    const p4 = asnRangesToPrefixes(r4.ranges);
    expect(p4.length).toBeGreaterThan(r4.ranges.length);
    const hit = (x: bigint): string | undefined => {
      const r = r4.ranges.find((q) => q.first <= x && x <= q.last);
      return r && `AS${r.asn} ${r.org}`;
    };
    expect(hit(0x08080808n)).toBe('AS15169 Google LLC');
    expect(hit(0x01010101n)).toBe('AS13335 Cloudflare, Inc.');
  });
});
