import { describe, expect, it } from 'vitest';
import { feedById } from '../../src/feeds/registry.js';
import { decodeStampAddress, stripDnsPort } from '../../src/feeds/resolvers.js';
import type { ResolverValue } from '../../src/feeds/resolvers.js';
import type { PrefixFeed } from '../../src/feeds/types.js';
import { cidr, readFixture, readFullSize } from './helpers.js';

type Resolvers = PrefixFeed<ResolverValue>;
const entries = (f: Resolvers): string[] => f.prefixes.map((p) => `${cidr(p)} ${p.value.operator}`);

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

describe('resolver adapters', () => {
  it('dnscrypt: operator = section name; empty-address stamps skipped, broken stamps rejected', () => {
    const f = readFixture<Resolvers>('resolver-dnscrypt');
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
  });

  it('doh lists: operator = first host name', () => {
    const v4 = readFixture<Resolvers>('resolver-doh-ipv4');
    expect(entries(v4)).toEqual([
      '1.0.0.1/32 one.one.one.one',
      '1.1.1.1/32 one.one.one.one',
      '8.8.4.4/32 dns.google',
      '8.8.8.8/32 dns.google',
      '9.9.9.9/32 dns.quad9.net',
    ]);
    expect(v4.rejected).toEqual([{ feed: 'resolver-doh-ipv4', line: 6, message: 'not an address: "9.9.9.300"' }]);
    const v6 = readFixture<Resolvers>('resolver-doh-ipv6');
    expect(entries(v6)).toEqual([
      '2001:4860:4860::8844/128 dns.google',
      '2001:4860:4860::8888/128 dns.google',
      '2606:4700:4700::1111/128 one.one.one.one',
    ]);
    expect(v6.rejected).toEqual([
      { feed: 'resolver-doh-ipv6', line: 4, message: 'expected a single address, got a prefix: "2606:4700:4700::1111/64"' },
    ]);
  });

  it('public-dns validated: IP:53 in IPv4, bare IPv6 and [IPv6] forms; no operator', () => {
    const f = readFixture<Resolvers>('resolver-public-dns-validated');
    expect(entries(f)).toEqual([
      '1.1.1.1/32 null',
      '2001:418:3ff::1:53/128 null',
      '2001:4860:4860::8888/128 null',
      '208.67.222.222/32 null',
      '2620:119:35::35/128 null',
      '8.8.8.8/32 null',
    ]);
    expect(f.rejected).toEqual([{ feed: 'resolver-public-dns-validated', line: 5, message: 'expected IP:53, got "208.67.222.222"' }]);
  });

  it('a Markdown file without resolver sections is not the DNSCrypt list', () => {
    expect(() => feedById('resolver-dnscrypt').read('# public-resolvers\n\nno sections here\n')).toThrow(expect.objectContaining({ code: 'feed_format' }));
  });
});

describe('resolver adapters, full size (vendored copy)', () => {
  it('public-dns validated: 99 of its entries are IPv6', async () => {
    const f = await readFullSize<Resolvers>('resolver-public-dns-validated');
    expect(f.prefixes.filter((p) => p.version === 6)).toHaveLength(99);
  });
});
