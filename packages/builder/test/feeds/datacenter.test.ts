import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { bigIntToText } from '@ipintel/core/writer';
import { describe, expect, it } from 'vitest';
import {
  ASN_DERIVED_FILES,
  DATACENTER_FEEDS,
  asnDerivedProvider,
  isoFromEpochMillis,
  parseAsnDerived,
  parseAwsIpRanges,
  parseAzureServiceTags,
  parseCloudflareIpv4,
  parseCloudflareIpv6,
  parseDigitalOceanGeofeed,
  parseDigitalOceanIpv4,
  parseDigitalOceanIpv6,
  parseFastlyIpList,
  parseGoogleCloud,
  parseGoogleGoog,
  parseLinodeGeofeed,
  parseLinodeGeofeedJson,
  parseOracleIpRanges,
  parseVultrIpv4,
  parseVultrIpv6,
  parseX4bDatacenterAsns,
  parseX4bDatacenterIpv4,
  parseX4bDatacenterIpv6,
} from '../../src/feeds/datacenter.js';
import type { DatacenterValue } from '../../src/feeds/datacenter.js';
import { FeedError } from '../../src/feeds/types.js';
import type { AsnFeed, Prefix, PrefixFeed } from '../../src/feeds/types.js';

const FIXTURES = new URL('../../../../fixtures/feeds/', import.meta.url).pathname;
const FEEDS = process.env.IPINTEL_FEEDS ?? new URL('../../../../../shared/feeds', import.meta.url).pathname;
const HAVE_FEEDS = existsSync(FEEDS);
if (!HAVE_FEEDS) console.log(`datacenter.test: full-size tests skipped: no feeds folder at ${FEEDS} (set IPINTEL_FEEDS)`);

const cidr = (p: Prefix<unknown>): string => `${bigIntToText(p.version, p.start)}/${p.length}`;
const fixture = (path: string): Uint8Array => readFileSync(FIXTURES + path);
const real = (path: string): Uint8Array => readFileSync(`${FEEDS}/${path}`);
const cidrs = (r: PrefixFeed<unknown>): string[] => r.prefixes.map(cidr);
const onlyValue = (r: PrefixFeed<DatacenterValue>): DatacenterValue[] => [...new Set(r.prefixes.map((p) => p.value))];

describe('provider-published JSON feeds on the fixtures', () => {
  it('AWS: all services, repeats once, date from createDate', () => {
    const r = parseAwsIpRanges(fixture('datacenter/aws-ip-ranges.json'));
    expect(cidrs(r)).toEqual(['3.5.140.0/22', '15.230.15.29/32', '52.95.110.0/24', '2600:1f18::/33', '2a05:d07a:a000::/40']);
    expect(onlyValue(r)).toEqual([{ provider: 'AWS', evidence: 'authoritative' }]);
    expect(r.rejected).toEqual([
      { feed: 'aws', line: 5, message: 'prefixes[4].ip_prefix: not an address: "3.5.300.0"' },
      { feed: 'aws', line: 9, message: 'ipv6_prefixes[3].ipv6_prefix: prefix length 129 exceeds 128' },
    ]);
    expect(r.source).toEqual({
      id: 'aws',
      publisher: 'Amazon Web Services',
      url: 'https://ip-ranges.amazonaws.com/ip-ranges.json',
      licence: 'published by AWS for public use (no licence text)',
      attribution_required: false,
      data_date: '2026-08-21T07:37:05Z',
      evidence: 'authoritative',
      entries: 5,
    });
  });

  it('Google Cloud and Google: date from syncToken (ms, UTC), not the zone-less creationTime', () => {
    const c = parseGoogleCloud(fixture('datacenter/google-cloud.json'));
    expect(cidrs(c)).toEqual(['34.1.208.0/20', '34.80.0.0/15', '2600:1900:4000::/44']);
    expect(onlyValue(c)).toEqual([{ provider: 'Google Cloud', evidence: 'authoritative' }]);
    expect(c.rejected).toEqual([{ feed: 'google-cloud', line: 3, message: 'prefixes[2].ipv4Prefix: prefix length 33 exceeds 32' }]);
    expect(c.source).toMatchObject({ id: 'google-cloud', data_date: '2026-08-21T08:05:42Z', entries: 3 });

    const g = parseGoogleGoog(fixture('datacenter/google-goog.json'));
    expect(cidrs(g)).toEqual(['8.8.4.0/24', '8.8.8.0/24', '34.64.0.0/10', '34.80.0.0/15', '2001:4860::/32']);
    expect(onlyValue(g)).toEqual([{ provider: 'Google', evidence: 'authoritative' }]);
    expect(g.rejected).toEqual([{ feed: 'google', line: 5, message: 'prefixes[4].ipv4Prefix: bad prefix length: "24/1"' }]);
    expect(g.source.note).toMatch(/Google Cloud takes precedence/);
    expect(isoFromEpochMillis('1787299542583')).toBe('2026-08-21T08:05:42Z');
  });

  it('Azure: only the AzureCloud tag; changeNumber in the note, no date', () => {
    const r = parseAzureServiceTags(fixture('datacenter/azure-ServiceTags_Public.json'));
    expect(cidrs(r)).toEqual(['4.145.74.52/30', '20.36.0.0/14', '40.64.0.0/10', '2603:1000::/24']);
    expect(onlyValue(r)).toEqual([{ provider: 'Microsoft Azure', evidence: 'authoritative' }]);
    expect(r.rejected).toEqual([
      { feed: 'azure', line: 5, message: 'values[1](AzureCloud).properties.addressPrefixes[4]: prefix length 100 exceeds 32' },
    ]);
    expect(r.source).toMatchObject({ id: 'azure', data_date: null, entries: 4, note: 'tag AzureCloud; changeNumber 375, cloud Public; the file states no date' });
  });

  it('Azure without the AzureCloud tag: the union of the regional AzureCloud.* tags; none at all is a FeedError', () => {
    const doc = {
      changeNumber: 1,
      values: [
        { name: 'AzureCloud.eastus', properties: { addressPrefixes: ['20.42.0.0/17'] } },
        { name: 'AzureCloud.westus', properties: { addressPrefixes: ['13.64.0.0/16', '20.42.0.0/17'] } },
        { name: 'Storage', properties: { addressPrefixes: ['1.1.1.0/24'] } },
      ],
    };
    const r = parseAzureServiceTags(JSON.stringify(doc));
    expect(cidrs(r)).toEqual(['20.42.0.0/17', '13.64.0.0/16']);
    expect(r.source.note).toMatch(/^2 regional AzureCloud/);
    expect(() => parseAzureServiceTags('{"values":[{"name":"Storage","properties":{"addressPrefixes":[]}}]}')).toThrow(/no AzureCloud/);
  });

  it('Oracle: every region, date from last_updated_timestamp', () => {
    const r = parseOracleIpRanges(fixture('datacenter/oracle-public_ip_ranges.json'));
    expect(cidrs(r)).toEqual(['40.233.0.0/19', '139.177.96.0/21', '129.213.0.0/16', '134.70.24.0/21']);
    expect(onlyValue(r)).toEqual([{ provider: 'Oracle Cloud', evidence: 'authoritative' }]);
    expect(r.rejected).toEqual([{ feed: 'oracle-cloud', line: 5, message: 'regions[1].cidrs[2].cidr: bad prefix length: "-1"' }]);
    expect(r.source).toMatchObject({ id: 'oracle-cloud', data_date: '2026-07-27T06:55:33Z', entries: 4 });
  });

  it('Fastly: addresses and ipv6_addresses', () => {
    const r = parseFastlyIpList(fixture('datacenter/fastly-public-ip-list.json'));
    expect(cidrs(r)).toEqual(['23.235.32.0/20', '151.101.0.0/16', '2a04:4e40::/32', '2a04:4e42::/32']);
    expect(onlyValue(r)).toEqual([{ provider: 'Fastly', evidence: 'authoritative' }]);
    expect(r.rejected).toEqual([{ feed: 'fastly', line: 3, message: 'addresses[2] is number, not a CIDR string' }]);
  });

  it('Linode geofeed CSV and converted JSON', () => {
    const c = parseLinodeGeofeed(fixture('datacenter/linode-geofeed.csv'));
    expect(cidrs(c)).toEqual(['2600:3c00::/32', '2600:3c12:b00::/40', '172.105.0.0/19', '172.239.30.0/24']);
    expect(onlyValue(c)).toEqual([{ provider: 'Linode', evidence: 'authoritative' }]);
    expect(c.rejected).toEqual([{ feed: 'linode-geofeed', line: 7, message: 'malformed CSV (unbalanced quotes)' }]);
    expect(c.source).toMatchObject({ id: 'linode-geofeed', url: 'https://geoip.linode.com/', data_date: '2025-07-24T10:00:06Z', entries: 4 });

    const j = parseLinodeGeofeedJson(fixture('datacenter/linode-geofeed-converted.json'));
    expect(cidrs(j)).toEqual(['2600:3c00::/32', '172.105.0.0/19', '172.239.30.0/24']);
    expect(j.rejected).toEqual([{ feed: 'linode-geofeed-json', line: 3, message: 'records[2].prefix: not an address: ""' }]);
    expect(j.source).toMatchObject({ data_date: '2026-08-21T10:00:05Z', entries: 3 });
    expect(j.source.note).toMatch(/^RE-PROCESSED/);
  });

  it('JSON feeds throw FeedError when the shape is wrong', () => {
    expect(() => parseAwsIpRanges('{"prefixes":[]}')).toThrow(/ipv6_prefixes/);
    expect(() => parseAwsIpRanges('{"prefixes":[],"ipv6_prefixes":[]}')).toThrow(/no prefix records/);
    expect(() => parseGoogleCloud('[1,2]')).toThrow(FeedError);
    expect(() => parseFastlyIpList('')).toThrow(/empty/);
    expect(() => parseOracleIpRanges('{"regions":[{"cidrs":"x"}]}')).toThrow(/no record holds a CIDR/);
    expect(() => parseLinodeGeofeedJson('<html>')).toThrow(/not JSON/);
  });
});

describe('provider-published text lists on the fixtures', () => {
  it('DigitalOcean geofeed CSV and lists', () => {
    const g = parseDigitalOceanGeofeed(fixture('datacenter/digitalocean-geofeed.csv'));
    expect(cidrs(g)).toEqual(['5.101.96.0/21', '159.203.0.0/16', '2604:a880:400::/48']);
    expect(g.rejected).toEqual([{ feed: 'digitalocean-geofeed', line: 3, message: 'bad prefix length: "16x"' }]);
    expect(onlyValue(g)).toEqual([{ provider: 'DigitalOcean', evidence: 'authoritative' }]);

    const v4 = parseDigitalOceanIpv4(fixture('datacenter/digitalocean-ipv4.txt'));
    expect(cidrs(v4)).toEqual(['5.101.96.0/21', '159.203.0.0/16', '209.97.176.0/20']);
    expect(v4.rejected).toEqual([{ feed: 'digitalocean-ipv4', line: 3, message: 'prefix length 33 exceeds 32' }]);
    expect(v4.source.note).toMatch(/^RE-PROCESSED/);

    const v6 = parseDigitalOceanIpv6(fixture('datacenter/digitalocean-ipv6.txt'));
    expect(cidrs(v6)).toEqual(['2a03:b0c0:0:108::/64', '2604:a880:400::/48']);
    expect(v6.rejected).toEqual([{ feed: 'digitalocean-ipv6', line: 2, message: 'IPv4 entry in an IPv6 list' }]);
  });

  it('Cloudflare', () => {
    const v4 = parseCloudflareIpv4(fixture('datacenter/cloudflare-ips-v4.txt'));
    expect(cidrs(v4)).toEqual(['103.21.244.0/22', '104.16.0.0/13', '104.24.0.0/14', '172.64.0.0/13', '198.41.128.0/17']);
    expect(v4.rejected).toEqual([{ feed: 'cloudflare-ipv4', line: 4, message: 'bad prefix length: "20,"' }]);
    expect(onlyValue(v4)).toEqual([{ provider: 'Cloudflare', evidence: 'authoritative' }]);
    expect(v4.source).toMatchObject({ url: 'https://www.cloudflare.com/ips-v4/', entries: 5 });
    const v6 = parseCloudflareIpv6(fixture('datacenter/cloudflare-ips-v6.txt'));
    expect(cidrs(v6)).toEqual(['2400:cb00::/32', '2606:4700::/32', '2a06:98c0::/29']);
    expect(v6.rejected).toEqual([{ feed: 'cloudflare-ipv6', line: 4, message: 'bad prefix length: "32/"' }]);
  });

  it('Vultr', () => {
    const v4 = parseVultrIpv4(fixture('datacenter/vultr-geofeed-ipv4.txt'));
    expect(cidrs(v4)).toEqual(['45.32.0.0/21', '45.76.0.0/20', '216.238.96.0/19']);
    expect(v4.rejected).toEqual([{ feed: 'vultr-ipv4', line: 3, message: 'bad prefix length: "16.5"' }]);
    const v6 = parseVultrIpv6(fixture('datacenter/vultr-geofeed-ipv6.txt'));
    expect(cidrs(v6)).toEqual(['2a05:f480:1c00::/38', '2001:19f0:5000::/38', '2401:c080:3800::/38']);
    expect(v6.rejected).toEqual([{ feed: 'vultr-ipv6', line: 4, message: 'not an address: "2401:c080::3800::"' }]);
    expect(onlyValue(v6)).toEqual([{ provider: 'Vultr', evidence: 'authoritative' }]);
  });
});

describe('inferred feeds on the fixtures', () => {
  it('ASN-derived: provider from the file name, inferred, repeats once', () => {
    const r = parseAsnDerived('hetzner')(fixture('datacenter/asn-derived/hetzner.json'));
    expect(cidrs(r)).toEqual(['94.130.0.0/16', '88.198.0.0/16', '5.9.0.0/16', '2a01:4f8::/29']);
    expect(onlyValue(r)).toEqual([{ provider: 'Hetzner', evidence: 'inferred' }]);
    expect(r.rejected).toEqual([{ feed: 'asn-derived-hetzner', line: 5, message: 'IPv4Prefixes[4]: prefix length 33 exceeds 32' }]);
    expect(r.source).toMatchObject({
      id: 'asn-derived-hetzner',
      url: 'https://raw.githubusercontent.com/jonhadfield/cloud-ips/HEAD/hetzner.json',
      evidence: 'inferred',
      entries: 4,
    });
    expect(r.source.note).toMatch(/not published by Hetzner/);
  });

  it('ASN-derived: every fixture file parses; provider names', () => {
    for (const name of ASN_DERIVED_FILES) {
      const r = parseAsnDerived(name)(fixture(`datacenter/asn-derived/${name}.json`));
      expect(r.prefixes.length).toBeGreaterThanOrEqual(3);
      expect(r.prefixes[0]!.value.provider).toBe(asnDerivedProvider(name));
    }
    expect(ASN_DERIVED_FILES.map(asnDerivedProvider)).toEqual([
      'Alibaba Cloud', 'Contabo', 'Fly.io', 'Hetzner', 'IBM Cloud', 'Leaseweb', 'M247', 'OVH', 'Scaleway', 'Tencent Cloud', 'Vultr',
    ]);
    expect(asnDerivedProvider('newhost')).toBe('Newhost');
  });

  it('X4BNet datacenter lists: provider null, inferred', () => {
    const v4 = parseX4bDatacenterIpv4(fixture('datacenter/x4bnet-datacenter-ipv4.txt'));
    expect(cidrs(v4)).toEqual(['1.12.0.0/14', '5.9.0.0/16', '8.8.8.0/24', '88.198.0.0/16']);
    expect(v4.rejected).toEqual([{ feed: 'x4bnet-datacenter-ipv4', line: 4, message: 'not an address: "300.1.2.0"' }]);
    expect(onlyValue(v4)).toEqual([{ provider: null, evidence: 'inferred' }]);
    const v6 = parseX4bDatacenterIpv6(fixture('datacenter/x4bnet-datacenter-ipv6.txt'));
    expect(cidrs(v6)).toEqual(['2001:310::/32', '2a01:4f8::/29']);
    expect(v6.rejected).toEqual([{ feed: 'x4bnet-datacenter-ipv6', line: 3, message: 'bad prefix length: "29::"' }]);
  });

  it('X4BNet hosting ASNs: names without URLs, first of a repeated ASN kept', () => {
    const r: AsnFeed<string | null> = parseX4bDatacenterAsns(fixture('datacenter/x4bnet-datacenter-ASN.txt'));
    expect([...r.asns]).toEqual([
      [45090, 'Tencent cloud computing, they dont really monitor their network'],
      [24940, 'HETZNER-AS, DE'],
      [8560, 'IONOS SE'],
      [55286, 'SERVER-MANIA, CA'],
      [42675, null],
      [12222, 'Akami'],
    ]);
    expect(r.rejected).toEqual([
      { feed: 'x4bnet-datacenter-asn', line: 7, message: 'duplicate AS24940 (first on line 2)' },
      { feed: 'x4bnet-datacenter-asn', line: 8, message: 'not an ASN: "ASX123"' },
    ]);
    expect(r.source).toMatchObject({ id: 'x4bnet-datacenter-asn', entries: 6, evidence: 'inferred' });
  });

  it('plain lists throw FeedError when empty or not a list', () => {
    expect(() => parseCloudflareIpv4('')).toThrow(FeedError);
    expect(() => parseX4bDatacenterIpv4('<!DOCTYPE html>\n<html>\n')).toThrow(/no line is an address/);
    expect(() => parseX4bDatacenterAsns('# only a comment\n')).toThrow(FeedError);
    expect(() => parseDigitalOceanGeofeed('\n')).toThrow(FeedError);
  });
});

describe('DATACENTER_FEEDS', () => {
  it('lists every datacenter file once, authoritative before inferred, Google Cloud before Google', () => {
    const ids = DATACENTER_FEEDS.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.indexOf('google-cloud')).toBeLessThan(ids.indexOf('google'));
    expect(DATACENTER_FEEDS).toHaveLength(29); // 15 published + 11 ASN-derived + 3 X4BNet
    const firstInferred = ids.indexOf('asn-derived-alibaba');
    expect(ids.slice(firstInferred).every((id) => id.startsWith('asn-derived-') || id.startsWith('x4bnet-'))).toBe(true);
    expect(DATACENTER_FEEDS.filter((f) => f.kind === 'asn').map((f) => f.path)).toEqual(['datacenter/x4bnet-datacenter-ASN.txt']);
  });

  it('every registered path has a fixture that parses', () => {
    for (const f of DATACENTER_FEEDS) {
      const r = f.parse(fixture(f.path));
      expect(r.source.id).toBe(f.id);
      expect(r.source.entries).toBeGreaterThan(0);
    }
  });
});

describe.skipIf(!HAVE_FEEDS)('datacenter adapters on the real feeds', () => {
  it('registers every file of the datacenter folder', () => {
    const files = readdirSync(`${FEEDS}/datacenter`, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => `${d.parentPath}/${d.name}`.slice(FEEDS.replace(/\/$/, '').length + 1));
    expect(new Set(files)).toEqual(new Set(DATACENTER_FEEDS.map((f) => f.path)));
  });

  it('every registered file parses with the counts of SOURCES.md and nothing rejected unexpectedly', () => {
    const expected: Record<string, number> = {
      aws: 7899 + 3106, // 10659 + 6158 records, one per service: distinct prefixes
      'google-cloud': 1092,
      google: 114,
      azure: 13080, // tag AzureCloud (9585 IPv4 + 3495 IPv6)
      'oracle-cloud': 1102,
      'digitalocean-geofeed': 1182,
      'digitalocean-ipv4': 1080,
      'digitalocean-ipv6': 148,
      'linode-geofeed': 4552,
      'linode-geofeed-json': 5505,
      'cloudflare-ipv4': 15,
      'cloudflare-ipv6': 7,
      fastly: 21,
      'vultr-ipv4': 442,
      'vultr-ipv6': 54,
      'asn-derived-alibaba': 3323, // 2848 + 541 listed, 66 repeats
      'asn-derived-contabo': 573,
      'asn-derived-flyio': 256,
      'asn-derived-hetzner': 774,
      'asn-derived-ibmcloud': 414,
      'asn-derived-leaseweb': 1085, // 822 + 271 listed, 8 repeats
      'asn-derived-m247': 236,
      'asn-derived-ovh': 765,
      'asn-derived-scaleway': 28,
      'asn-derived-tencent': 3428, // 3373 + 75 listed, 20 repeats
      'asn-derived-vultr': 2933,
      'x4bnet-datacenter-ipv4': 42566,
      'x4bnet-datacenter-ipv6': 8752,
      'x4bnet-datacenter-asn': 892, // 906 lines, 14 ASNs listed twice
    };
    for (const f of DATACENTER_FEEDS) {
      const r = f.parse(real(f.path));
      const rejected = f.id === 'x4bnet-datacenter-asn' ? r.rejected.filter((d) => !d.message.startsWith('duplicate')) : r.rejected;
      expect([f.id, r.source.entries, rejected]).toEqual([f.id, expected[f.id], []]);
    }
  });

  it('data dates', () => {
    const date = (id: string): string | null => {
      const f = DATACENTER_FEEDS.find((x) => x.id === id)!;
      return f.parse(real(f.path)).source.data_date;
    };
    expect(date('aws')).toBe('2026-08-21T07:37:05Z');
    expect(date('google-cloud')).toBe('2026-08-21T08:05:42Z');
    expect(date('azure')).toBeNull();
    expect(date('oracle-cloud')).toBe('2026-07-27T06:55:33Z');
    expect(date('linode-geofeed')).toBe('2025-07-24T10:00:06Z');
    expect(date('linode-geofeed-json')).toBe('2026-08-21T10:00:05Z');
  });

  it('the golden prefixes are where the fixtures put them', () => {
    const has = (r: PrefixFeed<unknown>, c: string): boolean => r.prefixes.some((p) => cidr(p) === c);
    const aws = parseAwsIpRanges(real('datacenter/aws-ip-ranges.json'));
    expect(has(aws, '3.5.140.0/22') && has(aws, '2600:1f18::/33')).toBe(true);
    expect(has(parseGoogleCloud(real('datacenter/google-cloud.json')), '34.80.0.0/15')).toBe(true);
    expect(has(parseCloudflareIpv4(real('datacenter/cloudflare-ips-v4.txt')), '104.16.0.0/13')).toBe(true);
    expect(has(parseAsnDerived('hetzner')(real('datacenter/asn-derived/hetzner.json')), '88.198.0.0/16')).toBe(true);
    const x4b = parseX4bDatacenterIpv4(real('datacenter/x4bnet-datacenter-ipv4.txt'));
    expect(has(x4b, '5.9.0.0/16')).toBe(true);
    const x4bAsns = parseX4bDatacenterAsns(real('datacenter/x4bnet-datacenter-ASN.txt'));
    expect(x4bAsns.rejected).toHaveLength(14);
  });
});
