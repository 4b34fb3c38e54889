import { describe, expect, it } from 'vitest';
import { feedById } from '../../src/feeds/registry.js';
import type { PrefixesFound } from '../../src/feeds/types.js';
import { cidr, readFixture } from './helpers.js';

const tor = feedById('tor-exits');

describe('Tor bulk exit list', () => {
  const r = readFixture<PrefixesFound<true>>('tor-exits');

  it('reads every address as a /32 with value true', () => {
    expect(r.prefixes.map(cidr)).toEqual(['185.220.101.1/32', '171.25.193.25/32', '80.67.167.81/32', '198.98.51.189/32', '51.15.18.73/32']);
    expect(r.prefixes.every((p) => p.value === true)).toBe(true);
  });

  it('rejects a bad address and a prefix, with line numbers', () => {
    expect(r.rejected).toEqual([
      { feed: 'tor-exits', line: 5, message: 'not an address: "185.220.101.300"' },
      { feed: 'tor-exits', line: 7, message: 'expected a single address, got a prefix: "185.220.100.0/24"' },
    ]);
  });

  it("takes the data date from the mirror's '# Last updated' line and says so", () => {
    expect(r.source.data_date).toBe('2026-08-22T16:18:35.025Z');
    expect(r.source.note).toMatch(/Last updated/);
  });

  it("a '# Last updated' time that names no real time gives no date (and no mirror note)", () => {
    const r2 = tor.read('# Last updated: 2099-13-45T99:99:99Z\n185.220.101.1\n') as typeof r;
    expect(r2.source.data_date).toBeNull();
    expect(r2.source.note).toBeUndefined();
  });

  it("reads the publisher's own file (no header): no date, no note", () => {
    const own = tor.read('185.220.101.1\r\n2001:67c:e60:c0c:192:42:116:16\r\n') as typeof r;
    expect(own.prefixes.map(cidr)).toEqual(['185.220.101.1/32', '2001:67c:e60:c0c:192:42:116:16/128']);
    expect(own.source.data_date).toBeNull();
    expect(own.source.note).toBeUndefined();
  });

  it('a file with only the header, or no address at all, is a FeedError', () => {
    expect(() => tor.read('# Last updated: 2026-08-22T16:18:35.025Z\n')).toThrow(expect.objectContaining({ code: 'feed_empty' }));
    expect(() => tor.read('<html>\n<body>Service unavailable</body>\n')).toThrow(/no line is an address/);
  });
});
