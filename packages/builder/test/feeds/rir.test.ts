import { bigIntToText } from '@ipintel/core/writer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { feedById } from '../../src/feeds/registry.js';
import { RIR_FEEDS, parseDelegated } from '../../src/feeds/routing/rir.js';
import type { RirFound } from '../../src/feeds/routing/rir.js';
import { enc, fixtureBytes, readFixture, readFullSize } from './helpers.js';

/** The asn records one AS at a time (the fixtures' ranges are short). */
const perAsn = (f: RirFound): Record<number, string | null> =>
  Object.fromEntries(f.asnRanges.flatMap((r) => Array.from({ length: r.last - r.first + 1 }, (_, i) => [r.first + i, r.country])));

const show = (f: RirFound): string[] =>
  f.prefixes.map((p) => `${bigIntToText(p.version, p.start)}/${p.length} ${p.value.country} ${p.value.date} ${p.value.status} ${p.value.registry}`);

describe('AFRINIC extended fixture', () => {
  const f = readFixture<RirFound>('rir-afrinic');
  it('reads allocated/assigned blocks, splitting non-power-of-two counts', () => {
    expect(show(f)).toEqual([
      '41.0.0.0/11 ZA 2007-11-26 allocated afrinic',
      '164.146.0.0/15 ZA 1993-03-12 allocated afrinic',
      '164.148.0.0/14 ZA 1993-03-12 allocated afrinic',
      '41.32.0.0/12 EG null assigned afrinic',
      '2001:4200::/32 ZA 2004-02-25 allocated afrinic',
      '2c0f:fe38::/33 KE null assigned afrinic',
    ]);
    expect(f.prefixes[1]!.value).toBe(f.prefixes[2]!.value);
    expect(f.skipped).toBe(2);
    expect(f.counts).toEqual({ asn: 2, ipv4: 6, ipv6: 3 });
    expect(perAsn(f)).toEqual({ 1228: 'ZA' });
    expect(f.header).toEqual({
      version: '2',
      registry: 'afrinic',
      serial: '20260821',
      records: 12,
      startDate: null,
      endDate: '2026-08-21',
      utcOffset: '00000',
    });
  });
  it('reports each bad record', () => {
    const feed = 'rir-afrinic';
    expect(f.rejected).toEqual([
      { feed, line: 11, message: 'bad ipv4 address count "0": "afrinic|ZA|ipv4|196.4.20.0|0|19930831|allocated|F369838C"' },
      { feed, line: 12, message: 'unknown type "ipv5": "afrinic|ZA|ipv5|196.4.24.0|256|19930831|allocated|F369838C"' },
      { feed, line: 13, message: 'unknown status "transferred": "afrinic|NG|ipv4|197.210.0.0|65536|20110317|transferred|F3691D3A"' },
      { feed, line: 16, message: 'host bits set in 2001:4201::/16: "afrinic|ZA|ipv6|2001:4201::|16|20040225|allocated|F36B9F4B"' },
    ]);
  });
});

describe('APNIC standard fixture', () => {
  const f = readFixture<RirFound>('rir-apnic');
  it('skips the comment header and the appended "# Last updated" line', () => {
    expect(show(f)).toEqual([
      '1.0.1.0/24 CN 2011-04-14 allocated apnic',
      '1.1.1.0/24 AU 2011-08-11 assigned apnic',
      '14.192.0.0/23 IN 2010-07-06 allocated apnic',
      '14.192.2.0/24 IN 2010-07-06 allocated apnic',
      '2410::/17 SG 2024-11-08 allocated apnic',
    ]);
    expect(perAsn(f)).toEqual({ 173: 'JP', 4608: 'AU', 4609: 'AU', 4610: 'AU', 4611: 'AU' });
    expect(f.rejected).toEqual([
      { feed: 'rir-apnic', line: 21, message: 'bad ipv4 start "1.1.300.0": "apnic|AU|ipv4|1.1.300.0|256|20110811|assigned"' },
      { feed: 'rir-apnic', line: 22, message: 'bad date "2011081": "apnic|AU|ipv4|1.2.0.0|256|2011081|assigned"' },
    ]);
  });
});

describe('LACNIC fixtures', () => {
  it('standard: warns about the summary that disagrees with the body', () => {
    const f = readFixture<RirFound>('rir-lacnic');
    expect(show(f)).toEqual([
      '5.183.80.0/22 DO 2024-07-11 allocated lacnic',
      '200.0.0.0/21 CO 1993-05-11 allocated lacnic',
      '24.152.0.0/22 BR 2020-03-10 allocated lacnic',
      '2001:1280::/32 BR 2002-10-18 allocated lacnic',
    ]);
    expect(f.rejected).toEqual([
      { feed: 'rir-lacnic', line: 9, message: 'bad date "20250231": "lacnic|MX|ipv6|2801:10::|32|20250231|allocated"' },
      { feed: 'rir-lacnic', line: 11, message: 'expected at least 7 fields, got 3: "lacnic|BR|ipv4"' },
      { feed: 'rir-lacnic', line: 4, message: 'summary says 3 asn records, file has 1' },
    ]);
  });
  it('extended (2.3, gzip): skips available/reserved rows, with or without opaque-id', () => {
    const f = readFixture<RirFound>('rir-lacnic-extended');
    expect(show(f)).toEqual([
      '24.152.0.0/22 BR 2020-03-10 allocated lacnic',
      '200.0.0.0/21 CO 1993-05-11 allocated lacnic',
      '2001:1280::/32 BR 2002-10-18 allocated lacnic',
    ]);
    expect(f.skipped).toBe(3);
    expect(f.header.version).toBe('2.3');
    expect(perAsn(f)).toEqual({ 28000: 'BR', 28001: 'BR' });
    expect(f.rejected).toEqual([
      { feed: 'rir-lacnic-extended', line: 9, message: 'bad ipv4 start "200.3.256.0": "lacnic|AR|ipv4|200.3.256.0|256|20010101|allocated|12"' },
    ]);
  });
});

describe('truncated RIPE NCC fixture', () => {
  it('reports the cut-off last line and the count mismatches, never crashes', () => {
    const f = readFixture<RirFound>('rir-ripencc-partial');
    expect(show(f)).toEqual([
      '1.178.112.0/20 PS 2007-11-26 allocated ripencc',
      '185.220.100.0/22 DE 2017-02-10 allocated ripencc',
      '185.41.128.0/22 GB 2013-11-26 allocated ripencc',
    ]);
    const feed = 'rir-ripencc-partial';
    expect(f.rejected).toEqual([
      {
        feed,
        line: 8,
        message: 'last line has no line end: file cut off, line not used: "ripencc|CH|ipv4|185.41.132.0|1024|20131126|allocated|c14091c-3fe9-4"',
      },
      { feed, line: 1, message: 'header says 260022 records, file has 4' },
      { feed, line: 2, message: 'summary says 100395 ipv4 records, file has 4' },
      { feed, line: 3, message: 'summary says 48678 asn records, file has 0' },
      { feed, line: 4, message: 'summary says 110949 ipv6 records, file has 0' },
    ]);
  });
  it('uses a last line without a line end when the counts show the file is whole', () => {
    const f = parseDelegated(enc('2|arin|20260101|1|19830101|20260101|-0500\narin|US|ipv4|8.0.0.0|16777216|19921201|allocated|x'), 'rir-arin');
    expect(show(f)).toEqual(['8.0.0.0/8 US 1992-12-01 allocated arin']);
    expect(f.rejected).toEqual([]);
    expect(f.dataDate).toBe('2026-01-01');
  });
  it('refuses a file without a version line', () => {
    const apnic = feedById('rir-apnic');
    expect(() => apnic.read('apnic|AU|ipv4|1.1.1.0|256|20110811|assigned\n')).toThrow(expect.objectContaining({ code: 'feed_format' }));
    expect(() => apnic.read('# only a comment\n')).toThrow(/no version line/);
  });
});

describe('asn records', () => {
  const file = (first: string, count: string): Uint8Array =>
    enc(`2|arin|20260101|1|19830101|20260101|-0500\narin|US|asn|${first}|${count}|19960328|assigned|x\n`);

  it('keeps a record as one range, even one of 10^8 ASNs (no per-AS entries: once 15 s and a Map size crash)', () => {
    // Per-AS entries crash past Map's size limit (and took 15 s before that): the test's timeout bounds it, no clock here.
    const f = parseDelegated(file('7018', '100000000'), 'rir-arin');
    expect(f.asnRanges).toEqual([{ first: 7018, last: 100007017, country: 'US' }]);
    expect(f.rejected).toEqual([]);
    expect(parseDelegated(file('0', '4294967296'), 'rir-arin').asnRanges).toEqual([{ first: 0, last: 4294967295, country: 'US' }]);
  });

  it('rejects a count that runs past AS 4294967295, naming the line', () => {
    const f = parseDelegated(file('4294967295', '2'), 'rir-arin');
    expect(f.asnRanges).toEqual([]);
    expect(f.rejected).toEqual([
      { feed: 'rir-arin', line: 2, message: 'asn count 2 from AS4294967295 runs past AS4294967295: "arin|US|asn|4294967295|2|19960328|assigned|x"' },
    ]);
  });

  it('any start and count: one range when it ends by AS 4294967295, else one diagnostic', () => {
    fc.assert(
      fc.property(fc.nat(0xffffffff), fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 9_999_999_999 })), (first, n) => {
        const f = parseDelegated(file(String(first), String(n)), 'rir-arin');
        if (first + n - 1 <= 0xffffffff) {
          expect(f.asnRanges).toEqual([{ first, last: first + n - 1, country: 'US' }]);
          expect(f.rejected).toEqual([]);
        } else {
          expect(f.asnRanges).toEqual([]);
          expect(f.rejected.map((d) => d.line)).toEqual([2]);
        }
      }),
    );
  });

  it('a file of asn records only is read, but as a feed it is feed_empty saying it holds no address record', () => {
    const asnOnly = enc('2|arin|20260101|2|19830101|20260101|-0500\narin|*|asn|*|2|summary\narin|US|asn|7018|1|19960328|assigned|x\narin|US|asn|7019|1|19960328|assigned|x\n');
    expect(parseDelegated(asnOnly, 'rir-arin').asnRanges).toHaveLength(2);
    for (const { id } of RIR_FEEDS) {
      expect(() => feedById(id).read(asnOnly)).toThrow(expect.objectContaining({
        code: 'feed_empty',
        message: `${id}: holds no ipv4 or ipv6 record (2 asn records): the build reads address blocks from a delegation file`,
      }));
    }
    // Header and summaries only: no record at all, said the same way (not as a header count "rejected").
    expect(() => feedById('rir-arin').read('2|arin|20260101|5|19830101|20260101|-0500\narin|*|ipv4|*|5|summary\n')).toThrow(
      expect.objectContaining({ code: 'feed_empty', message: 'rir-arin: holds no ipv4 or ipv6 record (0 asn records): the build reads address blocks from a delegation file' }),
    );
  });

  it('rejects a bad start or count', () => {
    for (const [first, count] of [['4294967296', '1'], ['-1', '1'], ['1', '0'], ['1', ''], ['1', '12345678901']]) {
      const f = parseDelegated(file(first!, count!), 'rir-arin');
      expect(f.asnRanges).toEqual([]);
      expect(f.rejected.map((d) => d.message.slice(0, 8))).toEqual([`bad asn `]);
    }
  });
});

describe('a delegation file of another registry', () => {
  it('is feed_format: ARIN\'s file at RIPE NCC\'s path read as RIPE NCC\'s allocations, and RIPE NCC\'s space lost its own', () => {
    const arin = fixtureBytes('rir-arin');
    expect(feedById('rir-arin').read(arin).source.entries).toBeGreaterThan(0);
    for (const { id } of RIR_FEEDS.filter((f) => f.id !== 'rir-arin')) {
      expect(() => feedById(id).read(arin), id).toThrow(
        expect.objectContaining({ code: 'feed_format', message: expect.stringMatching(/version line names registry "arin", not "(afrinic|apnic|lacnic|ripencc)"/) }),
      );
    }
    // Each fixture reads as its own feed.
    for (const { id } of RIR_FEEDS) expect(feedById(id).read(fixtureBytes(id)).source.entries, id).toBeGreaterThan(0);
  });
});

describe('RIR declarations', () => {
  it('the truncated RIPE NCC copy and the superseded LACNIC extended file are context only', () => {
    expect(['rir-afrinic', 'rir-apnic', 'rir-lacnic', 'rir-lacnic-extended', 'rir-ripencc-partial'].map((id) => feedById(id).use)).toEqual([
      'build', 'build', 'build', 'context', 'context',
    ]);
  });
});

describe('ARIN extended fixture (the format ARIN serves)', () => {
  const f = readFixture<RirFound>('rir-arin');
  it('reads version 2.3 with a millisecond serial; 768 addresses are a /23 and a /24; reserved records (empty country) skipped', () => {
    expect(show(f)).toEqual([
      '12.0.0.0/8 US 1983-08-01 allocated arin',
      '24.48.0.0/23 CA 1999-04-05 allocated arin',
      '24.48.2.0/24 CA 1999-04-05 allocated arin',
      '2001:1890::/29 US 2002-08-08 allocated arin',
      '2620:0:860::/46 US 2007-07-20 assigned arin',
    ]);
    expect(f.header).toMatchObject({ version: '2.3', registry: 'arin', serial: '1787429142000', records: 9, startDate: '1970-01-01', endDate: '2026-08-22' });
    expect(f.skipped).toBe(2);
    expect(perAsn(f)).toEqual({ 7018: 'US', 64496: null });
  });
  it('rejects the impossible date, and nothing else (the counts agree)', () => {
    expect(f.rejected).toEqual([
      { feed: 'rir-arin', line: 11, message: 'bad date "20141399": "arin|US|ipv4|192.0.2.0|256|20141399|assigned|0123456789abcdef0123456789abcdef"' },
    ]);
    expect(f.source.data_date).toBe('2026-08-22');
  });
});

describe('RIPE NCC extended fixture (the format RIPE NCC serves)', () => {
  const f = readFixture<RirFound>('rir-ripencc');
  it('reads version 2 with UUID ids; a 7-field available record is skipped', () => {
    expect(show(f)).toEqual([
      '2.0.0.0/12 FR 2010-07-12 allocated ripencc',
      '185.41.128.0/22 NL 2014-02-24 allocated ripencc',
      '2a01:4f8::/29 DE 2006-01-17 allocated ripencc',
      '2001:67c:2e8::/48 NL 2010-04-27 assigned ripencc',
    ]);
    expect(f.skipped).toBe(1);
    expect(f.counts).toEqual({ asn: 2, ipv4: 4, ipv6: 2 });
    expect(perAsn(f)).toEqual({ 1101: 'NL', 3333: 'EU' });
  });
  it('rejects the unknown status', () => {
    expect(f.rejected.map((d) => [d.line, d.message.slice(0, 26)])).toEqual([[8, 'unknown status "allocate":']]);
  });
  it('is a build source the repository does not carry', () => {
    const ripe = feedById('rir-ripencc');
    expect([ripe.use, ripe.redistributable, ripe.origin === 'feeds' && ripe.download.url]).toEqual([
      'build',
      false,
      'https://ftp.ripe.net/pub/stats/ripencc/delegated-ripencc-extended-latest',
    ]);
  });
});

describe('RIR delegated files, full size (vendored copies)', () => {
  const read = (id: string): Promise<RirFound> => readFullSize<RirFound>(id);
  it('AFRINIC extended: 6045 ipv4 / 9205 ipv6 / 4350 asn records', async () => {
    const f = await read('rir-afrinic');
    expect(f.counts).toEqual({ asn: 4350, ipv4: 6045, ipv6: 9205 });
    expect(f.skipped).toBe(5703 + 3990);
    expect(f.rejected).toEqual([]);
  });
  it('APNIC standard: 54666 ipv4 / 16933 ipv6 / 13701 asn records, 1.1.1.0/24 AU', async () => {
    const f = await read('rir-apnic');
    expect(f.counts).toEqual({ asn: 13701, ipv4: 54666, ipv6: 16933 });
    expect(f.skipped).toBe(0);
    expect(f.rejected).toEqual([]);
    const p = f.prefixes.find((x) => x.version === 4 && x.start === 0x01010100n)!;
    expect(p.length).toBe(24);
    expect(p.value).toEqual({ date: '2011-08-11', country: 'AU', registry: 'apnic', status: 'assigned' });
  });
  it('LACNIC standard: 20067 ipv4 / 13291 ipv6 / 14050 asn records; its header and asn summary overcount by 1520', async () => {
    const f = await read('rir-lacnic');
    expect(f.counts).toEqual({ asn: 14050, ipv4: 20067, ipv6: 13291 });
    expect(f.rejected).toEqual([
      { feed: 'rir-lacnic', line: 1, message: 'header says 48928 records, file has 47408' },
      { feed: 'rir-lacnic', line: 4, message: 'summary says 15570 asn records, file has 14050' },
    ]);
  });
});
