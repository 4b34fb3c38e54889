import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bigIntToText } from '@ipintel/core/writer';
import { describe, expect, it } from 'vitest';
import {
  CRAWLER_FEEDS,
  parseApplebot,
  parseBingbot,
  parseDuckduckbot,
  parseGooglebot,
  parseGoogleSpecialCrawlers,
  parseGoogleUserTriggeredFetchers,
  parseGptbot,
  parseIpverseCrawlers,
} from '../../src/feeds/crawlers.js';
import { FeedError } from '../../src/feeds/types.js';
import type { Prefix, PrefixFeed } from '../../src/feeds/types.js';

const FIXTURES = fileURLToPath(new URL('../../../../fixtures/feeds', import.meta.url));
const FEEDS = process.env.IPINTEL_FEEDS ?? fileURLToPath(new URL('../../../../../shared/feeds', import.meta.url));
const HAVE_FEEDS = existsSync(FEEDS);
if (!HAVE_FEEDS) console.log(`crawlers: full-size tests skipped: no feeds folder at ${FEEDS} (set IPINTEL_FEEDS)`);

const fixture = (p: string): Uint8Array => readFileSync(join(FIXTURES, p));
const cidr = (p: Prefix<unknown>): string => `${bigIntToText(p.version, p.start)}/${p.length}`;
const entries = (f: PrefixFeed<{ name: string }>): string[] => f.prefixes.map((p) => `${cidr(p)} ${p.value.name}`);

describe('crawler adapters on fixtures', () => {
  it('googlebot.json: entries, rejected records, creationTime as UTC', () => {
    const f = parseGooglebot(fixture('crawlers/googlebot.json'));
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
      evidence: 'authoritative',
      entries: 4,
    });
  });

  it('special crawlers, user-triggered fetchers, applebot', () => {
    const s = parseGoogleSpecialCrawlers(fixture('crawlers/special-crawlers.json'));
    expect(entries(s)).toEqual(['2001:4860:4801:2008::/64 Google Special Crawler', '108.177.2.0/27 Google Special Crawler']);
    expect(s.rejected).toEqual([{ feed: 'crawler-google-special', line: 3, message: 'prefix length 33 exceeds 32' }]);
    expect(s.source.data_date).toBe('2026-08-21T14:46:19Z');

    const u = parseGoogleUserTriggeredFetchers(fixture('crawlers/user-triggered-fetchers.json'));
    expect(u.prefixes.map(cidr)).toEqual(['2404:f340:10:4000::/64', '107.178.192.0/27', '107.178.192.128/27']);
    expect(u.prefixes.every((p) => p.value.name === 'Google User-Triggered Fetcher')).toBe(true);
    expect(u.rejected).toEqual([]);

    const a = parseApplebot(fixture('crawlers/applebot.json'));
    expect(entries(a)).toEqual(['17.241.208.160/27 Applebot', '17.166.20.0/24 Applebot']);
    expect(a.rejected).toEqual([{ feed: 'crawler-applebot', line: 3, message: 'not an address: "17.241.193.0160"' }]);
    expect(a.source.data_date).toBe('2026-09-15T10:00:00Z');
  });

  it('ipverse: service names, ASN-wide services skipped into the note, not rejected', () => {
    const f = parseIpverseCrawlers(fixture('crawlers/ipverse-crawlers.json'));
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
    const b = parseBingbot(fixture('crawlers/bingbot-ipv4.txt'));
    expect(entries(b)).toEqual(['13.66.139.0/24 Bingbot', '40.77.167.0/24 Bingbot', '157.55.39.0/24 Bingbot', '207.46.13.0/24 Bingbot']);
    expect(b.rejected).toEqual([{ feed: 'crawler-bingbot', line: 4, message: 'prefix length 33 exceeds 32' }]);
    expect(b.source.note).toContain('RE-PROCESSED');
    expect(b.source.data_date).toBeNull();

    const g = parseGptbot(fixture('crawlers/openai-gptbot-ipv4.txt'));
    expect(entries(g)).toEqual(['4.227.36.0/25 GPTBot', '20.171.206.0/24 GPTBot', '52.230.152.0/24 GPTBot']);
    expect(g.rejected).toEqual([{ feed: 'crawler-openai-gptbot', line: 3, message: 'host bits set: "20.171.207.0/23"' }]);

    const d = parseDuckduckbot(fixture('crawlers/duckduckbot-ipv4.txt'));
    expect(d.prefixes).toHaveLength(3);
    expect(d.rejected).toEqual([{ feed: 'crawler-duckduckbot', line: 4, message: 'bad prefix length: "32x"' }]);
  });

  it('every registered feed parses its fixture; ids are unique kebab-case', () => {
    const ids = CRAWLER_FEEDS.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const s of CRAWLER_FEEDS) {
      expect(s.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(s.kind).toBe('prefix');
      const f = s.parse(fixture(s.path)) as PrefixFeed<{ name: string }>;
      expect(f.source.id).toBe(s.id);
      expect(f.source.url).toBe(s.url);
      expect(f.source.entries).toBe(f.prefixes.length);
      expect(f.prefixes.length).toBeGreaterThan(0);
    }
    expect(ids.at(-1)).toBe('crawler-openai-all');
    expect((CRAWLER_FEEDS.at(-1)!.parse(fixture('crawlers/openai-all-ipv4.txt')) as PrefixFeed<{ name: string }>).prefixes[0]!.value).toEqual({
      name: 'OpenAI',
    });
  });

  it('throws FeedError for a file that is not the format', () => {
    expect(() => parseGooglebot('')).toThrow(FeedError);
    expect(() => parseGooglebot('[]')).toThrow(FeedError);
    expect(() => parseGooglebot('{"creationTime": "x", "prefixes": []}')).toThrow(FeedError);
    expect(() => parseGooglebot('<html>')).toThrow(FeedError);
    expect(() => parseIpverseCrawlers('{"services": []}')).toThrow(FeedError);
    expect(() => parseBingbot('')).toThrow(FeedError);
    expect(() => parseBingbot('<html>\n<body>Not found</body>\n')).toThrow(FeedError);
  });
});

describe.skipIf(!HAVE_FEEDS)('crawler adapters on the real feeds (SOURCES.md counts)', () => {
  const expected: Record<string, { entries: number; date: string | null }> = {
    'crawler-googlebot': { entries: 169 + 146, date: '2026-08-21T14:45:42Z' },
    'crawler-google-special': { entries: 135 + 135, date: '2026-08-21T14:46:19Z' },
    'crawler-google-user-triggered': { entries: 528 + 528, date: '2026-08-21T14:45:40Z' },
    'crawler-applebot': { entries: 24, date: '2026-09-15T10:00:00Z' },
    'crawler-bingbot': { entries: 28, date: null },
    'crawler-openai-gptbot': { entries: 17, date: null },
    'crawler-openai-chatgpt-user': { entries: 193, date: null },
    'crawler-openai-searchbot': { entries: 32, date: null },
    'crawler-duckduckbot': { entries: 481, date: null },
    'crawler-perplexitybot': { entries: 12, date: null },
    // 1588 IPv4 + 222 IPv6, minus Meta-ExternalAgent (33 + 2) and Yandex (14 + 1)
    'crawler-ipverse': { entries: 1588 + 222 - 50, date: '2026-08-21T11:21:36Z' },
    'crawler-openai-all': { entries: 254, date: null },
  };

  for (const s of CRAWLER_FEEDS) {
    it(`${s.id}: every line read, none rejected`, () => {
      const f = s.parse(readFileSync(join(FEEDS, s.path))) as PrefixFeed<{ name: string }>;
      expect(f.rejected).toEqual([]);
      expect(f.source.entries).toBe(expected[s.id]!.entries);
      expect(f.source.data_date).toBe(expected[s.id]!.date);
    });
  }

  it('ipverse: 17 named authoritative services, Meta-ExternalAgent and Yandex skipped', () => {
    const f = parseIpverseCrawlers(readFileSync(join(FEEDS, 'crawlers/ipverse-crawlers.json')));
    expect(new Set(f.prefixes.map((p) => p.value.name)).size).toBe(17);
    expect(f.source.note).toContain('Meta-ExternalAgent (33 IPv4 + 2 IPv6), Yandex (14 IPv4 + 1 IPv6)');
  });

  it('golden addresses are in the real files', () => {
    const g = parseGooglebot(readFileSync(join(FEEDS, 'crawlers/googlebot.json')));
    expect(g.prefixes.map(cidr)).toEqual(expect.arrayContaining(['66.249.64.0/27', '2001:4860:4801:10::/64']));
    const b = parseBingbot(readFileSync(join(FEEDS, 'crawlers/bingbot-ipv4.txt')));
    expect(b.prefixes.map(cidr)).toContain('157.55.39.0/24');
  });
});
