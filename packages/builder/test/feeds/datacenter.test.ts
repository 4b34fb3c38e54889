import { describe, expect, it } from 'vitest';
import { ASN_DERIVED_PROVIDERS, asnDerivedProvider } from '../../src/feeds/datacenter/asn-derived.js';
import type { DatacenterValue } from '../../src/feeds/datacenter/values.js';
import { isoFromEpochMillis } from '../../src/feeds/read/dates.js';
import { FEEDS, feedById } from '../../src/feeds/registry.js';
import type { AsnsFound, PrefixFeed } from '../../src/feeds/types.js';
import { cidr, readFixture, readFullSize } from './helpers.js';

type Dc = PrefixFeed<DatacenterValue>;
const fx = (id: string): Dc => readFixture<Dc>(id);
const read = (id: string, text: string): Dc => feedById(id).read(text) as Dc;
const cidrs = (r: Dc): string[] => r.prefixes.map(cidr);
const onlyValue = (r: Dc): DatacenterValue[] => [...new Set(r.prefixes.map((p) => p.value))];

describe('provider-published JSON feeds on the fixtures', () => {
  it('AWS: all services, repeats once, date from createDate', () => {
    const r = fx('aws');
    expect(cidrs(r)).toEqual(['3.5.140.0/22', '15.230.15.29/32', '52.95.110.0/24', '2600:1f18::/33', '2a05:d07a:a000::/40']);
    expect(onlyValue(r)).toEqual([{ provider: 'AWS', cdn: false, anycast: false }]);
    // A prefix listed under CLOUDFRONT (as well as AMAZON) is a CDN edge range.
    const edges = read(
      'aws',
      JSON.stringify({
        createDate: '2026-08-22-06-13-04',
        prefixes: [
          { ip_prefix: '3.160.0.0/14', service: 'AMAZON' },
          { ip_prefix: '3.160.0.0/14', service: 'CLOUDFRONT' },
          { ip_prefix: '3.5.140.0/22', service: 'AMAZON' },
        ],
        ipv6_prefixes: [],
      }),
    );
    expect(edges.prefixes.map((p) => `${cidr(p)} ${String(p.value.cdn)}`)).toEqual(['3.160.0.0/14 true', '3.5.140.0/22 false']);
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
      entries: 5,
      refresh: '1d',
      evidence: 'authoritative',
    });
  });

  it('Google Cloud and Google: date from syncToken (ms, UTC), not the zone-less creationTime', () => {
    const c = fx('google-cloud');
    expect(cidrs(c)).toEqual(['34.1.208.0/20', '34.80.0.0/15', '2600:1900:4000::/44']);
    expect(onlyValue(c)).toEqual([{ provider: 'Google Cloud', cdn: false, anycast: false }]);
    expect(c.rejected).toEqual([{ feed: 'google-cloud', line: 3, message: 'prefixes[2].ipv4Prefix: prefix length 33 exceeds 32' }]);
    expect(c.source).toMatchObject({ id: 'google-cloud', data_date: '2026-08-21T08:05:42Z', entries: 3 });

    const g = fx('google');
    expect(cidrs(g)).toEqual(['8.8.4.0/24', '8.8.8.0/24', '34.64.0.0/10', '34.80.0.0/15', '2001:4860::/32']);
    expect(onlyValue(g)).toEqual([{ provider: 'Google', cdn: false, anycast: false }]);
    expect(g.rejected).toEqual([{ feed: 'google', line: 5, message: 'prefixes[4].ipv4Prefix: bad prefix length: "24/1"' }]);
    expect(g.source.note).toMatch(/Google Cloud takes precedence/);
    expect(isoFromEpochMillis('1787299542583')).toBe('2026-08-21T08:05:42Z');
  });

  it('Azure: only the AzureCloud tag; changeNumber in the note, no date', () => {
    const r = fx('azure');
    expect(cidrs(r)).toEqual(['4.145.74.52/30', '20.36.0.0/14', '40.64.0.0/10', '2603:1000::/24']);
    expect(onlyValue(r)).toEqual([{ provider: 'Microsoft Azure', cdn: false, anycast: false }]);
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
    const r = read('azure', JSON.stringify(doc));
    expect(cidrs(r)).toEqual(['20.42.0.0/17', '13.64.0.0/16']);
    expect(r.source.note).toMatch(/^2 regional AzureCloud/);
    expect(() => read('azure', '{"values":[{"name":"Storage","properties":{"addressPrefixes":[]}}]}')).toThrow(/no AzureCloud/);
  });

  it('Oracle: every region, date from last_updated_timestamp', () => {
    const r = fx('oracle-cloud');
    expect(cidrs(r)).toEqual(['40.233.0.0/19', '139.177.96.0/21', '129.213.0.0/16', '134.70.24.0/21']);
    expect(onlyValue(r)).toEqual([{ provider: 'Oracle Cloud', cdn: false, anycast: false }]);
    expect(r.rejected).toEqual([{ feed: 'oracle-cloud', line: 5, message: 'regions[1].cidrs[2].cidr: bad prefix length: "-1"' }]);
    expect(r.source).toMatchObject({ id: 'oracle-cloud', data_date: '2026-07-27T06:55:33Z', entries: 4 });
  });

  it('Fastly: addresses and ipv6_addresses', () => {
    const r = fx('fastly');
    expect(cidrs(r)).toEqual(['23.235.32.0/20', '151.101.0.0/16', '2a04:4e40::/32', '2a04:4e42::/32']);
    expect(onlyValue(r)).toEqual([{ provider: 'Fastly', cdn: true, anycast: true }]);
    expect(r.rejected).toEqual([{ feed: 'fastly', line: 3, message: 'addresses[2] is number, not a CIDR string' }]);
  });

  it('Linode geofeed CSV and converted JSON', () => {
    const c = fx('linode-geofeed');
    expect(cidrs(c)).toEqual(['2600:3c00::/32', '2600:3c12:b00::/40', '172.105.0.0/19', '172.239.30.0/24']);
    expect(onlyValue(c)).toEqual([{ provider: 'Linode', cdn: false, anycast: false }]);
    expect(c.rejected).toEqual([{ feed: 'linode-geofeed', line: 7, message: 'malformed CSV (unbalanced quotes)' }]);
    expect(c.source).toMatchObject({ id: 'linode-geofeed', url: 'https://geoip.linode.com/', data_date: '2025-07-24T10:00:06Z', entries: 4 });

    const j = fx('linode-geofeed-json');
    expect(cidrs(j)).toEqual(['2600:3c00::/32', '172.105.0.0/19', '172.239.30.0/24']);
    expect(j.rejected).toEqual([{ feed: 'linode-geofeed-json', line: 3, message: 'records[2].prefix: not an address: ""' }]);
    expect(j.source).toMatchObject({ data_date: '2026-08-21T10:00:05Z', entries: 3 });
    expect(j.source.note).toMatch(/^RE-PROCESSED/);
  });

  it('a data-date number no date can hold is no date: AWS syncToken and Google syncToken threw RangeError out of the adapter', () => {
    const aws = JSON.stringify({ syncToken: 99_999_999_999_999, prefixes: [{ ip_prefix: '3.5.0.0/16', service: 'AMAZON' }], ipv6_prefixes: [] });
    expect(read('aws', aws)).toMatchObject({ dataDate: null, source: { entries: 1 } });
    // Milliseconds given for seconds: the year 58606, not a data date.
    expect(read('aws', aws.replace('99999999999999', '1787299542583')).dataDate).toBeNull();
    const google = JSON.stringify({ syncToken: 9_007_199_254_740_991, prefixes: [{ ipv4Prefix: '8.8.8.0/24' }] });
    expect(read('google', google)).toMatchObject({ dataDate: null, source: { entries: 1 } });
  });

  it('JSON feeds throw FeedError when the shape is wrong', () => {
    expect(() => read('aws', '{"prefixes":[]}')).toThrow(/ipv6_prefixes/);
    expect(() => read('aws', '{"prefixes":[],"ipv6_prefixes":[]}')).toThrow(/no prefix records/);
    expect(() => read('google-cloud', '[1,2]')).toThrow(/expected a JSON object at the top level, got array/);
    expect(() => read('fastly', '')).toThrow(/empty/);
    expect(() => read('oracle-cloud', '{"regions":[{"cidrs":"x"}]}')).toThrow(/no record holds a CIDR/);
    expect(() => read('linode-geofeed-json', '<html>')).toThrow(/not JSON/);
  });
});

describe('provider-published text lists on the fixtures', () => {
  it('DigitalOcean geofeed CSV and lists', () => {
    const g = fx('digitalocean-geofeed');
    expect(cidrs(g)).toEqual(['5.101.96.0/21', '159.203.0.0/16', '2604:a880:400::/48']);
    expect(g.rejected).toEqual([{ feed: 'digitalocean-geofeed', line: 3, message: 'bad prefix length: "16x"' }]);
    expect(onlyValue(g)).toEqual([{ provider: 'DigitalOcean', cdn: false, anycast: false }]);

    const v4 = fx('digitalocean-ipv4');
    expect(cidrs(v4)).toEqual(['5.101.96.0/21', '159.203.0.0/16', '209.97.176.0/20']);
    expect(v4.rejected).toEqual([{ feed: 'digitalocean-ipv4', line: 3, message: 'prefix length 33 exceeds 32' }]);
    expect(v4.source.note).toMatch(/^RE-PROCESSED/);

    const v6 = fx('digitalocean-ipv6');
    expect(cidrs(v6)).toEqual(['2a03:b0c0:0:108::/64', '2604:a880:400::/48']);
    expect(v6.rejected).toEqual([{ feed: 'digitalocean-ipv6', line: 2, message: 'IPv4 entry in an IPv6 list' }]);
  });

  it('Cloudflare', () => {
    const v4 = fx('cloudflare-ipv4');
    expect(cidrs(v4)).toEqual(['103.21.244.0/22', '104.16.0.0/13', '104.24.0.0/14', '172.64.0.0/13', '198.41.128.0/17']);
    expect(v4.rejected).toEqual([{ feed: 'cloudflare-ipv4', line: 4, message: 'bad prefix length: "20,"' }]);
    expect(onlyValue(v4)).toEqual([{ provider: 'Cloudflare', cdn: true, anycast: true }]);
    expect(v4.source).toMatchObject({ url: 'https://www.cloudflare.com/ips-v4/', entries: 5 });
    const v6 = fx('cloudflare-ipv6');
    expect(cidrs(v6)).toEqual(['2400:cb00::/32', '2606:4700::/32', '2a06:98c0::/29']);
    expect(v6.rejected).toEqual([{ feed: 'cloudflare-ipv6', line: 4, message: 'bad prefix length: "32/"' }]);
  });

  it('Vultr', () => {
    const v4 = fx('vultr-ipv4');
    expect(cidrs(v4)).toEqual(['45.32.0.0/21', '45.76.0.0/20', '216.238.96.0/19']);
    expect(v4.rejected).toEqual([{ feed: 'vultr-ipv4', line: 3, message: 'bad prefix length: "16.5"' }]);
    const v6 = fx('vultr-ipv6');
    expect(cidrs(v6)).toEqual(['2a05:f480:1c00::/38', '2001:19f0:5000::/38', '2401:c080:3800::/38']);
    expect(v6.rejected).toEqual([{ feed: 'vultr-ipv6', line: 4, message: 'not an address: "2401:c080::3800::"' }]);
    expect(onlyValue(v6)).toEqual([{ provider: 'Vultr', cdn: false, anycast: false }]);
  });
});

describe('inferred feeds on the fixtures', () => {
  it('ASN-derived: provider from the file name, inferred, repeats once', () => {
    const r = fx('asn-derived-hetzner');
    expect(cidrs(r)).toEqual(['94.130.0.0/16', '88.198.0.0/16', '5.9.0.0/16', '2a01:4f8::/29']);
    expect(onlyValue(r)).toEqual([{ provider: 'Hetzner', cdn: false, anycast: false }]);
    expect(r.rejected).toEqual([{ feed: 'asn-derived-hetzner', line: 5, message: 'IPv4Prefixes[4]: prefix length 33 exceeds 32' }]);
    expect(r.source).toMatchObject({
      id: 'asn-derived-hetzner',
      url: 'https://raw.githubusercontent.com/jonhadfield/cloud-ips/HEAD/hetzner.json',
      evidence: 'inferred',
      entries: 4,
    });
    expect(r.source.note).toMatch(/not published by Hetzner/);
  });

  it('ASN-derived: one feed per cloud-ips file, each its provider', () => {
    for (const name of Object.keys(ASN_DERIVED_PROVIDERS)) expect(fx(`asn-derived-${name}`).prefixes[0]!.value.provider).toBe(asnDerivedProvider(name));
    expect(Object.keys(ASN_DERIVED_PROVIDERS).map(asnDerivedProvider)).toEqual([
      'Alibaba Cloud', 'Contabo', 'Fly.io', 'Hetzner', 'IBM Cloud', 'Leaseweb', 'M247', 'OVH', 'Scaleway', 'Tencent Cloud', 'Vultr',
    ]);
    expect(asnDerivedProvider('newhost')).toBe('Newhost');
  });

  it('X4BNet datacenter lists: provider null, inferred', () => {
    const v4 = fx('x4bnet-datacenter-ipv4');
    expect(cidrs(v4)).toEqual(['1.12.0.0/14', '5.9.0.0/16', '8.8.8.0/24', '88.198.0.0/16']);
    expect(v4.rejected).toEqual([{ feed: 'x4bnet-datacenter-ipv4', line: 4, message: 'not an address: "300.1.2.0"' }]);
    expect(onlyValue(v4)).toEqual([{ provider: null, cdn: false, anycast: false }]);
    const v6 = fx('x4bnet-datacenter-ipv6');
    expect(cidrs(v6)).toEqual(['2001:310::/32', '2a01:4f8::/29']);
    expect(v6.rejected).toEqual([{ feed: 'x4bnet-datacenter-ipv6', line: 3, message: 'bad prefix length: "29::"' }]);
  });

  it('X4BNet hosting ASNs: names without URLs, first of a repeated ASN kept', () => {
    const r = readFixture<AsnsFound<string | null>>('x4bnet-datacenter-asn');
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
  });

  it('lists with comments or blank lines only are empty', () => {
    expect(() => read('x4bnet-datacenter-asn', '# only a comment\n')).toThrow(expect.objectContaining({ code: 'feed_empty' }));
    expect(() => read('digitalocean-geofeed', '\n')).toThrow(expect.objectContaining({ code: 'feed_empty' }));
  });
});

describe('datacenter declarations', () => {
  it('published before inferred, Google Cloud before Google; the evidence decides published or inferred', () => {
    const dc = FEEDS.filter((f) => f.role === 'datacenter');
    const ids = dc.map((f) => f.id);
    expect(dc).toHaveLength(28); // 15 published + 11 ASN-derived + 2 X4BNet lists
    expect(ids.indexOf('google-cloud')).toBeLessThan(ids.indexOf('google'));
    const firstInferred = dc.findIndex((f) => f.evidence === 'inferred');
    expect(ids[firstInferred]).toBe('asn-derived-alibaba');
    expect(dc.slice(firstInferred).every((f) => f.evidence === 'inferred')).toBe(true);
    expect(FEEDS.filter((f) => f.role === 'hosting-asn').map((f) => f.id)).toEqual(['x4bnet-datacenter-asn']);
  });

  it('Azure is fetched through its download page (a locator)', () => {
    const azure = feedById('azure');
    expect(azure.origin === 'feeds' && typeof azure.download.locate).toBe('function');
  });
});

describe('datacenter feeds, full size (vendored copy)', () => {
  it('the golden prefixes are where the fixtures put them', async () => {
    const has = async (id: string, c: string): Promise<boolean> => (await readFullSize<Dc>(id)).prefixes.some((p) => cidr(p) === c);
    expect(await has('aws', '3.5.140.0/22')).toBe(true);
    expect(await has('aws', '2600:1f18::/33')).toBe(true);
    expect(await has('google-cloud', '34.80.0.0/15')).toBe(true);
    expect(await has('cloudflare-ipv4', '104.16.0.0/13')).toBe(true);
    expect(await has('asn-derived-hetzner', '88.198.0.0/16')).toBe(true);
    expect(await has('x4bnet-datacenter-ipv4', '5.9.0.0/16')).toBe(true);
  });

  it('x4bnet hosting ASNs: the 14 rejected lines are all repeats of a listed ASN', async () => {
    const r = await readFullSize<AsnsFound<string | null>>('x4bnet-datacenter-asn');
    expect(r.rejected.filter((d) => !d.message.startsWith('duplicate'))).toEqual([]);
  });
});
