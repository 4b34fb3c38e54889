import { describe, expect, it } from 'vitest';
import type { CrawlerValue } from '../../src/feeds/crawlers.js';
import { FEEDS, feedById } from '../../src/feeds/registry.js';
import type { PrefixFeed } from '../../src/feeds/types.js';
import { cidr, readFixture, readFullSize } from './helpers.js';

type Crawlers = PrefixFeed<CrawlerValue>;
const entries = (f: Crawlers): string[] => f.prefixes.map((p) => `${cidr(p)} ${p.value.name}`);
const fx = (id: string): Crawlers => readFixture<Crawlers>(id);

describe('crawler lists', () => {
  it('googlebot.json: entries, rejected records, creationTime as UTC', () => {
    const f = fx('crawler-googlebot');
    expect(entries(f)).toEqual([
      '2001:4860:4801:10::/64 Googlebot',
      '2001:4860:4801:11::/64 Googlebot',
      '66.249.64.0/27 Googlebot',
      '66.249.64.32/27 Googlebot',
    ]);
    expect(f.rejected).toEqual([
      { feed: 'crawler-googlebot', line: 5, message: 'host bits set: "66.249.65.1/27"' },
      { feed: 'crawler-googlebot', line: 6, message: 'IPv4 prefix where IPv6 is expected: "66.249.66.0/27"' },
    ]);
    expect(f.source).toEqual({
      id: 'crawler-googlebot',
      publisher: 'Google',
      url: 'https://developers.google.com/static/search/apis/ipranges/googlebot.json',
      licence: 'Google public file (no licence stated)',
      attribution_required: false,
      data_date: '2026-08-21T14:45:42Z',
      entries: 4,
      refresh: '7d',
      evidence: 'authoritative',
    });
  });

  it('special crawlers, user-triggered fetchers, applebot', () => {
    const s = fx('crawler-google-special');
    expect(entries(s)).toEqual(['2001:4860:4801:2008::/64 Google Special Crawler', '108.177.2.0/27 Google Special Crawler']);
    expect(s.rejected).toEqual([{ feed: 'crawler-google-special', line: 3, message: 'prefix length 33 exceeds 32' }]);

    const u = fx('crawler-google-user-triggered');
    expect(u.prefixes.map(cidr)).toEqual(['2404:f340:10:4000::/64', '107.178.192.0/27', '107.178.192.128/27']);
    expect(u.prefixes.every((p) => p.value.name === 'Google User-Triggered Fetcher')).toBe(true);
    expect(u.rejected).toEqual([]);

    const a = fx('crawler-applebot');
    expect(entries(a)).toEqual(['17.241.208.160/27 Applebot', '17.166.20.0/24 Applebot']);
    expect(a.rejected).toEqual([{ feed: 'crawler-applebot', line: 3, message: 'not an address: "17.241.193.0160"' }]);
  });

  it('ipverse: service names, ASN-wide services skipped into the note, not rejected', () => {
    const f = fx('crawler-ipverse');
    expect(entries(f)).toEqual([
      '157.55.39.0/24 Bingbot',
      '207.46.13.0/24 Bingbot',
      '16.58.26.69/32 ClaudeBot',
      '18.225.238.228/32 ClaudeBot',
      '3.41.188.32/29 Common Crawl',
      '2600:1f28:365:8000::/56 Common Crawl',
    ]);
    expect(f.rejected).toEqual([{ feed: 'crawler-ipverse', line: 5, message: 'ClaudeBot ipv4[2]: not an address: "not-a-cidr"' }]);
    expect(f.source.note).toContain('Yandex (2 IPv4 + 1 IPv6)');
    expect(f.source.note).toContain('RE-PROCESSED');
    expect(f.source.data_date).toBe('2026-08-20T05:35:39Z');
    expect(f.prefixes.some((p) => p.value.name === 'Yandex')).toBe(false);
  });

  it('per-bot lists: Bingbot and GPTBot golden ranges, bad lines reported', () => {
    const b = fx('crawler-bingbot');
    expect(entries(b)).toEqual(['13.66.139.0/24 Bingbot', '40.77.167.0/24 Bingbot', '157.55.39.0/24 Bingbot', '207.46.13.0/24 Bingbot']);
    expect(b.rejected).toEqual([{ feed: 'crawler-bingbot', line: 4, message: 'prefix length 33 exceeds 32' }]);
    expect(b.source.note).toContain('RE-PROCESSED');

    const g = fx('crawler-openai-gptbot');
    expect(entries(g)).toEqual(['4.227.36.0/25 GPTBot', '20.171.206.0/24 GPTBot', '52.230.152.0/24 GPTBot']);
    expect(g.rejected).toEqual([{ feed: 'crawler-openai-gptbot', line: 3, message: 'host bits set: "20.171.207.0/23"' }]);

    const d = fx('crawler-duckduckbot');
    expect(d.prefixes).toHaveLength(3);
    expect(d.rejected).toEqual([{ feed: 'crawler-duckduckbot', line: 4, message: 'bad prefix length: "32x"' }]);
  });

  it('the OpenAI union (no bot name) comes last: used only where no named OpenAI list matches', () => {
    const crawlers = FEEDS.filter((f) => f.role === 'crawler');
    expect(crawlers.at(-1)!.id).toBe('crawler-openai-all');
    expect(fx('crawler-openai-all').prefixes[0]!.value).toEqual({ name: 'OpenAI' });
  });

  it('ipverse: a damaged service is one rejected record and the others are read (a null service failed the whole file)', () => {
    const good = { ip_list_authoritative: true, last_changed_at: '2026-08-20T05:35:39', ipv4: ['20.15.240.64/28'], ipv6: ['2a03:2880::/32'] };
    const text = JSON.stringify({ services: { Broken: null, GPTBot: good, Half: { ip_list_authoritative: true, ipv4: ['157.55.39.0/24'], ipv6: 'x' }, Last: [] } });
    const f = feedById('crawler-ipverse').read(text) as Crawlers;
    expect(entries(f)).toEqual(['20.15.240.64/28 GPTBot', '2a03:2880::/32 GPTBot', '157.55.39.0/24 Half']);
    expect(f.rejected).toEqual([
      { feed: 'crawler-ipverse', line: 1, message: 'service "Broken" is null, not an object' },
      { feed: 'crawler-ipverse', line: 5, message: 'Half ipv6 is string, not an array' },
      { feed: 'crawler-ipverse', line: 6, message: 'service "Last" is array, not an object' },
    ]);
    expect(f.source.data_date).toBe('2026-08-20T05:35:39Z');
  });

  it('names what is wrong with a file that is not the format', () => {
    const googlebot = feedById('crawler-googlebot');
    expect(() => googlebot.read('[]')).toThrow(/expected an object with a "prefixes" array/);
    expect(() => googlebot.read('{"creationTime": "x", "prefixes": []}')).toThrow(/no usable prefix among 0 records/);
    expect(() => feedById('crawler-ipverse').read('{"services": []}')).toThrow(/"services" object/);
  });
});

describe('crawler lists, full size (vendored copy)', () => {
  it('ipverse: 17 named authoritative services, Meta-ExternalAgent and Yandex skipped', async () => {
    const f = await readFullSize<Crawlers>('crawler-ipverse');
    expect(new Set(f.prefixes.map((p) => p.value.name)).size).toBe(17);
    expect(f.source.note).toContain('Meta-ExternalAgent (33 IPv4 + 2 IPv6), Yandex (14 IPv4 + 1 IPv6)');
  });

  it('golden addresses are in the real files', async () => {
    expect((await readFullSize<Crawlers>('crawler-googlebot')).prefixes.map(cidr)).toEqual(expect.arrayContaining(['66.249.64.0/27', '2001:4860:4801:10::/64']));
    expect((await readFullSize<Crawlers>('crawler-bingbot')).prefixes.map(cidr)).toContain('157.55.39.0/24');
  });
});
