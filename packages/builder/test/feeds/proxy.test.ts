import { existsSync, readFileSync } from 'node:fs';
import { bigIntToText } from '@ipintel/core/writer';
import { describe, expect, it } from 'vitest';
import { PROXY_FEEDS, parseMonosansAll, parseMonosansProxies } from '../../src/feeds/proxy.js';
import { FeedError } from '../../src/feeds/types.js';
import type { Prefix } from '../../src/feeds/types.js';

const FIXTURES = new URL('../../../../fixtures/feeds/', import.meta.url).pathname;
const FEEDS = process.env.IPINTEL_FEEDS ?? new URL('../../../../../shared/feeds', import.meta.url).pathname;
const HAVE_FEEDS = existsSync(FEEDS);
if (!HAVE_FEEDS) console.log(`proxy.test: full-size tests skipped: no feeds folder at ${FEEDS} (set IPINTEL_FEEDS)`);

const cidr = (p: Prefix<unknown>): string => `${bigIntToText(p.version, p.start)}/${p.length}`;
const fixture = (path: string): Uint8Array => readFileSync(FIXTURES + path);

describe('parseMonosansProxies on the fixture', () => {
  const r = parseMonosansProxies(fixture('proxy/monosans-proxies.json'));

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

  it('fills the source (no date in the file)', () => {
    expect(r.source).toEqual({
      id: 'monosans-proxies',
      publisher: 'monosans (proxy-list / proxy-scraper-checker)',
      url: 'https://raw.githubusercontent.com/monosans/proxy-list/main/proxies.json',
      licence: 'MIT',
      attribution_required: false,
      data_date: null,
      evidence: 'beta',
      entries: 5,
    });
  });
});

describe('parseMonosansProxies edge cases', () => {
  it('skips a null exit_ip (not measured) and reports non-object records', () => {
    const r = parseMonosansProxies('[{"host":"1.1.1.1","exit_ip":null},7,{"host":5,"exit_ip":"2.2.2.2"}]');
    expect(r.prefixes.map(cidr)).toEqual(['1.1.1.1/32', '2.2.2.2/32']);
    expect(r.rejected).toEqual([
      { feed: 'monosans-proxies', line: 2, message: 'record is number, not an object' },
      { feed: 'monosans-proxies', line: 3, message: 'host is number, not a string' },
    ]);
  });

  it('throws FeedError when the file is not a JSON array of proxies', () => {
    expect(() => parseMonosansProxies('')).toThrow(FeedError);
    expect(() => parseMonosansProxies('{"proxies":[]}')).toThrow(/expected a JSON array/);
    expect(() => parseMonosansProxies('[]')).toThrow(/empty/);
    expect(() => parseMonosansProxies('[{"host":"x"}]')).toThrow(/no record has an IP address/);
    expect(() => parseMonosansProxies('[{"host":')).toThrow(/not JSON/);
  });
});

describe('parseMonosansAll on the fixture', () => {
  const r = parseMonosansAll(fixture('proxy/monosans-all.txt'));

  it('reads the host of every protocol://host:port line, each once', () => {
    expect(r.prefixes.map(cidr)).toEqual(['103.152.112.157/32', '192.111.139.163/32', '144.31.222.106/32', '2001:db8::10/128']);
    expect(r.source.entries).toBe(4);
  });

  it('rejects a hostname and a line without a port', () => {
    expect(r.rejected).toEqual([
      { feed: 'monosans-all', line: 5, message: 'host is not an IP address: "proxy.example.com"' },
      { feed: 'monosans-all', line: 6, message: 'not protocol://host:port: "http://85.8.47.198"' },
    ]);
  });

  it('throws FeedError for an empty file or one with no proxy URL', () => {
    expect(() => parseMonosansAll('\n')).toThrow(FeedError);
    expect(() => parseMonosansAll('1.2.3.4\n')).toThrow(/no line is a proxy URL/);
  });

  it('registers both files', () => {
    expect(PROXY_FEEDS.map((f) => [f.id, f.path, f.kind])).toEqual([
      ['monosans-proxies', 'proxy/monosans-proxies.json', 'prefix'],
      ['monosans-all', 'proxy/monosans-all.txt', 'prefix'],
    ]);
  });
});

describe.skipIf(!HAVE_FEEDS)('proxy adapters on the real feeds', () => {
  it('proxies.json: 492 records -> 456 hosts + 449 exit IPs = 571 distinct addresses, nothing rejected', () => {
    const data = readFileSync(`${FEEDS}/proxy/monosans-proxies.json`);
    const r = parseMonosansProxies(data);
    const records = JSON.parse(data.toString('utf8')) as { host: string; exit_ip: string }[];
    expect(records).toHaveLength(492);
    expect(new Set(records.map((x) => x.host)).size).toBe(456);
    expect(new Set(records.map((x) => x.exit_ip)).size).toBe(449);
    expect(r.source.entries).toBe(571);
    expect(r.rejected).toEqual([]);
  });

  it('all.txt: 492 lines -> 456 distinct hosts, the same hosts as proxies.json, nothing rejected', () => {
    const r = parseMonosansAll(readFileSync(`${FEEDS}/proxy/monosans-all.txt`));
    expect(r.source.entries).toBe(456);
    expect(r.rejected).toEqual([]);
    const hosts = (JSON.parse(readFileSync(`${FEEDS}/proxy/monosans-proxies.json`, 'utf8')) as { host: string }[]).map((x) => `${x.host}/32`);
    expect(new Set(r.prefixes.map(cidr))).toEqual(new Set(hosts));
  });
});
