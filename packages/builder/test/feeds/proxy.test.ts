import { describe, expect, it } from 'vitest';
import { feedById } from '../../src/feeds/registry.js';
import type { PrefixFeed } from '../../src/feeds/types.js';
import { cidr, fullSizeBytes, readFixture, readFullSize } from './helpers.js';

type Proxies = PrefixFeed<true>;
const proxiesJson = feedById('monosans-proxies');
const allTxt = feedById('monosans-all');

describe('monosans proxies.json', () => {
  const r = readFixture<Proxies>('monosans-proxies');

  it('reads host AND exit_ip of every record, each address once', () => {
    expect(r.prefixes.map(cidr)).toEqual([
      '103.152.112.157/32', // host = exit_ip: once
      '192.111.139.163/32',
      '45.61.160.11/32', // an exit_ip only (again in record 4: once)
      '144.31.222.106/32',
      '104.28.230.247/32',
    ]);
    expect(r.prefixes.every((p) => p.value === true)).toBe(true);
  });

  it('rejects a hostname host and a bad exit_ip by record number, keeping the other field', () => {
    expect(r.rejected).toEqual([
      { feed: 'monosans-proxies', line: 4, message: 'host is not an IP address: "proxy.example.com"' },
      { feed: 'monosans-proxies', line: 5, message: 'exit_ip is not an IP address: "999.0.0.1"' },
    ]);
  });

  it('skips a null exit_ip (not measured) and reports non-object records', () => {
    const e = proxiesJson.read('[{"host":"1.1.1.1","exit_ip":null},7,{"host":5,"exit_ip":"2.2.2.2"}]') as Proxies;
    expect(e.prefixes.map(cidr)).toEqual(['1.1.1.1/32', '2.2.2.2/32']);
    expect(e.rejected).toEqual([
      { feed: 'monosans-proxies', line: 2, message: 'record is number, not an object' },
      { feed: 'monosans-proxies', line: 3, message: 'host is number, not a string' },
    ]);
  });

  it('names what is wrong with a file that is not a JSON array of proxies', () => {
    expect(() => proxiesJson.read('{"proxies":[]}')).toThrow(/expected a JSON array/);
    expect(() => proxiesJson.read('[]')).toThrow(expect.objectContaining({ code: 'feed_empty' }));
    expect(() => proxiesJson.read('[{"host":"x"}]')).toThrow(/no record has an IP address/);
    expect(() => proxiesJson.read('[{"host":')).toThrow(/not JSON/);
  });
});

describe('monosans proxies/all.txt', () => {
  const r = readFixture<Proxies>('monosans-all');

  it('reads the host of every protocol://host:port line, each once', () => {
    expect(r.prefixes.map(cidr)).toEqual(['103.152.112.157/32', '192.111.139.163/32', '144.31.222.106/32', '2001:db8::10/128']);
  });

  it('rejects a hostname and a line without a port', () => {
    expect(r.rejected).toEqual([
      { feed: 'monosans-all', line: 5, message: 'host is not an IP address: "proxy.example.com"' },
      { feed: 'monosans-all', line: 6, message: 'not protocol://host:port: "http://85.8.47.198"' },
    ]);
  });

  it('a list of bare addresses is not this format', () => {
    expect(() => allTxt.read('1.2.3.4\n')).toThrow(/no line is a proxy URL/);
  });
});

describe('monosans, full size (vendored copy)', () => {
  it('proxies.json: 492 records -> 456 hosts + 449 exit IPs (the 571 distinct addresses of the contract suite)', () => {
    const records = JSON.parse(new TextDecoder().decode(fullSizeBytes('monosans-proxies'))) as { host: string; exit_ip: string }[];
    expect(records).toHaveLength(492);
    expect(new Set(records.map((x) => x.host)).size).toBe(456);
    expect(new Set(records.map((x) => x.exit_ip)).size).toBe(449);
  });

  it('all.txt holds the same hosts as proxies.json', async () => {
    const r = await readFullSize<Proxies>('monosans-all');
    const hosts = (JSON.parse(new TextDecoder().decode(fullSizeBytes('monosans-proxies'))) as { host: string }[]).map((x) => `${x.host}/32`);
    expect(new Set(r.prefixes.map(cidr))).toEqual(new Set(hosts));
  });
});
