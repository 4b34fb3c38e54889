/**
 * The publishers' own files of DShield and ThreatFox (what `--fetch` gets),
 * beside the mirror copies the contract suite reads from fixtures/feeds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { threatfoxFields } from '../../src/feeds/abuse-formats.js';
import { feedById } from '../../src/feeds/registry.js';
import type { PrefixFeed } from '../../src/feeds/types.js';
import { ROOT, cidr, readFixture } from './helpers.js';

type Abuse = PrefixFeed<{ lists: number }>;
const publisherFile = (name: string): Uint8Array => readFileSync(join(ROOT, 'fixtures/publishers', name));
const dshield = feedById('abuse-dshield');
const threatfox = feedById('abuse-threatfox');

describe("DShield's block.txt", () => {
  const f = dshield.read(publisherFile('dshield-block.txt')) as Abuse;

  it('reads the tab-separated rows under the banner; the column header is not data', () => {
    expect(f.prefixes.map(cidr)).toEqual(['151.243.11.0/24', '66.132.186.0/24', '65.49.1.0/24', '37.120.1.0/24']);
    expect(f.prefixes.every((p) => p.value.lists === 1)).toBe(true);
  });

  it('rejects a row whose start and end are not the block it names', () => {
    expect(f.rejected).toEqual([{ feed: 'abuse-dshield', line: 34, message: '45.148.10.7-45.148.10.255 is not the /24 block it names' }]);
  });

  it("takes the banner's updated: line as the data date (ctime in UTC, or a zone-less ISO time)", () => {
    expect(f.source.data_date).toBe('2026-08-22T16:10:04Z');
    const iso = '#    updated: 2026-07-14T20:45:40\nStart\tEnd\tNetblock\n198.51.100.0\t198.51.100.255\t24\t2076\tSomeNet\tUS\tabuse@example.com\n';
    expect(dshield.read(iso).source.data_date).toBe('2026-07-14T20:45:40Z');
  });

  it('reads the same blocks from the mirror copy (one CIDR per line)', () => {
    const mirror = readFixture<Abuse>('abuse-dshield').prefixes.map(cidr);
    expect(f.prefixes.map(cidr).filter((c) => mirror.includes(c))).toEqual(['151.243.11.0/24', '66.132.186.0/24', '37.120.1.0/24']);
  });

  it('a banner and a header without rows is empty; a page of another kind is not this format', () => {
    const banner = '#   DShield.org Recommended Block List\n#    updated: Sat Aug 22 16:10:04 2026 UTC\nStart\tEnd\tNetblock\tAttacks\tName\tCountry\temail\n';
    expect(() => dshield.read(banner)).toThrow(expect.objectContaining({ name: 'FeedError', code: 'feed_empty' }));
    expect(() => dshield.read('<html>\n<body>\tnothing\there</body>\n</html>\n')).toThrow(expect.objectContaining({ code: 'feed_format' }));
  });
});

describe("ThreatFox's ip:port CSV export", () => {
  const f = threatfox.read(publisherFile('threatfox-ip-port-recent.csv')) as Abuse;

  it('takes the address of every ip:port IOC, once per address (ports dropped), IPv6 in brackets too', () => {
    expect(f.prefixes.map(cidr)).toEqual(['47.95.207.79/32', '121.37.255.60/32', '2a03:b0c0:3:d0::1a51:c001/128', '139.198.183.44/32']);
  });

  it('rejects an IOC whose address is not one, naming the line', () => {
    expect(f.rejected).toEqual([{ feed: 'abuse-threatfox', line: 15, message: 'not an ip:port IOC: "139.198.183.300:443"' }]);
  });

  it("dates it by the banner's Last updated line, and says what it read", () => {
    expect(f.source.data_date).toBe('2026-08-22T16:18:29Z');
    expect(f.source.note).toBe("the publisher's ip:port export: 6 IOCs, 4 distinct addresses (ports dropped)");
  });

  it('rejects IOCs of another type (a domain in the general export)', () => {
    const text = '# "first_seen_utc","ioc_id","ioc_value","ioc_type"\n"2026-08-22 16:00:00", "1", "evil.example", "domain"\n"2026-08-22 16:00:01", "2", "192.0.2.1:80", "ip:port"\n';
    const r = threatfox.read(text) as Abuse;
    expect(r.prefixes.map(cidr)).toEqual(['192.0.2.1/32']);
    expect(r.rejected).toEqual([{ feed: 'abuse-threatfox', line: 2, message: 'IOC type "domain", not ip:port' }]);
  });

  it('splits records with or without the space after a comma, and "" inside a field', () => {
    expect(threatfoxFields('"a", "b,c","d ""e"""')).toEqual(['a', 'b,c', 'd "e"']);
    expect(threatfoxFields('"a", "b')).toBeNull();
    expect(threatfoxFields('"a" x')).toBeNull();
  });

  it('still reads the mirror copy (one IP per line) with its date as written', () => {
    const mirror = readFixture<Abuse>('abuse-threatfox');
    expect(mirror.prefixes.map(cidr)).toEqual(['47.95.207.79/32', '121.37.255.60/32', '139.198.183.44/32']);
    expect(mirror.source.data_date).toBe('2026-08-22T16:18:29.807Z');
  });

  it('a banner without records is empty', () => {
    const banner = new TextDecoder().decode(publisherFile('threatfox-ip-port-recent.csv')).split('\n').filter((l) => l.startsWith('#')).join('\n');
    expect(() => threatfox.read(banner)).toThrow(expect.objectContaining({ code: 'feed_empty' }));
  });
});
