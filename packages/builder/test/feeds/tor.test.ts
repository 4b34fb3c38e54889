import { existsSync, readFileSync } from 'node:fs';
import { bigIntToText } from '@ipintel/core/writer';
import { describe, expect, it } from 'vitest';
import { FeedError } from '../../src/feeds/types.js';
import type { Prefix } from '../../src/feeds/types.js';
import { TOR_FEEDS, parseTorExits } from '../../src/feeds/tor.js';

const FIXTURES = new URL('../../../../fixtures/feeds/', import.meta.url).pathname;
const FEEDS = process.env.IPINTEL_FEEDS ?? new URL('../../../../../shared/feeds', import.meta.url).pathname;
const HAVE_FEEDS = existsSync(FEEDS);
if (!HAVE_FEEDS) console.log(`tor.test: full-size tests skipped: no feeds folder at ${FEEDS} (set IPINTEL_FEEDS)`);

const cidr = (p: Prefix<unknown>): string => `${bigIntToText(p.version, p.start)}/${p.length}`;
const fixture = (path: string): Uint8Array => readFileSync(FIXTURES + path);

describe('parseTorExits on the fixture', () => {
  const r = parseTorExits(fixture('tor/torbulkexitlist.txt'));

  it('reads every address as a /32 with value true', () => {
    expect(r.prefixes.map(cidr)).toEqual([
      '185.220.101.1/32',
      '171.25.193.25/32',
      '80.67.167.81/32',
      '198.98.51.189/32',
      '51.15.18.73/32',
    ]);
    expect(r.prefixes.every((p) => p.value === true)).toBe(true);
  });

  it('rejects a bad address and a prefix, with line numbers', () => {
    expect(r.rejected).toEqual([
      { feed: 'tor-exits', line: 5, message: 'not an address: "185.220.101.300"' },
      { feed: 'tor-exits', line: 7, message: 'expected a single address, got a prefix: "185.220.100.0/24"' },
    ]);
  });

  it("takes the data date from the mirror's '# Last updated' line and says so", () => {
    expect(r.source).toMatchObject({
      id: 'tor-exits',
      publisher: 'The Tor Project',
      url: 'https://check.torproject.org/torbulkexitlist',
      data_date: '2026-08-22T16:18:35.025Z',
      entries: 5,
      evidence: 'authoritative',
      attribution_required: false,
    });
    expect(r.source.note).toMatch(/Last updated/);
  });
});

describe('parseTorExits edge cases', () => {
  it("reads the publisher's own file (no header): no date, no note", () => {
    const r = parseTorExits('185.220.101.1\r\n2001:67c:e60:c0c:192:42:116:16\r\n');
    expect(r.prefixes.map(cidr)).toEqual(['185.220.101.1/32', '2001:67c:e60:c0c:192:42:116:16/128']);
    expect(r.source.data_date).toBeNull();
    expect(r.source.note).toBeUndefined();
  });

  it('throws FeedError for an empty file or a file with no address', () => {
    expect(() => parseTorExits('')).toThrow(FeedError);
    expect(() => parseTorExits('# Last updated: 2026-08-22T16:18:35.025Z\n')).toThrow(FeedError);
    expect(() => parseTorExits('<html>\n<body>Service unavailable</body>\n')).toThrow(/no line is an address/);
  });

  it('registers the feed by path and official URL', () => {
    expect(TOR_FEEDS).toEqual([
      expect.objectContaining({ id: 'tor-exits', path: 'tor/torbulkexitlist.txt', url: 'https://check.torproject.org/torbulkexitlist', kind: 'prefix' }),
    ]);
  });
});

describe.skipIf(!HAVE_FEEDS)('parseTorExits on the real feed', () => {
  it('reads all 1372 exits (SOURCES.md) and rejects nothing', () => {
    const r = parseTorExits(readFileSync(`${FEEDS}/tor/torbulkexitlist.txt`));
    expect(r.source.entries).toBe(1372);
    expect(r.prefixes).toHaveLength(1372);
    expect(r.rejected).toEqual([]);
    expect(r.source.data_date).toBe('2026-08-22T16:18:35.025Z');
    expect(new Set(r.prefixes.map(cidr)).size).toBe(1372);
  });
});
