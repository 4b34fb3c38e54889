import { describe, expect, it } from 'vitest';
import { IPSUM_MIN_LISTS, isRecentAbuse } from '../../src/feeds/abuse.js';
import type { AbuseValue } from '../../src/feeds/abuse.js';
import { FEEDS, feedById } from '../../src/feeds/registry.js';
import type { PrefixFeed } from '../../src/feeds/types.js';
import { cidr, readFixture, readFullSize } from './helpers.js';

type Abuse = PrefixFeed<AbuseValue>;
const ipsum = feedById('abuse-ipsum');

describe('abuse lists', () => {
  it('ipsum: IP<TAB>count kept as lists; header date converted to UTC', () => {
    const f = readFixture<Abuse>('abuse-ipsum');
    expect(f.prefixes.map((p) => `${cidr(p)} ${p.value.lists}`)).toEqual([
      '77.90.185.20/32 10',
      '2.57.122.53/32 9',
      '45.148.10.5/32 5',
      '193.32.162.10/32 3',
      '80.94.95.115/32 2',
      '1.14.64.225/32 1',
    ]);
    expect(f.rejected).toEqual([
      { feed: 'abuse-ipsum', line: 14, message: 'not an address: "45.148.10.256"' },
      { feed: 'abuse-ipsum', line: 15, message: 'expected IP<TAB>count: "193.32.162.11"' },
    ]);
    expect(f.source.data_date).toBe('2026-08-22T01:00:29Z');
  });

  it('threshold: IPsum is declared with IPSUM_MIN_LISTS lists, the single lists count on their own', () => {
    expect(IPSUM_MIN_LISTS).toBe(2);
    expect(ipsum.minLists).toBe(IPSUM_MIN_LISTS);
    const f = readFixture<Abuse>('abuse-ipsum');
    const recent = f.prefixes.filter((p) => isRecentAbuse(ipsum, p.value)).map(cidr);
    expect(recent).not.toContain('1.14.64.225/32');
    expect(recent).toContain('45.148.10.5/32');
    expect(isRecentAbuse(feedById('abuse-blocklist-de'), { lists: 1 })).toBe(true);
  });

  it('blocklist.de: IPv4 and IPv6 addresses, mirror date, bad line rejected', () => {
    const f = readFixture<Abuse>('abuse-blocklist-de');
    expect(f.prefixes.map(cidr)).toEqual(['1.14.64.225/32', '1.170.44.202/32', '193.32.162.10/32', '2001:1284:f502:af33:d86f:afa7:beb7:fdae/128']);
    expect(f.rejected).toEqual([{ feed: 'abuse-blocklist-de', line: 6, message: 'not an address: "193.32.162.999"' }]);
    expect(f.source.note).toContain('RE-PROCESSED');
  });

  it('threatfox: an IP:port line is rejected (ports were stripped by the mirror)', () => {
    expect(readFixture<Abuse>('abuse-threatfox').rejected).toEqual([{ feed: 'abuse-threatfox', line: 5, message: 'not an address: "47.95.207.79:443"' }]);
  });

  it('dshield: /24 netblocks; host bits set rejected', () => {
    const f = readFixture<Abuse>('abuse-dshield');
    expect(f.prefixes.map(cidr)).toEqual(['151.243.11.0/24', '66.132.186.0/24', '37.120.1.0/24']);
    expect(f.rejected).toEqual([{ feed: 'abuse-dshield', line: 5, message: 'host bits set: "65.49.1.7/24"' }]);
  });

  it('firehol level1: context only, holds bogon and DROP ranges', () => {
    const f = readFixture<Abuse>('abuse-firehol-level1');
    expect(f.prefixes.map(cidr)).toEqual(['1.10.16.0/20', '1.19.0.0/16', '2.57.122.0/24', '10.0.0.0/8', '37.120.1.0/24', '223.254.0.0/16']);
    expect(f.prefixes.every((p) => p.value.lists === 1)).toBe(true);
    expect(f.rejected).toEqual([{ feed: 'abuse-firehol-level1', line: 8, message: 'prefix length 40 exceeds 32' }]);
    expect(f.source.note).toContain('context only');
  });

  it('FireHOL level 1 (an aggregate of bogons and DROP) is the one abuse list the build does not read; all are beta', () => {
    const abuse = FEEDS.filter((f) => f.role === 'abuse');
    expect(abuse).toHaveLength(10);
    expect(abuse.filter((f) => f.use === 'context').map((f) => f.id)).toEqual(['abuse-firehol-level1']);
    expect(abuse.at(-1)!.id).toBe('abuse-firehol-level1');
    expect(abuse.every((f) => f.evidence === 'beta')).toBe(true);
  });

  it('an IPsum header alone is empty', () => {
    expect(() => ipsum.read('# IPsum\n# Last update: x\n')).toThrow(expect.objectContaining({ code: 'feed_empty' }));
  });
});

describe('abuse lists, full size (vendored copy)', () => {
  it('ipsum: list counts 1..10; 30773 entries meet the threshold', async () => {
    const f = await readFullSize<Abuse>('abuse-ipsum');
    const counts = f.prefixes.map((p) => p.value.lists);
    expect(Math.min(...counts)).toBe(1);
    expect(Math.max(...counts)).toBe(10);
    expect(f.prefixes.filter((p) => isRecentAbuse(ipsum, p.value))).toHaveLength(120430 - 89657);
  });
});
