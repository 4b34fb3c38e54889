import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bigIntToText } from '@ipintel/core/writer';
import { describe, expect, it } from 'vitest';
import {
  ABUSE_FEEDS,
  IPSUM_MIN_LISTS,
  isRecentAbuse,
  parseBlocklistDe,
  parseDshield,
  parseFireholLevel1,
  parseIpsum,
  parseThreatfox,
} from '../../src/feeds/abuse.js';
import type { AbuseValue } from '../../src/feeds/abuse.js';
import { FeedError } from '../../src/feeds/types.js';
import type { Prefix, PrefixFeed } from '../../src/feeds/types.js';

const FIXTURES = fileURLToPath(new URL('../../../../fixtures/feeds', import.meta.url));
const FEEDS = process.env.IPINTEL_FEEDS ?? fileURLToPath(new URL('../../../../../shared/feeds', import.meta.url));
const HAVE_FEEDS = existsSync(FEEDS);
if (!HAVE_FEEDS) console.log(`abuse: full-size tests skipped: no feeds folder at ${FEEDS} (set IPINTEL_FEEDS)`);

const fixture = (p: string): Uint8Array => readFileSync(join(FIXTURES, p));
const cidr = (p: Prefix<unknown>): string => `${bigIntToText(p.version, p.start)}/${p.length}`;

describe('abuse adapters on fixtures', () => {
  it('ipsum: IP<TAB>count kept as lists; header date converted to UTC', () => {
    const f = parseIpsum(fixture('abuse/ipsum.txt'));
    expect(f.prefixes.map((p) => `${cidr(p)} ${p.value.lists}`)).toEqual([
      '77.90.185.20/32 10',
      '2.57.122.53/32 9',
      '45.148.10.5/32 5',
      '193.32.162.10/32 3',
      '80.94.95.115/32 2',
      '1.14.64.225/32 1',
    ]);
    expect(f.prefixes.every((p) => !p.value.broad)).toBe(true);
    expect(f.rejected).toEqual([
      { feed: 'abuse-ipsum', line: 14, message: 'not an address: "45.148.10.256"' },
      { feed: 'abuse-ipsum', line: 15, message: 'expected IP<TAB>count: "193.32.162.11"' },
    ]);
    expect(f.source).toMatchObject({ id: 'abuse-ipsum', data_date: '2026-08-22T01:00:29Z', entries: 6, evidence: 'beta' });
  });

  it('threshold: IPsum needs IPSUM_MIN_LISTS lists, single lists count on their own', () => {
    expect(IPSUM_MIN_LISTS).toBe(2);
    const f = parseIpsum(fixture('abuse/ipsum.txt'));
    const recent = f.prefixes.filter((p) => isRecentAbuse(f.source.id, p.value)).map(cidr);
    expect(recent).not.toContain('1.14.64.225/32');
    expect(recent).toContain('45.148.10.5/32');
    expect(isRecentAbuse('abuse-blocklist-de', { lists: 1, broad: false })).toBe(true);
  });

  it('blocklist.de: IPv4 and IPv6 addresses, mirror date, bad line rejected', () => {
    const f = parseBlocklistDe(fixture('abuse/blocklist_de-all.txt'));
    expect(f.prefixes.map(cidr)).toEqual([
      '1.14.64.225/32',
      '1.170.44.202/32',
      '193.32.162.10/32',
      '2001:1284:f502:af33:d86f:afa7:beb7:fdae/128',
    ]);
    expect(f.rejected).toEqual([{ feed: 'abuse-blocklist-de', line: 6, message: 'not an address: "193.32.162.999"' }]);
    expect(f.source.data_date).toBe('2026-08-22T16:17:27.502Z');
    expect(f.source.note).toContain('RE-PROCESSED');
  });

  it('threatfox: an IP:port line is rejected (ports were stripped by the mirror)', () => {
    const f = parseThreatfox(fixture('abuse/threatfox-ips.txt'));
    expect(f.prefixes).toHaveLength(3);
    expect(f.rejected).toEqual([{ feed: 'abuse-threatfox', line: 5, message: 'not an address: "47.95.207.79:443"' }]);
  });

  it('dshield: /24 netblocks; host bits set rejected', () => {
    const f = parseDshield(fixture('abuse/dshield-block.txt'));
    expect(f.prefixes.map(cidr)).toEqual(['151.243.11.0/24', '66.132.186.0/24', '37.120.1.0/24']);
    expect(f.rejected).toEqual([{ feed: 'abuse-dshield', line: 5, message: 'host bits set: "65.49.1.7/24"' }]);
  });

  it('firehol level1: broad, holds bogon and DROP ranges', () => {
    const f = parseFireholLevel1(fixture('abuse/firehol_level1.txt'));
    expect(f.prefixes.map(cidr)).toEqual(['1.10.16.0/20', '1.19.0.0/16', '2.57.122.0/24', '10.0.0.0/8', '37.120.1.0/24', '223.254.0.0/16']);
    expect(f.prefixes.every((p) => p.value.broad && p.value.lists === 1)).toBe(true);
    expect(f.rejected).toEqual([{ feed: 'abuse-firehol-level1', line: 8, message: 'prefix length 40 exceeds 32' }]);
    expect(f.source.note).toContain('bogon/DROP sources decide');
  });

  it('every registered feed parses its fixture with its mirror date', () => {
    expect(ABUSE_FEEDS).toHaveLength(10);
    for (const s of ABUSE_FEEDS) {
      const f = s.parse(fixture(s.path)) as PrefixFeed<AbuseValue>;
      expect(f.source.id).toBe(s.id);
      expect(f.source.url).toBe(s.url);
      expect(f.source.data_date).toMatch(/^2026-08-22T/);
      expect(f.prefixes.every((p) => p.value.broad === (s.id === 'abuse-firehol-level1'))).toBe(true);
    }
  });

  it('throws FeedError for an empty or foreign file', () => {
    expect(() => parseIpsum('')).toThrow(FeedError);
    expect(() => parseIpsum('# IPsum\n# Last update: x\n')).toThrow(FeedError);
    expect(() => parseIpsum('<html>\n</html>\n')).toThrow(FeedError);
    expect(() => parseBlocklistDe('# Last updated: 2026-08-22T16:17:27.502Z\n')).toThrow(FeedError);
  });
});

describe.skipIf(!HAVE_FEEDS)('abuse adapters on the real feeds (SOURCES.md counts)', () => {
  const expected: Record<string, number> = {
    'abuse-ipsum': 120430,
    'abuse-blocklist-de': 26009,
    'abuse-cinsscore': 15000,
    'abuse-greensnow': 2895,
    'abuse-et-compromised': 539,
    'abuse-threatfox': 2344,
    'abuse-binarydefense': 2662,
    'abuse-bruteforceblocker': 548,
    'abuse-dshield': 20,
    'abuse-firehol-level1': 4619,
  };
  for (const s of ABUSE_FEEDS) {
    it(`${s.id}: ${expected[s.id]} entries, none rejected`, () => {
      const f = s.parse(readFileSync(join(FEEDS, s.path))) as PrefixFeed<AbuseValue>;
      expect(f.rejected).toEqual([]);
      expect(f.source.entries).toBe(expected[s.id]);
      expect(f.source.data_date).toMatch(/^2026-08-22T/);
    });
  }

  it('ipsum: list counts 1..10; 30773 entries meet the threshold', () => {
    const f = parseIpsum(readFileSync(join(FEEDS, 'abuse/ipsum.txt')));
    const counts = f.prefixes.map((p) => p.value.lists);
    expect(Math.min(...counts)).toBe(1);
    expect(Math.max(...counts)).toBe(10);
    expect(f.prefixes.filter((p) => isRecentAbuse(f.source.id, p.value))).toHaveLength(120430 - 89657);
    expect(f.source.data_date).toBe('2026-08-22T01:00:29Z');
  });

  it('blocklist.de holds 466 IPv6 addresses', () => {
    const f = parseBlocklistDe(readFileSync(join(FEEDS, 'abuse/blocklist_de-all.txt')));
    expect(f.prefixes.filter((p) => p.version === 6)).toHaveLength(466);
  });
});
