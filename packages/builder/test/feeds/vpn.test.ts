import { existsSync, readFileSync } from 'node:fs';
import { bigIntToText } from '@ipintel/core/writer';
import { describe, expect, it } from 'vitest';
import { FeedError } from '../../src/feeds/types.js';
import type { Prefix } from '../../src/feeds/types.js';
import {
  VPN_FEEDS,
  az0Brand,
  parseAz0VpnIps,
  parseMullvadRelays,
  parsePiaServers,
  parseProtonVpnLogicals,
  parseX4bVpnAsns,
  parseX4bVpnIpv4,
  parseX4bVpnIpv6,
} from '../../src/feeds/vpn.js';
import type { VpnValue } from '../../src/feeds/vpn.js';

const FIXTURES = new URL('../../../../fixtures/feeds/', import.meta.url).pathname;
const FEEDS = process.env.IPINTEL_FEEDS ?? new URL('../../../../../shared/feeds', import.meta.url).pathname;
const HAVE_FEEDS = existsSync(FEEDS);
if (!HAVE_FEEDS) console.log(`vpn.test: full-size tests skipped: no feeds folder at ${FEEDS} (set IPINTEL_FEEDS)`);

const cidr = (p: Prefix<unknown>): string => `${bigIntToText(p.version, p.start)}/${p.length}`;
const fixture = (path: string): Uint8Array => readFileSync(FIXTURES + path);
const real = (path: string): Uint8Array => readFileSync(`${FEEDS}/${path}`);
const branded = (p: Prefix<VpnValue>): string => `${cidr(p)} ${p.value.brand ?? '-'}${p.value.broad ? ' broad' : ''}`;

describe('parseProtonVpnLogicals on the fixture', () => {
  const r = parseProtonVpnLogicals(fixture('vpn/protonvpn-logicals.json'));

  it('reads the ExitIP of every server, each address once', () => {
    expect(r.prefixes.map(branded)).toEqual(['103.125.235.21/32 ProtonVPN', '103.125.235.22/32 ProtonVPN', '149.88.27.201/32 ProtonVPN']);
  });

  it('rejects a bad and a missing ExitIP, numbered by server record', () => {
    expect(r.rejected).toEqual([
      { feed: 'protonvpn', line: 5, message: 'NL#5: ExitIP is not an IP address: "190.2.146.18O"' },
      { feed: 'protonvpn', line: 6, message: 'NL#5: ExitIP is null, not a string' },
    ]);
    expect(r.source).toMatchObject({ id: 'protonvpn', publisher: 'Proton AG', url: 'https://api.protonvpn.ch/vpn/logicals', data_date: null, entries: 3, evidence: 'inferred' });
  });

  it('throws FeedError on an API error body or the wrong shape', () => {
    expect(() => parseProtonVpnLogicals('{"Code":2001,"LogicalServers":[]}')).toThrow(/API error/);
    expect(() => parseProtonVpnLogicals('[]')).toThrow(FeedError);
    expect(() => parseProtonVpnLogicals('{"Code":1000,"LogicalServers":[]}')).toThrow(/no server/);
    const r2 = parseProtonVpnLogicals('{"LogicalServers":[{"Name":"X"},{"Name":"Y","Servers":[{"ExitIP":"1.1.1.1"}]}]}');
    expect(r2.rejected).toEqual([{ feed: 'protonvpn', line: 1, message: 'logical server "X" has no Servers array' }]);
  });
});

describe('per-server text lists on the fixtures', () => {
  it('Mullvad: /32 per line', () => {
    const r = parseMullvadRelays(fixture('vpn/mullvad-relays-x4bnet.txt'));
    expect(r.prefixes.map(branded)).toEqual(['23.144.160.67/32 Mullvad', '146.70.116.98/32 Mullvad', '185.213.154.68/32 Mullvad', '217.138.199.106/32 Mullvad']);
    expect(r.rejected).toEqual([{ feed: 'mullvad', line: 4, message: 'bad prefix length: "3x"' }]);
    expect(r.source).toMatchObject({ id: 'mullvad', url: 'https://api.mullvad.net/www/relays/all/', entries: 4 });
    expect(r.source.note).toMatch(/^RE-PROCESSED/);
  });

  it('PIA: IP # Region', () => {
    const r = parsePiaServers(fixture('vpn/pia-servers.txt'));
    expect(r.prefixes.map(branded)).toEqual([
      '95.181.238.9/32 Private Internet Access',
      '95.181.238.30/32 Private Internet Access',
      '140.228.24.179/32 Private Internet Access',
      '158.173.240.27/32 Private Internet Access',
    ]);
    expect(r.rejected).toEqual([{ feed: 'pia', line: 4, message: 'not an address: "158.173.240.300"' }]);
  });

  it('az0: brand per line, placeholder 1.2.3.4 rejected, date from the header', () => {
    const r = parseAz0VpnIps(fixture('vpn/az0-vpn-ip.txt'));
    expect(r.prefixes.map(branded)).toEqual([
      '1.220.90.178/32 Windscribe',
      '3.15.150.46/32 SetupVPN',
      '23.227.38.74/32 ProtonVPN, Windscribe',
      '45.12.134.2/32 360tls.com',
      '185.159.157.9/32 NordVPN',
      '212.102.35.200/32 Private Internet Access',
    ]);
    expect(r.rejected).toEqual([
      { feed: 'az0-vpn', line: 2, message: 'placeholder address 1.2.3.4, not a VPN server' },
      { feed: 'az0-vpn', line: 8, message: 'not an address: "999.1.1.1"' },
    ]);
    expect(r.source).toMatchObject({ id: 'az0-vpn', data_date: '2025-08-31T13:25:28Z', entries: 6, attribution_required: true });
  });

  it('az0Brand keeps unknown tokens as published', () => {
    expect(az0Brand('approval.fun,areas.fun')).toBe('approval.fun,areas.fun');
    expect(az0Brand('protonvpn.net,proton.me')).toBe('ProtonVPN');
    expect(az0Brand(null)).toBeNull();
    expect(az0Brand(' , ')).toBeNull();
  });
});

describe('broad lists on the fixtures', () => {
  it('x4bnet IPv4: brand null, broad; holds the iCloud relay range (the relay list overrides it)', () => {
    const r = parseX4bVpnIpv4(fixture('vpn/x4bnet-vpn-ipv4.txt'));
    expect(r.prefixes.map(branded)).toEqual(['2.26.157.0/24 - broad', '146.70.116.0/24 - broad', '172.224.226.0/27 - broad', '220.158.199.175/32 - broad']);
    expect(r.rejected).toEqual([{ feed: 'x4bnet-vpn-ipv4', line: 4, message: 'bad prefix length: "24/"' }]);
    expect(r.source).toMatchObject({ id: 'x4bnet-vpn-ipv4', evidence: 'inferred', entries: 4 });
  });

  it('x4bnet IPv6: an IPv4 line is rejected', () => {
    const r = parseX4bVpnIpv6(fixture('vpn/x4bnet-vpn-ipv6.txt'));
    expect(r.prefixes.map(cidr)).toEqual(['2001:550:1d05::/48', '2a14:35c0::/30', '2c0f:3f80::/32']);
    expect(r.rejected).toEqual([{ feed: 'x4bnet-vpn-ipv6', line: 3, message: 'IPv4 entry in an IPv6 list' }]);
  });

  it('x4bnet ASN list: names without URLs, broad', () => {
    const r = parseX4bVpnAsns(fixture('vpn/x4bnet-vpn-ASN.txt'));
    expect([...r.asns]).toEqual([
      [9009, { brand: 'M247, GB (NordVPN)', broad: true }],
      [209854, { brand: 'Surfshark', broad: true }],
      [208172, { brand: 'ProtonVPN', broad: true }],
      [60729, { brand: 'Tor Servers (Tor exit nodes)', broad: true }],
    ]);
    expect(r.rejected).toEqual([{ feed: 'x4bnet-vpn-asn', line: 3, message: 'not an ASN: "AS0"' }]);
    expect(r.source).toMatchObject({ id: 'x4bnet-vpn-asn', entries: 4 });
  });

  it('registers every VPN file', () => {
    expect(VPN_FEEDS.map((f) => `${f.kind} ${f.path}`)).toEqual([
      'prefix vpn/protonvpn-logicals.json',
      'prefix vpn/mullvad-relays-x4bnet.txt',
      'prefix vpn/pia-servers.txt',
      'prefix vpn/az0-vpn-ip.txt',
      'prefix vpn/x4bnet-vpn-ipv4.txt',
      'prefix vpn/x4bnet-vpn-ipv6.txt',
      'asn vpn/x4bnet-vpn-ASN.txt',
    ]);
  });
});

describe.skipIf(!HAVE_FEEDS)('VPN adapters on the real feeds', () => {
  it('ProtonVPN: 3321 servers -> 2424 distinct ExitIPs (SOURCES.md), nothing rejected', () => {
    const r = parseProtonVpnLogicals(real('vpn/protonvpn-logicals.json'));
    expect(r.source.entries).toBe(2424);
    expect(r.rejected).toEqual([]);
  });

  it('Mullvad 566, PIA 8019, x4bnet 10862 + 498 entries, nothing rejected', () => {
    for (const [parse, path, n] of [
      [parseMullvadRelays, 'vpn/mullvad-relays-x4bnet.txt', 566],
      [parsePiaServers, 'vpn/pia-servers.txt', 8019],
      [parseX4bVpnIpv4, 'vpn/x4bnet-vpn-ipv4.txt', 10862],
      [parseX4bVpnIpv6, 'vpn/x4bnet-vpn-ipv6.txt', 498],
    ] as const) {
      const r = parse(real(path));
      expect([path, r.source.entries, r.rejected]).toEqual([path, n, []]);
    }
  });

  it('az0: 32660 lines = 32659 entries + the 1.2.3.4 placeholder', () => {
    const r = parseAz0VpnIps(real('vpn/az0-vpn-ip.txt'));
    expect(r.source.entries).toBe(32659);
    expect(r.rejected).toEqual([{ feed: 'az0-vpn', line: 2, message: 'placeholder address 1.2.3.4, not a VPN server' }]);
    expect(r.source.data_date).toBe('2025-08-31T13:25:28Z');
    const brands = new Map<string, number>();
    for (const p of r.prefixes) brands.set(p.value.brand ?? '-', (brands.get(p.value.brand ?? '-') ?? 0) + 1);
    expect(brands.get('Private Internet Access')).toBe(16962);
    expect(brands.get('NordVPN')).toBe(8075);
  });

  it('x4bnet IPv4 holds the iCloud relay range 172.224.226.0/27 (to be overridden by the relay list)', () => {
    const r = parseX4bVpnIpv4(real('vpn/x4bnet-vpn-ipv4.txt'));
    const start = (172n << 24n) | (224n << 16n) | (226n << 8n);
    expect(r.prefixes.some((p) => p.start <= start && start < p.start + (1n << BigInt(32 - p.length)))).toBe(true);
  });

  it('ASN list: x4bnet 15 ASNs, nothing rejected', () => {
    const x = parseX4bVpnAsns(real('vpn/x4bnet-vpn-ASN.txt'));
    expect([x.source.entries, x.rejected]).toEqual([15, []]);
    expect(x.asns.get(208172)?.brand).toBe('ProtonVPN');
  });
});
