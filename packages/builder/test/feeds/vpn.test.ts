import { describe, expect, it } from 'vitest';
import { FEEDS, feedById } from '../../src/feeds/registry.js';
import type { AsnsFound, Prefix, PrefixFeed } from '../../src/feeds/types.js';
import { az0Brand } from '../../src/feeds/vpn.js';
import type { VpnValue } from '../../src/feeds/vpn.js';
import { cidr, readFixture, readFullSize } from './helpers.js';

type Vpn = PrefixFeed<VpnValue>;
const branded = (p: Prefix<VpnValue>): string => `${cidr(p)} ${p.value.brand ?? '-'}`;
const proton = feedById('protonvpn');

describe('ProtonVPN /vpn/logicals', () => {
  const r = readFixture<Vpn>('protonvpn');

  it('reads the ExitIP of every server, each address once', () => {
    expect(r.prefixes.map(branded)).toEqual(['103.125.235.21/32 ProtonVPN', '103.125.235.22/32 ProtonVPN', '149.88.27.201/32 ProtonVPN']);
  });

  it('rejects a bad and a missing ExitIP, numbered by server record', () => {
    expect(r.rejected).toEqual([
      { feed: 'protonvpn', line: 5, message: 'NL#5: ExitIP is not an IP address: "190.2.146.18O"' },
      { feed: 'protonvpn', line: 6, message: 'NL#5: ExitIP is null, not a string' },
    ]);
  });

  it('an API error body, the wrong shape or no server is a FeedError; a logical server without Servers is one rejected record', () => {
    expect(() => proton.read('{"Code":2001,"LogicalServers":[]}')).toThrow(/API error/);
    expect(() => proton.read('[]')).toThrow(expect.objectContaining({ code: 'feed_format' }));
    expect(() => proton.read('{"Code":1000,"LogicalServers":[]}')).toThrow(/no server/);
    const r2 = proton.read('{"LogicalServers":[{"Name":"X"},{"Name":"Y","Servers":[{"ExitIP":"1.1.1.1"}]}]}');
    expect(r2.rejected).toEqual([{ feed: 'protonvpn', line: 1, message: 'logical server "X" has no Servers array' }]);
  });
});

describe('per-server text lists', () => {
  it('Mullvad: /32 per line, re-processed', () => {
    const r = readFixture<Vpn>('mullvad');
    expect(r.prefixes.map(branded)).toEqual(['23.144.160.67/32 Mullvad', '146.70.116.98/32 Mullvad', '185.213.154.68/32 Mullvad', '217.138.199.106/32 Mullvad']);
    expect(r.rejected).toEqual([{ feed: 'mullvad', line: 4, message: 'bad prefix length: "3x"' }]);
    expect(r.source.note).toMatch(/^RE-PROCESSED/);
  });

  it('Mullvad: a line with host bits set is rejected, not widened to the network around the relay', () => {
    const r = feedById('mullvad').read('23.144.160.67/32\n23.144.160.86/24\n') as Vpn;
    expect(r.prefixes.map(branded)).toEqual(['23.144.160.67/32 Mullvad']);
    expect(r.rejected).toEqual([{ feed: 'mullvad', line: 2, message: 'host bits set: "23.144.160.86/24"' }]);
  });

  it('PIA: IP # Region', () => {
    const r = readFixture<Vpn>('pia');
    expect(r.prefixes.map(branded)).toEqual([
      '95.181.238.9/32 Private Internet Access',
      '95.181.238.30/32 Private Internet Access',
      '140.228.24.179/32 Private Internet Access',
      '158.173.240.27/32 Private Internet Access',
    ]);
    expect(r.rejected).toEqual([{ feed: 'pia', line: 4, message: 'not an address: "158.173.240.300"' }]);
  });

  it('az0: brand per line, placeholder 1.2.3.4 rejected, date from the header', () => {
    const r = readFixture<Vpn>('az0-vpn');
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
    expect(r.source.data_date).toBe('2025-08-31T13:25:28Z');
  });

  it('az0: a header of the right shape naming no real time is a diagnostic and marks the date unreadable, not unknown', () => {
    const az0 = feedById('az0-vpn');
    for (const stamp of ['2025-13-31T13:25:28Z', '2099-13-45T99:99:99Z', '2026-99-99T10:00:00Z']) {
      const r = az0.read(`# ${stamp}\n185.1.1.1 # nordvpn\n`) as Vpn & { dateUnreadable?: string };
      expect(r.source.data_date).toBeNull();
      expect(r.dateUnreadable).toBe(stamp);
      expect(r.rejected).toEqual([{ feed: 'az0-vpn', line: 1, message: `header time ${stamp} is not a real date and time: the list's age is unreadable` }]);
    }
    // az0 writes the header on every list: without it the age is unreadable too (the build leaves the list out).
    const undated = az0.read('185.1.1.1 # nordvpn\n') as Vpn & { dateUnreadable?: string };
    expect([undated.source.data_date, undated.dateUnreadable, undated.prefixes.length]).toEqual([null, '', 1]);
    expect(undated.rejected).toEqual([{ feed: 'az0-vpn', line: 1, message: "no `# <ISO time>` header line: the list's age is unreadable" }]);
  });

  it('az0Brand keeps unknown tokens as published', () => {
    expect(az0Brand('approval.fun,areas.fun')).toBe('approval.fun,areas.fun');
    expect(az0Brand('protonvpn.net,proton.me')).toBe('ProtonVPN');
    expect(az0Brand(null)).toBeNull();
    expect(az0Brand(' , ')).toBeNull();
  });
});

describe('broad lists', () => {
  it('exactly the X4BNet prefix lists are declared broad; per-server lists come first', () => {
    const vpn = FEEDS.filter((f) => f.role === 'vpn');
    expect(vpn.filter((f) => f.broad).map((f) => f.id)).toEqual(['x4bnet-vpn-ipv4', 'x4bnet-vpn-ipv6']);
    expect(vpn.findIndex((f) => f.broad)).toBe(vpn.length - 2);
  });

  it('x4bnet IPv4: brand null; holds the iCloud relay range (the relay list overrides it)', () => {
    const r = readFixture<Vpn>('x4bnet-vpn-ipv4');
    expect(r.prefixes.map(branded)).toEqual(['2.26.157.0/24 -', '146.70.116.0/24 -', '172.224.226.0/27 -', '220.158.199.175/32 -']);
    expect(r.rejected).toEqual([{ feed: 'x4bnet-vpn-ipv4', line: 4, message: 'bad prefix length: "24/"' }]);
  });

  it('x4bnet IPv6: an IPv4 line is rejected', () => {
    const r = readFixture<Vpn>('x4bnet-vpn-ipv6');
    expect(r.prefixes.map(cidr)).toEqual(['2001:550:1d05::/48', '2a14:35c0::/30', '2c0f:3f80::/32']);
    expect(r.rejected).toEqual([{ feed: 'x4bnet-vpn-ipv6', line: 3, message: 'IPv4 entry in an IPv6 list' }]);
  });

  it('x4bnet ASN list: names without URLs', () => {
    const r = readFixture<AsnsFound<VpnValue>>('x4bnet-vpn-asn');
    expect([...r.asns]).toEqual([
      [9009, { brand: 'M247, GB (NordVPN)' }],
      [209854, { brand: 'Surfshark' }],
      [208172, { brand: 'ProtonVPN' }],
      [60729, { brand: 'Tor Servers (Tor exit nodes)' }],
    ]);
    expect(r.rejected).toEqual([{ feed: 'x4bnet-vpn-asn', line: 3, message: 'not an ASN: "AS0"' }]);
  });
});

describe('VPN lists, full size (vendored copies)', () => {
  it('x4bnet IPv4 holds the iCloud relay range 172.224.226.0/27 (to be overridden by the relay list)', async () => {
    const r = await readFullSize<Vpn>('x4bnet-vpn-ipv4');
    const start = (172n << 24n) | (224n << 16n) | (226n << 8n);
    expect(r.prefixes.some((p) => p.start <= start && start < p.start + (1n << BigInt(32 - p.length)))).toBe(true);
  });

  it('x4bnet ASN list names AS208172 ProtonVPN', async () => {
    expect((await readFullSize<AsnsFound<VpnValue>>('x4bnet-vpn-asn')).asns.get(208172)?.brand).toBe('ProtonVPN');
  });
});
