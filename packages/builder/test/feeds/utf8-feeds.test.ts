/**
 * Feeds whose bytes are not all UTF-8, in the publishers' own formats: a
 * name in Latin-1 (an AS org, a VPN brand, a city in JSON) is kept as read
 * (with U+FFFD) and the feed's result says where the bytes were not UTF-8;
 * a line whose address holds such a byte is rejected like any bad line,
 * and the rest of the feed is read. A file in another encoding that reads
 * no entry fails with an error that names the encoding. Then the build's
 * report (load.ts) carries it per feed.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fromFolder, type Acquire } from '../../src/acquire.js';
import { loadInputs } from '../../src/build/load.js';
import { FeedError } from '../../src/errors.js';
import { feedById } from '../../src/feeds/registry.js';
import type { RirFound } from '../../src/feeds/routing/rir.js';
import type { AsnRangesFound } from '../../src/feeds/routing/ip-location-db-asn.js';
import type { AnyFound } from '../../src/feeds/declare.js';
import type { AsnsFound, FeedResult, PrefixesFound } from '../../src/feeds/types.js';
import { FIXTURES, fixtureBytes, readFixture } from './helpers.js';

/** Text as ISO-8859-1 bytes (each character below U+0100 as its one byte): how a hand-saved or legacy file holds é. */
const latin1 = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));
/** The byte offset of `needle`'s first character in `text` written as Latin-1 (one byte a character). */
const offsetOf = (text: string, needle: string): number => text.indexOf(needle);
const read = <F extends AnyFound>(id: string, bytes: Uint8Array): FeedResult<F> => feedById(id).read(bytes) as unknown as FeedResult<F>;

describe('a name that is not UTF-8 is kept and reported', () => {
  it('ip-location-db ASN CSV: an org name in ISO-8859-1', () => {
    const text = [
      '1.1.1.0,1.1.1.255,13335,"Cloudflare, Inc."',
      '2.0.0.0,2.15.255.255,3215,"Orange Soci\xe9t\xe9 Anonyme"',
      '3.5.140.0,3.5.143.255,16509,"Amazon.com, Inc."',
      '',
    ].join('\n');
    const r = read<AsnRangesFound>('ip-location-db-asn-ipv4', latin1(text));
    expect(r.ranges.map((x) => x.org)).toEqual(['Cloudflare, Inc.', 'Orange Soci\uFFFDt\uFFFD Anonyme', 'Amazon.com, Inc.']);
    expect(r.rejected).toEqual([]);
    expect(r.invalidUtf8).toEqual({ count: 2, line: 2, offset: offsetOf(text, '\xe9') });
  });

  it('X4BNet VPN ASN list: a brand saved by hand in ISO-8859-1', () => {
    const text = 'AS9009 # M247, GB (NordVPN)\nAS209854 # Surfshark\nAS64500 # Caf\xe9 VPN\nAS212238 # Datacamp\n';
    const r = read<AsnsFound<{ brand: string | null }>>('x4bnet-vpn-asn', latin1(text));
    expect([...r.asns.keys()]).toEqual([9009, 209854, 64500, 212238]);
    expect(r.asns.get(64500)).toEqual({ brand: 'Caf\uFFFD VPN' });
    expect(r.invalidUtf8).toEqual({ count: 1, line: 3, offset: offsetOf(text, '\xe9') });
  });

  it('ProtonVPN logicals JSON: a city in ISO-8859-1 inside a string', () => {
    const doc = {
      LogicalServers: [
        { Name: 'CH#1', City: 'Z\xfcrich', Servers: [{ EntryIP: '149.88.27.200', ExitIP: '149.88.27.201' }] },
        { Name: 'JP#1', City: 'Tokyo', Servers: [{ EntryIP: '103.125.235.18', ExitIP: '103.125.235.21' }] },
      ],
    };
    const text = JSON.stringify(doc, null, 2);
    const r = read<PrefixesFound<unknown>>('protonvpn', latin1(text));
    expect(r.prefixes).toHaveLength(2);
    expect(r.invalidUtf8).toEqual({ count: 1, line: text.slice(0, text.indexOf('\xfc')).split('\n').length, offset: offsetOf(text, '\xfc') });
  });
});

describe('an address that is not UTF-8 is a rejected line; the rest is read', () => {
  it('az0 VPN list: IP # brand', () => {
    const text = '# 2025-08-31T13:25:28Z\n185.1.1.1 # nordvpn\n185.1.1.\xb2 # windscribe\n185.1.1.3 # nordvpn\n';
    const r = read<PrefixesFound<unknown>>('az0-vpn', latin1(text));
    expect(r.prefixes).toHaveLength(2);
    expect(r.rejected.map((d) => d.line)).toEqual([3]);
    expect(r.rejected[0]!.message).toContain('\uFFFD');
    expect(r.invalidUtf8).toEqual({ count: 1, line: 3, offset: offsetOf(text, '\xb2') });
  });

  it('RIR delegated statistics: a record with a damaged country code', () => {
    const text = [
      '2|arin|20260822|3|19700101|20260822|-0400',
      'arin|US|ipv4|12.0.0.0|16777216|19830801|allocated',
      'arin|C\xc1|ipv4|24.48.0.0|256|19990405|allocated',
      'arin|US|ipv6|2001:1890::|29|20020808|allocated',
      '',
    ].join('\n');
    const r = read<RirFound>('rir-arin', latin1(text));
    expect(r.prefixes.map((p) => p.length)).toEqual([8, 29]);
    expect(r.rejected).toEqual([{ feed: 'rir-arin', line: 3, message: 'bad country code "C\uFFFD": "arin|C\uFFFD|ipv4|24.48.0.0|256|19990405|allocated"' }]);
    expect(r.invalidUtf8).toEqual({ count: 1, line: 3, offset: offsetOf(text, '\xc1') });
  });

  it('RouteViews pfx2as (gzip): the offset is in the unpacked bytes', () => {
    const text = '1.1.1.0\t24\t13335\n1.2.4.0\t2\xff\t24151\n3.5.140.0\t22\t16509\n';
    const r = read<PrefixesFound<unknown>>('routeviews-pfx2as', gzipSync(latin1(text)));
    expect(r.prefixes).toHaveLength(2);
    expect(r.rejected.map((d) => d.line)).toEqual([2]);
    expect(r.invalidUtf8).toEqual({ count: 1, line: 2, offset: offsetOf(text, '\xff') });
  });

  it('a UTF-8 file carries no report', () => {
    const r = read<PrefixesFound<unknown>>('az0-vpn', new TextEncoder().encode('# 2025-08-31T13:25:28Z\n185.1.1.1 # Caf\u00e9 VPN \uFFFD\n'));
    expect(r.prefixes).toHaveLength(1);
    expect('invalidUtf8' in r).toBe(false);
  });
});

describe('a file in another encoding that reads no entry', () => {
  it('fails with the error it always had, plus where the bytes are not UTF-8 (a list saved as UTF-16)', () => {
    const utf16le = new Uint8Array([0xff, 0xfe, ...[...'104.16.0.0/13\n'].flatMap((c) => [c.charCodeAt(0), 0])]);
    let error: unknown;
    try {
      read('cloudflare-ipv4', utf16le);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FeedError);
    expect(error).toMatchObject({ code: 'feed_format', feed: 'cloudflare-ipv4' });
    expect((error as FeedError).message).toMatch(/^cloudflare-ipv4: no line is an address or CIDR \(line 1: .*\); the file is not all UTF-8: 2 invalid byte sequences read as U\+FFFD, the first at line 1 \(byte 0\)$/);
    expect((error as FeedError).cause).toBeInstanceOf(FeedError);
  });

  it('an error of a file that is UTF-8 is unchanged', () => {
    expect(() => read('cloudflare-ipv4', new TextEncoder().encode('bad\n'))).toThrow(/^cloudflare-ipv4: no line is an address or CIDR \(line 1: [^;]*\)$/);
  });
});

describe('the build report', () => {
  it('names the feed whose copy was not all UTF-8, the count and the first place; the other feeds carry nothing', async () => {
    const folder = fromFolder(FIXTURES);
    const acquire: Acquire = async (feed) => {
      const got = await folder(feed);
      if (got === null || feed.id !== 'x4bnet-vpn-asn') return got;
      return { ...got, bytes: new Uint8Array([...got.bytes, ...latin1('AS64500 # Caf\xe9 VPN\n')]) };
    };
    const { reports } = await loadInputs({ acquire, tables: FIXTURES, buildDate: null, attributionUrl: 'u' });
    const lines = fixtureBytes('x4bnet-vpn-asn');
    const x4b = reports.find((r) => r.id === 'x4bnet-vpn-asn')!;
    expect(x4b.invalidUtf8).toEqual({ count: 1, line: lines.filter((b) => b === 0x0a).length + 1, offset: lines.length + 'AS64500 # Caf'.length });
    expect(x4b.source!.entries).toBe(readFixture('x4bnet-vpn-asn').source.entries + 1);
    expect(reports.filter((r) => r.invalidUtf8 !== undefined).map((r) => r.id)).toEqual(['x4bnet-vpn-asn']);
  });
});
