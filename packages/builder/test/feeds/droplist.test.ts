import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bigIntToText } from '@ipintel/core/writer';
import { describe, expect, it } from 'vitest';
import { DROP_FEEDS, parseAsnDrop, parseDropV4, parseDropV6Ipset } from '../../src/feeds/droplist.js';
import { FeedError } from '../../src/feeds/types.js';
import type { Prefix } from '../../src/feeds/types.js';

const FIXTURES = fileURLToPath(new URL('../../../../fixtures/feeds', import.meta.url));
const FEEDS = process.env.IPINTEL_FEEDS ?? fileURLToPath(new URL('../../../../../shared/feeds', import.meta.url));
const HAVE_FEEDS = existsSync(FEEDS);
if (!HAVE_FEEDS) console.log(`droplist: full-size tests skipped: no feeds folder at ${FEEDS} (set IPINTEL_FEEDS)`);

const fixture = (p: string): Uint8Array => readFileSync(join(FIXTURES, p));
const real = (p: string): Uint8Array => readFileSync(join(FEEDS, p));
const cidr = (p: Prefix<unknown>): string => `${bigIntToText(p.version, p.start)}/${p.length}`;

const META = '{"type":"metadata","timestamp":1787415242,"size":1,"records":1}';

describe('DROP adapters on fixtures', () => {
  it('drop_v4.json: records with SBL ids, bad records rejected, metadata date', () => {
    const f = parseDropV4(fixture('droplist/spamhaus-drop_v4.json'));
    expect(f.prefixes.map((p) => `${cidr(p)} ${p.value.sblid}`)).toEqual([
      '1.10.16.0/20 SBL256894',
      '1.19.0.0/16 SBL434604',
      '223.254.0.0/16 SBL212803',
    ]);
    expect(f.rejected).toEqual([
      { feed: 'spamhaus-drop-v4', line: 3, message: 'prefix length 33 exceeds 32' },
      { feed: 'spamhaus-drop-v4', line: 4, message: 'record without a "cidr" string' },
    ]);
    expect(f.source).toMatchObject({
      id: 'spamhaus-drop-v4',
      url: 'https://www.spamhaus.org/drop/drop_v4.json',
      data_date: '2026-08-22T16:14:02Z',
      entries: 3,
      evidence: 'authoritative',
    });
    expect(f.source.licence).toContain('(c) 2026 The Spamhaus Project SLU');
  });

  it('drop_v6 ipset: add lines, no SBL ids, re-processed note', () => {
    const f = parseDropV6Ipset(fixture('droplist/spamhaus-drop_v6.ipset'));
    expect(f.prefixes.map((p) => `${cidr(p)} ${p.value.sblid}`)).toEqual([
      '2a12:a800:7::/48 null',
      '2a06:e480::/29 null',
      '2001:678:770::/48 null',
    ]);
    expect(f.rejected).toEqual([{ feed: 'spamhaus-drop-v6', line: 3, message: 'host bits set: "2401:c580::1/32"' }]);
    expect(f.source.note).toContain('RE-PROCESSED');
    expect(f.source.data_date).toBeNull();
  });

  it('asndrop.json: AsnFeed keyed by ASN, bad and duplicate records rejected', () => {
    const f = parseAsnDrop(fixture('droplist/spamhaus-asndrop.json'));
    expect([...f.asns.keys()]).toEqual([245, 399471, 402647]);
    expect(f.asns.get(399471)).toEqual({ asname: 'CUSTOMER', cc: 'NL', rir: 'arin', domain: 'serverion.com' });
    expect(f.rejected).toEqual([{ feed: 'spamhaus-asndrop', line: 3, message: 'record without an ASN in 1..4294967295: "AS402647"' }]);
    expect(f.source).toMatchObject({ id: 'spamhaus-asndrop', data_date: '2026-08-22T17:44:02Z', entries: 3 });
    const dup = parseAsnDrop('{"asn":1}\n{"asn":1}\n{"type":"metadata","timestamp":1,"records":2}\n');
    expect(dup.rejected).toEqual([{ feed: 'spamhaus-asndrop', line: 2, message: 'duplicate AS1' }]);
  });

  it('a line that is not JSON is rejected, not fatal', () => {
    const f = parseDropV4(`{"cidr":"1.10.16.0/20","sblid":"SBL256894","rir":"apnic"}\n{"cidr":\n${META.replace('"records":1', '"records":2')}\n`);
    expect(f.prefixes).toHaveLength(1);
    expect(f.rejected).toEqual([{ feed: 'spamhaus-drop-v4', line: 2, message: 'not JSON: "{\\"cidr\\":"' }]);
  });

  it('throws FeedError when the file is empty, truncated or not NDJSON', () => {
    const rec = '{"cidr":"1.10.16.0/20","sblid":"SBL256894","rir":"apnic"}';
    expect(() => parseDropV4('')).toThrow(FeedError);
    expect(() => parseDropV4(`${rec}\n`)).toThrow(/truncated/); // no metadata line
    expect(() => parseDropV4(`${rec}\n${META.replace('"records":1', '"records":2')}\n`)).toThrow(/metadata says 2 records/);
    expect(() => parseDropV4(`${META}\n${rec}\n`)).toThrow(/after the metadata/);
    expect(() => parseDropV4('[{"cidr":"1.10.16.0/20"}]')).toThrow(FeedError);
    expect(() => parseDropV4('<html>\n</html>\n')).toThrow(/not NDJSON/);
    expect(() => parseAsnDrop('')).toThrow(FeedError);
    expect(() => parseDropV6Ipset('')).toThrow(FeedError);
  });

  it('every registered feed parses its fixture', () => {
    expect(DROP_FEEDS.map((s) => s.kind)).toEqual(['prefix', 'prefix', 'asn']);
    for (const s of DROP_FEEDS) {
      const f = s.parse(fixture(s.path));
      expect(f.source.id).toBe(s.id);
      expect(f.source.url).toBe(s.url);
    }
  });
});

describe.skipIf(!HAVE_FEEDS)('DROP adapters on the real feeds (SOURCES.md counts)', () => {
  it('drop_v4: 1699 records, none rejected', () => {
    const f = parseDropV4(real('droplist/spamhaus-drop_v4.json'));
    expect(f.rejected).toEqual([]);
    expect(f.source.entries).toBe(1699);
    expect(f.source.data_date).toBe('2026-08-22T16:14:02Z');
    expect(f.prefixes.every((p) => p.version === 4 && p.value.sblid !== null && /^SBL\d+$/.test(p.value.sblid))).toBe(true);
    expect(f.prefixes[0]).toMatchObject({ length: 20, value: { sblid: 'SBL256894' } });
  });

  it('drop_v6: 91 entries (last line has no newline), none rejected', () => {
    const f = parseDropV6Ipset(real('droplist/spamhaus-drop_v6.ipset'));
    expect(f.rejected).toEqual([]);
    expect(f.source.entries).toBe(91);
    expect(f.prefixes.every((p) => p.version === 6)).toBe(true);
  });

  it('asndrop: 439 ASNs, none rejected, AS399471 present', () => {
    const f = parseAsnDrop(real('droplist/spamhaus-asndrop.json'));
    expect(f.rejected).toEqual([]);
    expect(f.asns.size).toBe(439);
    expect(f.asns.get(399471)?.asname).toBe('CUSTOMER');
    expect(f.source.data_date).toBe('2026-08-22T17:44:02Z');
  });
});
