/**
 * The shared readers (src/feeds/read/): CSV, numbers, dates, gzip headers,
 * range splitting, and the links a locator finds in a page.
 */
import { gzipSync } from 'fflate';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCidr, pushRangePrefixes, rangeToPrefixes } from '../../src/feeds/read/cidr.js';
import { parseCidrList } from '../../src/feeds/read/lines.js';
import { parseIpinfoBogons } from '../../src/feeds/bogons/bogon-lists.js';
import { parsePfx2as } from '../../src/feeds/routing/pfx2as.js';
import { gzipHeader, unpackFeed } from '../../src/feeds/read/compression.js';
import { forEachCsvRecord, unquoteCsvField } from '../../src/feeds/read/csv.js';
import { compactDate, isoFromCtimeUtc, isoFromEpochMillis, isoFromEpochSeconds, isoFromRfc5322, isoFromZonelessUtc, isoUtcTimestamp, lastUpdatedComment, versionDate } from '../../src/feeds/read/dates.js';
import { htmlLinks, newestInListing, newestLink, pageUrls } from '../../src/feeds/read/links.js';
import { parseAsText, parseAsn, parseDecimal } from '../../src/feeds/read/numbers.js';
import { feedById } from '../../src/feeds/registry.js';
import type { Prefix, PrefixesFound } from '../../src/feeds/types.js';
import { enc } from './helpers.js';

function csv(text: string): { records: [number, string[]][]; errors: [number, string][] } {
  const records: [number, string[]][] = [];
  const errors: [number, string][] = [];
  forEachCsvRecord(
    text,
    (f, line) => records.push([line, f]),
    (line, message) => errors.push([line, message]),
  );
  return { records, errors };
}

describe('CSV reader', () => {
  it('reads quoted fields with commas, quotes and line breaks', () => {
    expect(csv('a,"b, c","d ""e"""\r\n"multi\r\nline",x\n\n,\nlast')).toEqual({
      records: [
        [1, ['a', 'b, c', 'd "e"']],
        [2, ['multi\r\nline', 'x']],
        [5, ['', '']],
        [6, ['last']],
      ],
      errors: [],
    });
  });
  it('reports malformed records and resumes at the next line', () => {
    expect(csv('a,"b"c,d\ne,f"g\n"open,h\nok,1')).toEqual({
      records: [[4, ['ok', '1']]],
      errors: [
        [1, 'text after a closing quote'],
        [2, 'quote inside an unquoted field'],
        [3, 'unterminated quoted field'],
      ],
    });
  });
  it('parses AS<n>', () => {
    expect(parseAsText('AS13335')).toBe(13335);
    expect(parseAsText('AS4294967295')).toBe(4294967295);
    for (const bad of ['13335', 'AS', 'as1', 'AS01', 'AS4294967296', 'AS 1']) expect(parseAsText(bad)).toBe(-1);
  });
});

describe('fields, numbers, dates', () => {
  it('unquotes CSV fields', () => {
    expect(unquoteCsvField('Google LLC')).toBe('Google LLC');
    expect(unquoteCsvField('"Cloudflare, Inc."')).toBe('Cloudflare, Inc.');
    expect(unquoteCsvField('"LLC ""SPUTNIK"""')).toBe('LLC "SPUTNIK"');
    expect(unquoteCsvField('""')).toBe('');
    for (const bad of ['"open', '"a"b"', 'a"b', '"']) expect(unquoteCsvField(bad)).toBeNull();
  });

  it('parses AS numbers, strictly (AS<n>) and loosely (AS<n>, as<n>, <n>)', () => {
    expect(parseAsText('AS13335')).toBe(13335);
    expect(parseAsText('AS4294967295')).toBe(4294967295);
    for (const bad of ['13335', 'AS', 'as1', 'AS01', 'AS4294967296', 'AS 1']) expect(parseAsText(bad)).toBe(-1);
    expect([parseAsn('AS9009'), parseAsn('as9009'), parseAsn(' 9009 ')]).toEqual([9009, 9009, 9009]);
    for (const bad of ['AS0', '0', 'AS4294967296', 'ASX1', '']) expect(parseAsn(bad)).toBeNull();
  });

  it('reads plain decimals only: what Number() takes beyond them (hex, exponents, spaces, signs) is no coordinate', () => {
    expect(['-33.8688', '151.2093', '45', '-0', '0.5'].map(parseDecimal)).toEqual([-33.8688, 151.2093, 45, -0, 0.5]);
    for (const bad of ['0x1F', '1e1', ' 12', '12 ', '+5', '.5', '5.', 'Infinity', 'NaN', '', '-', '1,5', '0b1']) expect(parseDecimal(bad), bad).toBeNull();
    // Any number written with toFixed reads back as Number() reads it; any text it accepts is a plain decimal.
    fc.assert(fc.property(fc.double({ min: -180, max: 180, noNaN: true }), fc.integer({ min: 0, max: 8 }), (x, digits) => {
      const text = x.toFixed(digits);
      expect(parseDecimal(text)).toBe(Number(text));
    }));
    fc.assert(fc.property(fc.string({ maxLength: 12 }), (text) => {
      const v = parseDecimal(text);
      if (v !== null) expect([/^-?\d+(\.\d+)?$/.test(text), v]).toEqual([true, Number(text)]);
    }));
  });

  it('reads dates', () => {
    expect(compactDate('20110811')).toBe('2011-08-11');
    for (const bad of ['00000000', '2011081', '20230231', '2011O811', '20111301', '09990101']) expect(compactDate(bad)).toBeNull();
    expect(versionDate('2.3.2026061719')).toBe('2026-06-17');
    expect(versionDate('1.0.0')).toBeNull();
    expect(isoFromEpochMillis('1787299542583')).toBe('2026-08-21T08:05:42Z');
  });

  it('Unix times: a date in the snapshot form up to 9999-12-31T23:59:59Z, else null, never a throw', () => {
    expect(isoFromEpochSeconds(253_402_300_799)).toBe('9999-12-31T23:59:59Z');
    for (const past of [253_402_300_800, 8.64e12 + 1, 1e15, Number.MAX_SAFE_INTEGER]) expect(isoFromEpochSeconds(past), String(past)).toBeNull();
    fc.assert(
      fc.property(fc.oneof(fc.maxSafeNat(), fc.nat({ max: 300_000_000_000 })), (n) => {
        const seconds = isoFromEpochSeconds(n);
        const millis = isoFromEpochMillis(n);
        for (const iso of [seconds, millis]) if (iso !== null) expect(iso).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
        expect(seconds === null).toBe(n > 253_402_300_799);
        expect(millis === null).toBe(Math.floor(n / 1000) > 253_402_300_799);
      }),
    );
  });

  it('unpacks every member of a multi-member gzip file, and refuses a damaged CRC or length', () => {
    const one = gzipSync(enc('a\nb\n'));
    const two = gzipSync(enc('c\n'));
    const both = new Uint8Array([...one, ...two]);
    expect(new TextDecoder().decode(unpackFeed('f', both))).toBe('a\nb\nc\n');
    for (const at of [one.length - 8, one.length - 1]) {
      const bad = one.slice();
      bad[at]! ^= 0x01; // the CRC-32, then the length (ISIZE)
      expect(() => unpackFeed('f', bad)).toThrow(expect.objectContaining({ code: 'feed_compression' }) as Error);
    }
    expect(() => unpackFeed('f', one.subarray(0, one.length - 4))).toThrow(expect.objectContaining({ code: 'feed_compression' }) as Error);
  });

  it('reads gzip headers', () => {
    expect(gzipHeader(gzipSync(enc('x'), { filename: 'a.txt', mtime: new Date('2024-04-08T05:51:12Z') }))).toEqual({
      name: 'a.txt',
      mtime: '2024-04-08T05:51:12Z',
    });
    expect(gzipHeader(gzipSync(enc('x'), { mtime: 0 }))).toEqual({ name: null, mtime: null });
    expect(gzipHeader(enc('plain text'))).toBeNull();
  });
});

describe('pushRangePrefixes', () => {
  const split = (version: 4 | 6, first: bigint, last: bigint): Prefix<number>[] => {
    const out: Prefix<number>[] = [];
    pushRangePrefixes(out, version, first, last, 1);
    return out;
  };
  it('splits edge ranges', () => {
    const all4 = (1n << 32n) - 1n;
    const all6 = (1n << 128n) - 1n;
    expect(split(4, 0n, all4)).toEqual([{ version: 4, start: 0n, length: 0, value: 1 }]);
    expect(split(6, 0n, all6)).toEqual([{ version: 6, start: 0n, length: 0, value: 1 }]);
    expect(split(4, all4, all4)).toEqual([{ version: 4, start: all4, length: 32, value: 1 }]);
    expect(split(4, 0x80000000n, all4)).toEqual([{ version: 4, start: 0x80000000n, length: 1, value: 1 }]);
    expect(split(4, 1n, all4 - 1n)).toEqual(rangeToPrefixes(4, 1n, all4 - 1n, 1));
    expect(split(6, 1n, all6 - 1n)).toEqual(rangeToPrefixes(6, 1n, all6 - 1n, 1));
  });
  it('matches rangeToPrefixes on random ranges', () => {
    const range = (bits: number) =>
      fc
        .tuple(fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n }), fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n }))
        .map(([a, b]): [bigint, bigint] => (a <= b ? [a, b] : [b, a]));
    fc.assert(
      fc.property(range(32), ([a, b]) => {
        expect(split(4, a, b)).toEqual(rangeToPrefixes(4, a, b, 1));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(range(128), ([a, b]) => {
        expect(split(6, a, b)).toEqual(rangeToPrefixes(6, a, b, 1));
      }),
      { numRuns: 300 },
    );
    // Ranges near aligned boundaries (few bits differ) exercise the small-block tails.
    const near = fc.tuple(fc.bigInt({ min: 0n, max: (1n << 120n) - 1n }), fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 20 }));
    fc.assert(
      fc.property(near, ([base, lo, hi]) => {
        const a = (base << 8n) + BigInt(lo);
        const b = a + (1n << BigInt(hi)) - 1n + BigInt(lo);
        expect(split(6, a, b)).toEqual(rangeToPrefixes(6, a, b, 1));
      }),
      { numRuns: 300 },
    );
  });
});

describe('links of a page and the newest-link locator', () => {
  const page = (html: string, url = 'https://example.test/download/details.aspx?id=1') => ({ body: enc(html), contentType: 'text/html', url });

  it('resolves every href against the page URL, skipping anchors and scripts', () => {
    expect(htmlLinks('<a href="/a.json">a</a> <a href=\'b.json\'>b</a> <a href=c.json>c</a> <a href="#top"> <a href="javascript:x()">', 'https://h.test/dir/page')).toEqual([
      'https://h.test/a.json',
      'https://h.test/dir/b.json',
      'https://h.test/dir/c.json',
    ]);
  });

  it('picks the link whose path matches, with the greatest date', () => {
    const locate = newestLink(/ServiceTags_Public_(\d{8})\.json$/, 'the service tags');
    const html =
      '<a href="https://download.example.test/x/ServiceTags_Public_20251027.json">old</a>' +
      '<a href="https://download.example.test/y/ServiceTags_Public_20251103.json">new</a>' +
      '<a href="https://download.example.test/y/ServiceTags_AzureGovernment_20251110.json">other cloud</a>';
    expect(locate(page(html))).toBe('https://download.example.test/y/ServiceTags_Public_20251103.json');
  });

  it('throws, naming what it looked for, when the page links no such file', () => {
    const locate = newestLink(/ServiceTags_Public_(\d{8})\.json$/, 'the service tags');
    expect(() => locate(page('<html><body>Please enable JavaScript</body></html>'))).toThrow(/no link to the service tags/);
  });
});

describe('publisher dates', () => {
  it('ctime in UTC (DShield), day space-padded; impossible dates are null', () => {
    expect(isoFromCtimeUtc('Tue Jan  2 04:21:21 2024 UTC')).toBe('2024-01-02T04:21:21Z');
    expect(isoFromCtimeUtc('Wed Jan 17 22:00:15 2018')).toBe('2018-01-17T22:00:15Z');
    expect(isoFromCtimeUtc('Fri Feb 30 10:00:00 2026 UTC')).toBeNull();
    expect(isoFromCtimeUtc('2026-02-10 10:00:00')).toBeNull();
  });

  it('a zone-less time with a space and " UTC" (ThreatFox) reads as with a T', () => {
    expect(isoFromZonelessUtc('2026-08-22 16:18:29 UTC')).toBe('2026-08-22T16:18:29Z');
    expect(isoFromZonelessUtc('2026-08-22 16:18:29 CEST')).toBeNull();
  });

  it('the right shape with impossible values is no date (rpki buildtime, "# Last updated", az0 header, IPsum)', () => {
    expect(isoUtcTimestamp('2026-08-22T16:25:09.973Z')).toBe('2026-08-22T16:25:09.973Z');
    expect(isoUtcTimestamp('2024-02-29T23:59:59Z')).toBe('2024-02-29T23:59:59Z');
    for (const bad of ['2099-13-45T99:99:99Z', '2026-99-99T10:00:00Z', '2025-13-31T13:25:28Z', '2025-02-29T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T10:60:00Z', '0050-01-01T00:00:00Z', '2026-01-01T10:00:00', 42]) {
      expect(isoUtcTimestamp(bad), String(bad)).toBeNull();
    }
    expect(lastUpdatedComment([{ text: 'Last updated: 2099-13-45T99:99:99Z' }])).toBeNull();
    expect(lastUpdatedComment([{ text: 'Last updated: 2026-99-99T10:00:00.000Z' }, { text: 'Last updated: 2026-08-22T16:18:35.025Z' }])).toBe('2026-08-22T16:18:35.025Z');
    expect(isoFromRfc5322('Sat, 22 Aug 2026 03:00:29 +0200')).toBe('2026-08-22T01:00:29Z');
    expect(isoFromRfc5322('Tue, 31 Feb 2026 03:00:29 +0200')).toBeNull(); // once 2026-03-03
    expect(isoFromRfc5322('Sat, 22 Aug 2026 03:00:29 +0299')).toBeNull();
    expect(isoFromZonelessUtc('0099-01-01T00:00:00')).toBeNull(); // Date.UTC reads year 99 as 1999
  });

  it('any ISO-shaped text: a date exactly when its fields are a real UTC time, and then the same instant', () => {
    const two = (n: number): string => String(n).padStart(2, '0');
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 9999 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }), (y, mo, d, h, mi, sec) => {
        const text = `${y}-${two(mo)}-${two(d)}T${two(h)}:${two(mi)}:${two(sec)}Z`;
        const real = mo >= 1 && mo <= 12 && d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate() && h < 24 && mi < 60 && sec < 60;
        expect(isoUtcTimestamp(text)).toBe(real ? text : null);
        expect(lastUpdatedComment([{ text: `Last updated: ${text}` }])).toBe(real ? text : null);
        expect(isoFromZonelessUtc(text.slice(0, -1))).toBe(real ? text : null);
        if (real) expect(new Date(Date.parse(text)).toISOString()).toBe(text.replace('Z', '.000Z'));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('URLs written in a page and the directory-listing locator', () => {
  const page = (html: string, url: string) => ({ body: enc(html), contentType: 'text/html', url });

  it('finds absolute URLs in scripts and JSON, with \\/ and \\u002F escapes undone, besides hrefs', () => {
    const html = '<a href="/x.json">x</a><script>var a={"url":"https:\\u002F\\u002Fd.test\\u002Fa\\u002FF_1.json"}; b="http:\\/\\/d.test\\/b.json";</script>';
    expect(pageUrls(html, 'https://h.test/p')).toEqual(['https://h.test/x.json', 'https://d.test/a/F_1.json', 'http://d.test/b.json']);
  });

  const listing = (names: string[]): string =>
    '<html><body><h1>Index of /d</h1><table><tr><th><a href="?C=N;O=D">Name</a></th></tr>' +
    '<tr><td><a href="/datasets/">Parent Directory</a></td></tr>' +
    names.map((n) => `<tr><td><a href="${n}">${n}</a></td></tr>`).join('') +
    '</table><a href="https://other.test/2099/">elsewhere</a></body></html>';
  const locate = newestInListing(/^f-(\d{8})\.gz$/, 'f-<date>.gz');

  it('takes the newest matching file of the listing', () => {
    expect(locate(page(listing(['README.txt', 'f-20260801.gz', 'f-20260821.gz', 'f-20260811.gz', 'f-20260830.gz.md5']), 'https://h.test/d/2026/08/'))).toBe('https://h.test/d/2026/08/f-20260821.gz');
  });

  it('else descends into the greatest number-named sub-folder (never the parent, a sort link or another site)', () => {
    expect(locate(page(listing(['2005/', '2026/', '2010/', 'pfx2as-creation.log']), 'https://h.test/d/'))).toEqual({ page: 'https://h.test/d/2026/' });
    expect(locate(page(listing(['01/', '12/', '09/']), 'https://h.test/d/2026'))).toEqual({ page: 'https://h.test/d/2026/12/' });
  });

  it('throws, naming what it looked for, when a listing has neither', () => {
    expect(() => locate(page(listing(['README.txt']), 'https://h.test/d/'))).toThrow(/no link to f-<date>.gz, and no numbered sub-folder/);
  });
});

describe('prefixes that would tag a whole address family', () => {
  it('parseCidr: an IPv4-mapped prefix is IPv4 from /104 on; the mapped block itself (/96) is refused', () => {
    expect(parseCidr('::ffff:1.2.3.0/120')).toMatchObject({ ok: true, version: 4, length: 24 });
    expect(parseCidr('::ffff:0:0/104')).toMatchObject({ ok: true, version: 4, length: 8 });
    for (const text of ['::ffff:0:0/96', '::ffff:0.0.0.0/96', '::ffff:0:0/100']) expect(parseCidr(text)).toMatchObject({ ok: false, message: expect.stringMatching(/mapped IPv6 block/) });
  });

  it('a list refuses a default route line, and ipinfo\'s IPv4-mapped row does not make IPv4 a bogon', () => {
    const list = parseCidrList('f', '0.0.0.0/0\n::/0\n1.2.3.0/24\n', () => true);
    expect(list.prefixes.map((p) => `${p.start}/${p.length}`)).toEqual([`${0x01020300n}/24`]);
    expect(list.rejected.map((r) => r.line)).toEqual([1, 2]);
    const bogons = parseIpinfoBogons('0.0.0.0/8 # "This" network\n::ffff:0:0/96 # IPv4-mapped\n', 'ipinfo-bogons');
    expect(bogons.prefixes.map((p) => [p.version, p.length])).toEqual([[4, 8]]);
    expect(bogons.rejected).toHaveLength(1);
  });

  it('every reader of a labelling list refuses a default route, not only the plain lists (a /0 in a geofeed, a JSON list, a crawler file, DROP or DShield labelled every address)', () => {
    const cases: [string, string][] = [
      ['digitalocean-geofeed', '0.0.0.0/0,US,US-NY,New York,\n::/0,US,,,\n159.203.0.0/16,US,US-NJ,North Bergen,07094\n'],
      ['linode-geofeed', '::/0,US,,,\n0.0.0.0/0,US,,,\n45.33.0.0/17,US,US-CA,Fremont,\n'],
      ['fastly', JSON.stringify({ addresses: ['0.0.0.0/0', '151.101.0.0/16'], ipv6_addresses: ['::/0'] })],
      ['aws', JSON.stringify({ prefixes: [{ ip_prefix: '0.0.0.0/0' }, { ip_prefix: '3.5.0.0/16' }], ipv6_prefixes: [{ ipv6_prefix: '::/0' }] })],
      ['crawler-googlebot', JSON.stringify({ prefixes: [{ ipv4Prefix: '0.0.0.0/0' }, { ipv6Prefix: '::/0' }, { ipv4Prefix: '66.249.64.0/27' }] })],
      ['crawler-ipverse', JSON.stringify({ services: { GPTBot: { ip_list_authoritative: true, ipv4: ['0.0.0.0/0', '20.15.240.64/28'], ipv6: ['::/0'] } } })],
      ['spamhaus-drop-v4', '{"cidr":"0.0.0.0/0","sblid":"SBL1"}\n{"cidr":"::/0"}\n{"cidr":"1.10.16.0/20","sblid":"SBL2"}\n{"type":"metadata","timestamp":1787415242,"records":3}\n'],
      ['abuse-dshield', '0.0.0.0/0\n0.0.0.0\t255.255.255.255\t0\t10\tX\tUS\ta@b\n77.72.82.0\t77.72.82.255\t24\t1410\tNETUP-AS\tRU\tabuse@example.net\n'],
    ];
    for (const [id, text] of cases) {
      const r = feedById(id).read(text) as PrefixesFound<unknown>;
      expect(r.prefixes.map((p) => p.length), id).not.toContain(0);
      expect(r.prefixes, id).toHaveLength(1);
      expect(r.rejected.map((d) => d.message), id).toEqual([
        ...Array.from({ length: 2 }, () => expect.stringMatching(/^(?:[^:]+: )?a default route \(\/0\) is no list entry/)),
      ]);
    }
  });

  it('pfx2as refuses a default route', () => {
    const r = parsePfx2as(enc('0.0.0.0\t0\t64500\n8.8.8.0\t24\t15169\n'), 'routeviews-pfx2as');
    expect(r.prefixes).toHaveLength(1);
    expect(r.rejected).toEqual([{ feed: 'routeviews-pfx2as', line: 1, message: expect.stringMatching(/default route/) }]);
  });
});

describe('prefixes with host bits set', () => {
  // Each labelling list's shape with one good line and the line under test: a prefix with host
  // bits set was widened to the network around it by these (a cut `2400:cb00::/3` labelled all
  // of 2000::/3); it is now a rejected line, as in the lists that refused it already.
  const GOOD = '203.0.113.0/24';
  const shapes: [string, (cidr: string) => string][] = [
    ['cloudflare-ipv4', (c) => `${GOOD}\n${c}\n`],
    ['x4bnet-datacenter-ipv4', (c) => `${GOOD}\n${c}\n`],
    ['x4bnet-vpn-ipv4', (c) => `${GOOD}\n${c}\n`],
    ['fastly', (c) => JSON.stringify({ addresses: [GOOD, c], ipv6_addresses: [] })],
    ['aws', (c) => JSON.stringify({ prefixes: [{ ip_prefix: GOOD }, { ip_prefix: c }], ipv6_prefixes: [] })],
    ['google-cloud', (c) => JSON.stringify({ syncToken: '1787415242000', prefixes: [{ ipv4Prefix: GOOD }, { ipv4Prefix: c }] })],
    ['digitalocean-geofeed', (c) => `${GOOD},US,US-NJ,North Bergen,07094\n${c},US,,,\n`],
    ['linode-geofeed', (c) => `${GOOD},US,US-CA,Fremont,\n${c},US,,,\n`],
  ];
  const hostBitsPrefix = fc
    .tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 1, max: 31 }))
    .filter(([a, len]) => (a & ((1 << (32 - len)) - 1)) !== 0)
    .map(([a, len]) => `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}/${len}`);

  it('property: every labelling list rejects the line, naming it, and keeps only the good one', () => {
    fc.assert(
      fc.property(hostBitsPrefix, fc.constantFrom(...shapes), (cidr, [id, shape]) => {
        const r = feedById(id).read(shape(cidr)) as PrefixesFound<unknown>;
        expect(r.prefixes.map((p) => `${p.start}/${p.length}`), id).toEqual([`${0xcb007100n}/24`]);
        expect(r.rejected.map((d) => d.message), id).toEqual([expect.stringContaining(`host bits set: "${cidr}"`)]);
      }),
      { numRuns: 400 },
    );
  });

  it("the same prefix with its host bits clear is read (the lists' rule is about host bits, not the prefix)", () => {
    for (const [id, shape] of shapes) {
      const r = feedById(id).read(shape('198.51.100.0/23')) as PrefixesFound<unknown>;
      expect(r.rejected, id).toEqual([]);
      expect(r.prefixes.map((p) => p.length).sort(), id).toEqual([23, 24]);
    }
  });

  it('a cut IPv6 line (2400:cb00::/3 from /32) is not widened to 2000::/3', () => {
    const r = feedById('cloudflare-ipv6').read('2606:4700::/32\n2400:cb00::/3\n') as PrefixesFound<unknown>;
    expect(r.prefixes.map((p) => p.length)).toEqual([32]);
    expect(r.rejected).toEqual([{ feed: 'cloudflare-ipv6', line: 2, message: 'host bits set: "2400:cb00::/3"' }]);
  });
});

describe('parseCidrList with addressesOnly: the reason of a rejected line', () => {
  it('an HTML line (slashes, no prefix) is "not an address", not "got a prefix"', () => {
    const r = parseCidrList('t', '1.2.3.4\n<html><body>Not found</body></html>\n', () => true, { addressesOnly: true });
    expect(r.rejected).toEqual([{ feed: 't', line: 2, message: 'not an address: "<html><body>Not found<"' }]);
  });

  it('for any line with a slash: "got a prefix" exactly when the line reads as a CIDR, else the reader\'s own reason', () => {
    const slashy = fc
      .tuple(fc.stringMatching(/^[0-9a-fA-F:.<>a-z ]{0,16}$/), fc.stringMatching(/^[0-9a-z<>/ ]{0,6}$/))
      .map(([a, b]) => `${a}/${b}`.trim())
      .filter((t) => t !== '' && !t.startsWith('#') && !t.includes('#'));
    fc.assert(
      fc.property(slashy, (text) => {
        const r = parseCidrList('t', `1.2.3.4\n${text}\n`, () => true, { addressesOnly: true });
        const c = parseCidr(text);
        expect(r.rejected).toHaveLength(1);
        const message = r.rejected[0]!.message;
        if (c.ok && c.length > 0) expect(message).toBe(`expected a single address, got a prefix: ${JSON.stringify(text.slice(0, 60))}`);
        else if (!c.ok) expect(message).toBe(c.message);
      }),
    );
  });
});
