import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bigIntToText } from '@ipintel/core/writer';
import { describe, expect, it } from 'vitest';
import {
  RESOLVER_FEEDS,
  decodeStampAddress,
  parseDnscryptResolvers,
  parseDohIpv4,
  parseDohIpv6,
  parsePublicDnsValidated,
  stripDnsPort,
} from '../../src/feeds/resolvers.js';
import type { ResolverValue } from '../../src/feeds/resolvers.js';
import { FeedError } from '../../src/feeds/types.js';
import type { Prefix, PrefixFeed } from '../../src/feeds/types.js';

const FIXTURES = fileURLToPath(new URL('../../../../fixtures/feeds', import.meta.url));
const FEEDS = process.env.IPINTEL_FEEDS ?? fileURLToPath(new URL('../../../../../shared/feeds', import.meta.url));
const HAVE_FEEDS = existsSync(FEEDS);
if (!HAVE_FEEDS) console.log(`resolvers: full-size tests skipped: no feeds folder at ${FEEDS} (set IPINTEL_FEEDS)`);

const fixture = (p: string): Uint8Array => readFileSync(join(FIXTURES, p));
const real = (p: string): Uint8Array => readFileSync(join(FEEDS, p));
const cidr = (p: Prefix<unknown>): string => `${bigIntToText(p.version, p.start)}/${p.length}`;
const entries = (f: PrefixFeed<ResolverValue>): string[] => f.prefixes.map((p) => `${cidr(p)} ${p.value.operator}`);

describe('DNS stamps', () => {
  it('decodes DNSCrypt IPv4:port, DoH [IPv6], and empty DoH addresses', () => {
    expect(
      decodeStampAddress('sdns://AQMAAAAAAAAADDkuOS45Ljk6ODQ0MyBnyEe4yHWM0SAkVUO-dWdG3zTfHYTAC4xHA2jfgh2GPhkyLmRuc2NyeXB0LWNlcnQucXVhZDkubmV0'),
    ).toEqual({ kind: 'address', ip: '9.9.9.9', port: 8443 });
    expect(
      decodeStampAddress(
        'sdns://AgUAAAAAAAAAFlsyMDAxOjQ4NjA6NDg2MDo6ODg4OF0galBisNF41VbxY7E7Gw8ZQ10CWIKRzHVYnf7m6xHI1cMaWzIwMDE6NDg2MDo0ODYwOjo4ODg4XTo0NDMKL2Rucy1xdWVyeQ',
      ),
    ).toEqual({ kind: 'address', ip: '2001:4860:4860::8888', port: null });
    expect(decodeStampAddress('sdns://AgcAAAAAAAAAACAy7bsRzCWPvjPCzSShSScPC-b0RvVyZLO9HCW5hTMnLg5kbnMuZG5zaG9tZS5kZQovZG5zLXF1ZXJ5').kind).toBe('none');
    expect(decodeStampAddress('sdns://BQcAAAAAAAAAB2V4YW1wbGU').kind).toBe('none'); // ODoH target
    expect(decodeStampAddress('sdns://AgcAAAAAAAAADTIx')).toEqual({ kind: 'invalid', reason: 'stamp truncated inside the address' });
    expect(decodeStampAddress('sdns://not*a*stamp').kind).toBe('invalid');
    expect(decodeStampAddress('sdns://CQ').kind).toBe('invalid'); // unknown protocol 0x09
  });

  it('strips the :53 port in all three spellings', () => {
    expect(stripDnsPort('8.8.8.8:53')).toBe('8.8.8.8');
    expect(stripDnsPort('[2620:119:35::35]:53')).toBe('2620:119:35::35');
    expect(stripDnsPort('2001:418:3ff::1:53:53')).toBe('2001:418:3ff::1:53');
    expect(stripDnsPort('208.67.222.222')).toBeNull();
  });
});

describe('resolver adapters on fixtures', () => {
  it('dnscrypt: operator = section name; empty-address stamps skipped, broken stamps rejected', () => {
    const f = parseDnscryptResolvers(fixture('resolvers/dnscrypt-public-resolvers.md'));
    expect(entries(f)).toEqual([
      '8.8.8.8/32 google',
      '8.8.4.4/32 google',
      '2001:4860:4860::8888/128 google-ipv6',
      '2001:4860:4860::8844/128 google-ipv6',
      '9.9.9.9/32 quad9-dnscrypt-ip4-filter-pri',
      '149.112.112.9/32 quad9-dnscrypt-ip4-filter-pri',
      '149.112.112.112/32 quad9-dnscrypt-ip4-filter-pri',
    ]);
    expect(f.rejected).toEqual([
      { feed: 'resolver-dnscrypt', line: 71, message: 'stamp truncated inside the address' },
      { feed: 'resolver-dnscrypt', line: 72, message: 'not an sdns:// base64url stamp' },
    ]);
    expect(f.source.note).toBe('5 resolvers, 10 stamps; skipped stamps without an IP: 1 empty address (resolved by host name)');
    expect(f.source.entries).toBe(7);
    expect(f.source.data_date).toBeNull();
  });

  it('doh lists: operator = first host name', () => {
    const v4 = parseDohIpv4(fixture('resolvers/doh-ipv4.txt'));
    expect(entries(v4)).toEqual([
      '1.0.0.1/32 one.one.one.one',
      '1.1.1.1/32 one.one.one.one',
      '8.8.4.4/32 dns.google',
      '8.8.8.8/32 dns.google',
      '9.9.9.9/32 dns.quad9.net',
    ]);
    expect(v4.rejected).toEqual([{ feed: 'resolver-doh-ipv4', line: 6, message: 'not an address: "9.9.9.300"' }]);
    const v6 = parseDohIpv6(fixture('resolvers/doh-ipv6.txt'));
    expect(entries(v6)).toEqual([
      '2001:4860:4860::8844/128 dns.google',
      '2001:4860:4860::8888/128 dns.google',
      '2606:4700:4700::1111/128 one.one.one.one',
    ]);
    expect(v6.rejected).toEqual([
      { feed: 'resolver-doh-ipv6', line: 4, message: 'expected a single address, got a prefix: "2606:4700:4700::1111/64"' },
    ]);
    expect(v6.source.licence).toBe('GPL-3.0');
  });

  it('public-dns validated: IP:53 in IPv4, bare IPv6 and [IPv6] forms; no operator', () => {
    const f = parsePublicDnsValidated(fixture('resolvers/public-dns-validated-resolvers.txt'));
    expect(entries(f)).toEqual([
      '1.1.1.1/32 null',
      '2001:418:3ff::1:53/128 null',
      '2001:4860:4860::8888/128 null',
      '208.67.222.222/32 null',
      '2620:119:35::35/128 null',
      '8.8.8.8/32 null',
    ]);
    expect(f.rejected).toEqual([{ feed: 'resolver-public-dns-validated', line: 5, message: 'expected IP:53, got "208.67.222.222"' }]);
    expect(f.source.evidence).toBe('inferred');
  });

  it('every registered feed parses its fixture', () => {
    for (const s of RESOLVER_FEEDS) {
      const f = s.parse(fixture(s.path)) as PrefixFeed<ResolverValue>;
      expect(f.source.id).toBe(s.id);
      expect(f.source.url).toBe(s.url);
      expect(f.source.entries).toBe(f.prefixes.length);
    }
  });

  it('throws FeedError for a file that is not the format', () => {
    expect(() => parseDnscryptResolvers('')).toThrow(FeedError);
    expect(() => parseDnscryptResolvers('# public-resolvers\n\nno sections here\n')).toThrow(FeedError);
    expect(() => parseDohIpv4('')).toThrow(FeedError);
    expect(() => parsePublicDnsValidated('')).toThrow(FeedError);
    expect(() => parsePublicDnsValidated('<html>\n')).toThrow(FeedError);
  });
});

describe.skipIf(!HAVE_FEEDS)('resolver adapters on the real feeds (SOURCES.md counts)', () => {
  it('dnscrypt: 816 resolvers, 919 stamps, 11 DoH stamps without an address', () => {
    const f = parseDnscryptResolvers(real('resolvers/dnscrypt-public-resolvers.md'));
    expect(f.rejected).toEqual([]);
    expect(f.source.note).toBe('816 resolvers, 919 stamps; skipped stamps without an IP: 11 empty address (resolved by host name)');
    expect(f.source.entries).toBe(919 - 11);
    expect(f.prefixes.find((p) => cidr(p) === '9.9.9.9/32')?.value.operator).toMatch(/^quad9-/);
  });

  it('doh lists: 1975 IPv4 and 1340 IPv6, none rejected', () => {
    const v4 = parseDohIpv4(real('resolvers/doh-ipv4.txt'));
    const v6 = parseDohIpv6(real('resolvers/doh-ipv6.txt'));
    expect([v4.source.entries, v4.rejected.length, v6.source.entries, v6.rejected.length]).toEqual([1975, 0, 1340, 0]);
    expect(v4.prefixes.every((p) => p.version === 4)).toBe(true);
    expect(v6.prefixes.every((p) => p.version === 6)).toBe(true);
    expect(v4.prefixes.find((p) => cidr(p) === '8.8.8.8/32')?.value.operator).toBe('8888.google');
  });

  it('public-dns validated: 4737 entries (99 IPv6), none rejected', () => {
    const f = parsePublicDnsValidated(real('resolvers/public-dns-validated-resolvers.txt'));
    expect(f.rejected).toEqual([]);
    expect(f.source.entries).toBe(4737);
    expect(f.prefixes.filter((p) => p.version === 6)).toHaveLength(99);
  });
});
