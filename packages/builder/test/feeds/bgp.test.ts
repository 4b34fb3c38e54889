import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bigIntToText } from '@ipintel/core/writer';
import { gzipSync } from 'fflate';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rangeToPrefixes } from '../../src/feeds/cidr.js';
import {
  BGP_FEEDS,
  RIS_MIN_PEERS,
  asnRangesToPrefixes,
  compactDate,
  gzipHeader,
  ipLocationDbVersionDate,
  parseAsmapDecoded,
  parseAsnCsv,
  parseAsnCsvRanges,
  parseIp2Asn,
  parseOriginField,
  parsePfx2as,
  parseRisWhois,
  pushRangePrefixes,
  unquoteCsvField,
} from '../../src/feeds/bgp.js';
import type { Prefix } from '../../src/feeds/types.js';

const FIXTURES = fileURLToPath(new URL('../../../../fixtures/feeds/', import.meta.url));
const FEEDS = process.env.IPINTEL_FEEDS ?? fileURLToPath(new URL('../../../../../shared/feeds', import.meta.url));
const fixture = (rel: string): Uint8Array => readFileSync(FIXTURES + rel);
const real = (rel: string): Uint8Array => readFileSync(`${FEEDS}/${rel}`);
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/** `8.8.8.0/24 <value>` lines, for exact comparisons. */
function show<V>(prefixes: readonly Prefix<V>[], fmt: (v: V) => string): string[] {
  return prefixes.map((p) => `${bigIntToText(p.version, p.start)}/${p.length} ${fmt(p.value)}`);
}
const origins = (v: { origins: readonly number[] }): string => v.origins.join(' ');
const asnOrg = (v: { asn: number; org: string }): string => `AS${v.asn} ${v.org}`;

function timed<T>(label: string, fn: () => T): T {
  const t0 = performance.now();
  const out = fn();
  console.log(`${label}: ${(performance.now() - t0).toFixed(0)} ms`);
  return out;
}

describe('helpers', () => {
  it('parses CAIDA origin fields (MOAS `_`, AS_SET `,`)', () => {
    expect(parseOriginField('15169')).toEqual([15169]);
    expect(parseOriginField('24151_24409')).toEqual([24151, 24409]);
    expect(parseOriginField('45458,134240_45458,65000,134240')).toEqual([45458, 134240, 65000]);
    expect(parseOriginField('4294967295')).toEqual([4294967295]);
    for (const bad of ['', 'AS1', '1__2', '1_', '4294967296', '01', '1 ']) expect(parseOriginField(bad)).toBeNull();
  });
  it('unquotes CSV fields', () => {
    expect(unquoteCsvField('Google LLC')).toBe('Google LLC');
    expect(unquoteCsvField('"Cloudflare, Inc."')).toBe('Cloudflare, Inc.');
    expect(unquoteCsvField('"LLC ""SPUTNIK"""')).toBe('LLC "SPUTNIK"');
    expect(unquoteCsvField('""')).toBe('');
    for (const bad of ['"open', '"a"b"', 'a"b', '"']) expect(unquoteCsvField(bad)).toBeNull();
  });
  it('reads dates', () => {
    expect(compactDate('20110811')).toBe('2011-08-11');
    for (const bad of ['00000000', '2011081', '20230231', '2011O811', '20111301']) expect(compactDate(bad)).toBeNull();
    expect(ipLocationDbVersionDate('2.3.2026061719')).toBe('2026-06-17');
    expect(ipLocationDbVersionDate('1.0.0')).toBeNull();
  });
  it('reads gzip headers', () => {
    expect(gzipHeader(gzipSync(enc('x'), { filename: 'a.txt', mtime: new Date('2024-04-08T05:51:12Z') }))).toEqual({
      name: 'a.txt',
      mtime: '2024-04-08T05:51:12Z',
    });
    expect(gzipHeader(gzipSync(enc('x'), { mtime: 0 }))).toEqual({ name: null, mtime: null });
    expect(gzipHeader(enc('plain text'))).toBeNull();
  });
});

describe('pushRangePrefixes', () => {
  const split = (version: 4 | 6, first: bigint, last: bigint): Prefix<number>[] => {
    const out: Prefix<number>[] = [];
    pushRangePrefixes(out, version, first, last, 1);
    return out;
  };
  it('splits edge ranges', () => {
    const all4 = (1n << 32n) - 1n;
    const all6 = (1n << 128n) - 1n;
    expect(split(4, 0n, all4)).toEqual([{ version: 4, start: 0n, length: 0, value: 1 }]);
    expect(split(6, 0n, all6)).toEqual([{ version: 6, start: 0n, length: 0, value: 1 }]);
    expect(split(4, all4, all4)).toEqual([{ version: 4, start: all4, length: 32, value: 1 }]);
    expect(split(4, 0x80000000n, all4)).toEqual([{ version: 4, start: 0x80000000n, length: 1, value: 1 }]);
    expect(split(4, 1n, all4 - 1n)).toEqual(rangeToPrefixes(4, 1n, all4 - 1n, 1));
    expect(split(6, 1n, all6 - 1n)).toEqual(rangeToPrefixes(6, 1n, all6 - 1n, 1));
  });
  it('matches rangeToPrefixes on random ranges', () => {
    const range = (bits: number) =>
      fc
        .tuple(fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n }), fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n }))
        .map(([a, b]): [bigint, bigint] => (a <= b ? [a, b] : [b, a]));
    fc.assert(
      fc.property(range(32), ([a, b]) => {
        expect(split(4, a, b)).toEqual(rangeToPrefixes(4, a, b, 1));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(range(128), ([a, b]) => {
        expect(split(6, a, b)).toEqual(rangeToPrefixes(6, a, b, 1));
      }),
      { numRuns: 300 },
    );
    // Ranges near aligned boundaries (few bits differ) exercise the small-block tails.
    const near = fc.tuple(fc.bigInt({ min: 0n, max: (1n << 120n) - 1n }), fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 20 }));
    fc.assert(
      fc.property(near, ([base, lo, hi]) => {
        const a = (base << 8n) + BigInt(lo);
        const b = a + (1n << BigInt(hi)) - 1n + BigInt(lo);
        expect(split(6, a, b)).toEqual(rangeToPrefixes(6, a, b, 1));
      }),
      { numRuns: 300 },
    );
  });
});

describe('CAIDA pfx2as fixture', () => {
  const feed = parsePfx2as(fixture('bgp/routeviews-rv2-20240406-1200.pfx2as.gz'));
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
  it('takes the data date from the gzip file name', () => {
    expect(feed.source).toMatchObject({ id: 'routeviews-pfx2as', data_date: '2024-04-06T12:00:00Z', entries: 8, attribution_required: true });
    const plain = parsePfx2as(enc('8.8.8.0\t24\t15169\r\n'), { dataDate: '2024-04-06' });
    expect(plain.source.data_date).toBe('2024-04-06');
    expect(show(plain.prefixes, origins)).toEqual(['8.8.8.0/24 15169']);
  });
});

describe('RIS whois dump fixture', () => {
  const data = fixture('bgp/riswhoisdump.IPv6-20241220.gz');
  const feed = parseRisWhois(data);
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
    expect(feed.source).toMatchObject({ id: 'ris-whois-ipv6', data_date: '2024-12-20T10:06:01Z', entries: 5 });
  });
  it('reports each malformed line', () => {
    expect(feed.rejected).toEqual([
      { feed: 'ris-whois-ipv6', line: 22, message: 'bad origin AS field: "2001:470::/32"' },
      { feed: 'ris-whois-ipv6', line: 23, message: 'bad prefix "2001:4860::1/32": host bits set' },
      { feed: 'ris-whois-ipv6', line: 24, message: 'expected origin<TAB>prefix<TAB>peers: "15169\\t2001:4860::/32"' },
    ]);
  });
  it('honours a lower threshold, never keeps the default route', () => {
    const all = parseRisWhois(data, { minPeers: 1 });
    expect(all.skipped).toBe(2);
    expect(show(all.prefixes, origins)).toContain('2001:db8:1::/48 64512');
    expect(show(all.prefixes, origins)).toContain('2001:470::/32 6939');
    expect(all.prefixes.some((p) => p.length === 0)).toBe(false);
  });
  it('orders MOAS origins by peers, then AS number', () => {
    const f = parseRisWhois(enc('2\t2001:db8::/32\t50\n1\t2001:db8::/32\t50\n{3,1}\t2001:db8::/32\t60\n'));
    expect(show(f.prefixes, origins)).toEqual(['2001:db8::/32 1 3 2']);
  });
});

describe('ip-location-db ASN CSV fixtures', () => {
  const v4 = parseAsnCsvRanges(fixture('bgp/ip-location-db-asn-ipv4.csv'), { id: 'ip-location-db-asn-ipv4', dataDate: '2026-06-17' });
  const v6 = parseAsnCsv(fixture('bgp/ip-location-db-asn-ipv6.csv'), { id: 'ip-location-db-asn-ipv6' });
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
    expect(v4.source).toMatchObject({ id: 'ip-location-db-asn-ipv4', data_date: '2026-06-17', entries: 9, licence: expect.stringContaining('CC BY 4.0') });
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
    expect(show(v6.prefixes, asnOrg)).toEqual([
      '2001:4860::/32 AS15169 Google LLC',
      '2606:4700::/32 AS13335 Cloudflare, Inc.',
      '2a00:1450::/34 AS15169 Google LLC',
      '2a00:1450:4000::/48 AS15169 Google LLC',
    ]);
    expect(v6.rejected).toEqual([
      { feed: 'ip-location-db-asn-ipv6', line: 4, message: 'range end 2a00:1450:4001:: before start 2a00:1450:4001::1' },
    ]);
    expect(v6.source.entries).toBe(4);
  });
});

describe('iptoasn and asmap fixtures', () => {
  it('reads iptoasn ranges, skipping AS0', () => {
    const f = parseIp2Asn(fixture('bgp/iptoasn-ip2asn-v6-20231208.tsv.gz'));
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
    expect(f.source.data_date).toBe('2023-12-08T21:32:18Z');
  });
  it('reads the decoded asmap', () => {
    const f = parseAsmapDecoded(fixture('bgp/asmap/1764864000_asmap_unfilled-decoded.txt.gz'), { dataDate: '2025-12-04T16:00:00Z' });
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
    expect(f.source.data_date).toBe('2025-12-04T16:00:00Z');
  });
});

describe('BGP_FEEDS registry', () => {
  it('lists each feed with an official URL and a parser that reads its fixture', () => {
    expect(BGP_FEEDS.map((f) => f.id)).toEqual([
      'routeviews-pfx2as',
      'ris-whois-ipv6',
      'ip-location-db-asn-ipv4',
      'ip-location-db-asn-ipv6',
      'iptoasn-ipv6',
      'asmap',
    ]);
    for (const spec of BGP_FEEDS) {
      expect(spec.url).toMatch(/^https:\/\//);
      expect(spec.kind).toBe('prefix');
      const out = spec.parse(fixture(spec.path));
      expect(out.source.id).toBe(spec.id);
      expect(out.source.entries).toBeGreaterThan(0);
      expect(out.source.data_date).not.toBeNull();
    }
  });
});

const haveFeeds = existsSync(FEEDS);
if (!haveFeeds) console.log(`bgp full-size tests skipped: no real feeds at ${FEEDS} (set IPINTEL_FEEDS)`);

describe.skipIf(!haveFeeds)('real BGP feeds (full size)', () => {
  it('pfx2as: 998,042 prefixes, none rejected', () => {
    const data = real('bgp/routeviews-rv2-20240406-1200.pfx2as.gz');
    const f = timed('pfx2as parse (998k lines)', () => parsePfx2as(data));
    expect(f.prefixes.length).toBe(998_042);
    expect(f.rejected).toEqual([]);
    expect(f.source.data_date).toBe('2024-04-06T12:00:00Z');
    expect(f.prefixes.filter((p) => p.value.origins.length > 1).length).toBe(5045);
    expect(show([f.prefixes.find((p) => p.start === 0x08080800n && p.length === 24)!], origins)).toEqual(['8.8.8.0/24 15169']);
  });
  it('RIS IPv6: 270,345 rows, 228,726 prefixes at >= 10 peers', () => {
    const data = real('bgp/riswhoisdump.IPv6-20241220.gz');
    const f = timed('riswhois parse (270k rows)', () => parseRisWhois(data));
    expect(f.rows).toBe(270_345);
    expect(f.skipped).toBe(47 + 39_550);
    expect(f.prefixes.length).toBe(228_726);
    expect(f.rejected).toEqual([]);
    expect(f.source.data_date).toBe('2024-12-20T10:06:01Z');
  });
  it('ip-location-db ASN CSV: 411,961 + 103,197 rows', () => {
    const d4 = real('bgp/ip-location-db-asn-ipv4.csv');
    const d6 = real('bgp/ip-location-db-asn-ipv6.csv');
    const r4 = timed('ip-location-db v4 ranges (412k lines)', () => parseAsnCsvRanges(d4));
    const r6 = timed('ip-location-db v6 ranges (103k lines)', () => parseAsnCsvRanges(d6));
    // The one overlap in the package (its README warns of known bugs): clipped, not lost.
    expect(r4.rejected).toEqual([
      {
        feed: 'ip-location-db-asn',
        line: 399_116,
        message: "range overlaps the previous row's range; clipped to start after it (65536 addresses dropped)",
      },
    ]);
    expect(r4.ranges.length).toBe(411_961);
    expect(r6.ranges.length).toBe(103_197);
    expect(r6.rejected).toEqual([]);
    const p4 = timed('ip-location-db v4 ranges -> prefixes', () => asnRangesToPrefixes(r4.ranges));
    const p6 = timed('ip-location-db v6 ranges -> prefixes', () => asnRangesToPrefixes(r6.ranges));
    console.log(`ip-location-db prefixes: ${p4.length} IPv4, ${p6.length} IPv6`);
    expect(p4.length).toBeGreaterThan(r4.ranges.length);
    const hit = (ranges: typeof r4.ranges, x: bigint): string | undefined => {
      const r = ranges.find((q) => q.first <= x && x <= q.last);
      return r && `AS${r.asn} ${r.org}`;
    };
    expect(hit(r4.ranges, 0x08080808n)).toBe('AS15169 Google LLC');
    expect(hit(r4.ranges, 0x01010101n)).toBe('AS13335 Cloudflare, Inc.');
  });
  it('the npm package copy is the same data', () => {
    const pkg = fileURLToPath(new URL('../../node_modules/@ip-location-db/asn/asn-ipv4.csv', import.meta.url));
    if (!existsSync(pkg)) return;
    expect(Buffer.compare(readFileSync(pkg), Buffer.from(real('bgp/ip-location-db-asn-ipv4.csv')))).toBe(0);
  });
  it('iptoasn IPv6 and the decoded asmap parse cleanly', () => {
    const ip2 = timed('iptoasn v6 parse (152k lines)', () => parseIp2Asn(real('bgp/iptoasn-ip2asn-v6-20231208.tsv.gz')));
    expect(ip2.skipped + 104_441).toBe(152_385 - ip2.rejected.length);
    expect(ip2.rejected).toEqual([]);
    const am = timed('asmap decoded parse (449k lines)', () => parseAsmapDecoded(real('bgp/asmap/1764864000_asmap_unfilled-decoded.txt.gz')));
    expect(am.prefixes.length).toBe(449_186);
    expect(am.prefixes.filter((p) => p.version === 4).length).toBe(356_045);
    expect(new Set(am.prefixes.map((p) => p.value.asn)).size).toBe(89_879);
    expect(am.rejected).toEqual([]);
  });
});
