/**
 * The full-size checks of the feeds the repository does not carry (their
 * terms do not allow it: data/feeds/sources.json lists each with its
 * reason). They read the team's collection (IPINTEL_FEEDS, else
 * ../shared/feeds) and run only as `pnpm feeds:full`, never in `pnpm test`,
 * so a fresh clone skips nothing: it simply does not have these files. With
 * no collection this suite fails, it does not skip.
 *
 * The vendored feeds' full-size checks are in the per-module test files and
 * the contract suite (they read data/feeds).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DropValue } from '../../../src/feeds/droplist.js';
import { FEEDS } from '../../../src/feeds/registry.js';
import type { ResolverValue } from '../../../src/feeds/resolvers.js';
import { BGPTOOLS_TAGS, type BgpToolsAsn } from '../../../src/feeds/routing/bgptools.js';
import type { OriginsValue } from '../../../src/feeds/routing/pfx2as.js';
import type { RirFound } from '../../../src/feeds/routing/rir.js';
import type { RisFound } from '../../../src/feeds/routing/ris-whois.js';
import { buildRoaIndex, validateOrigin, validateOriginNaive, type RoasFound } from '../../../src/feeds/routing/rpki.js';
import type { AsnsFound, PrefixFeed, PrefixesFound } from '../../../src/feeds/types.js';
import type { VpnValue } from '../../../src/feeds/vpn.js';
import type { BogonValue } from '../../../src/feeds/bogons/iana-special.js';
import { parseCidr } from '../../../src/feeds/read/cidr.js';
import { expectCounts, expectWellFormed } from '../contract-checks.js';
import { EXPECTED } from '../expectations.js';
import { COLLECTION, cidr, collectionBytes, isVendored, readFullSize, show } from '../helpers.js';

function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  return fn().then((out) => {
    console.log(`${label}: ${(performance.now() - t0).toFixed(0)} ms`);
    return out;
  });
}

describe(`the collection at ${COLLECTION}`, () => {
  it('exists (this suite fails without it; it never skips)', () => {
    expect(() => readFileSync(join(COLLECTION, 'SOURCES.md'))).not.toThrow();
  });
});

/** The feeds-folder feeds the repository does not carry. */
const NOT_VENDORED = FEEDS.filter((f) => f.origin === 'feeds' && !isVendored(f) && EXPECTED[f.id]?.full !== null);

describe.each(NOT_VENDORED.map((f) => [f.id, f] as const))('feed %s, full size', (id, feed) => {
  it('reads its full-size copy with the SOURCES.md counts', async () => {
    const r = await readFullSize(id);
    expectCounts(r, EXPECTED[id]!.full!);
    expectWellFormed(feed, r);
  });
});

describe('routing feeds', () => {
  it('pfx2as: 5045 MOAS prefixes; 8.8.8.0/24 from AS15169', async () => {
    const f = await timed('pfx2as parse (998k lines)', () => readFullSize<PrefixesFound<OriginsValue>>('routeviews-pfx2as'));
    expect(f.prefixes.filter((p) => p.value.origins.length > 1).length).toBe(5045);
    expect(show([f.prefixes.find((p) => p.start === 0x08080800n && p.length === 24)!], (v) => v.origins.join(' '))).toEqual(['8.8.8.0/24 15169']);
  });

  it('RIS IPv6: 270,345 rows, of which the default route (47) and rows under 10 peers (39,550) are left out', async () => {
    const f = await timed('riswhois parse (270k rows)', () => readFullSize<RisFound>('ris-whois-ipv6'));
    expect(f.rows).toBe(270_345);
    expect(f.skipped).toBe(47 + 39_550);
  });

  it("the collection's copy of the ASN table is the npm package file", () => {
    const pkg = createRequire(import.meta.url).resolve('@ip-location-db/asn/asn-ipv4.csv');
    expect(Buffer.compare(readFileSync(pkg), Buffer.from(collectionBytes('bgp/ip-location-db-asn-ipv4.csv')))).toBe(0);
  });

  it('iptoasn IPv6: every one of the 152,385 lines is a range or a skipped AS0 row; the asmap', async () => {
    const ip2 = await readFullSize<PrefixesFound<unknown> & { skipped: number }>('iptoasn-ipv6');
    expect(ip2.skipped + 104_441).toBe(152_385);
    const am = await timed('asmap decoded parse (449k lines)', () => readFullSize<PrefixesFound<{ asn: number }>>('asmap'));
    expect(am.prefixes.filter((p) => p.version === 4).length).toBe(356_045);
    expect(new Set(am.prefixes.map((p) => p.value.asn)).size).toBe(89_879);
  });
});

describe('rpki-client VRP export', () => {
  const route = (text: string): { version: 4 | 6; start: bigint; length: number } => {
    const c = parseCidr(text);
    if (!c.ok) throw new Error(text);
    return { version: c.version, start: c.start, length: c.length };
  };

  it('723,524 unique VRPs: 580,367 IPv4 + 143,157 IPv6; validates the pfx2as table', async () => {
    let t0 = performance.now();
    const set = await readFullSize<RoasFound>('rpki-vrps');
    console.log(`rpki parse (bunzip2 + JSON + 723k VRPs): ${(performance.now() - t0).toFixed(0)} ms`);
    expect(set.duplicates).toBe(0);
    expect(set.roas.filter((r) => r.version === 4).length).toBe(580_367);
    expect(set.roas.filter((r) => r.version === 6).length).toBe(143_157);
    t0 = performance.now();
    const index = buildRoaIndex(set.roas);
    console.log(`rpki index build: ${(performance.now() - t0).toFixed(0)} ms`);
    expect(validateOrigin(index, route('1.1.1.0/24'), 13335)).toBe('valid');
    expect(validateOrigin(index, route('8.8.8.0/24'), 15169)).toBe('valid');

    const table = (await readFullSize<PrefixesFound<OriginsValue>>('routeviews-pfx2as')).prefixes;
    const counts = { valid: 0, invalid: 0, 'not-found': 0 };
    t0 = performance.now();
    for (const p of table) {
      // A MOAS prefix is valid when any of its origins is (each origin is a separate route).
      let best: 'valid' | 'invalid' | 'not-found' = 'not-found';
      for (const asn of p.value.origins) {
        best = validateOrigin(index, p, asn);
        if (best === 'valid') break;
      }
      counts[best]++;
    }
    console.log(`rpki: validated ${table.length} pfx2as routes in ${(performance.now() - t0).toFixed(0)} ms:`, counts);
    expect(counts.valid).toBeGreaterThan(counts.invalid);
    // Spot-check the index against the naive scan on a spread of real routes.
    for (let i = 0; i < table.length; i += 25_000) {
      const p = table[i]!;
      expect(validateOrigin(index, p, p.value.origins[0]!)).toBe(validateOriginNaive(set.roas, p, p.value.origins[0]!));
    }
  });
});

describe('RIR delegated files', () => {
  const read = (id: string): Promise<RirFound> => readFullSize<RirFound>(id);
  it('LACNIC extended 2024-02-08: 88,899 records, 43,699 available/reserved', async () => {
    const f = await read('rir-lacnic-extended');
    expect(f.counts).toEqual({ asn: 14695, ipv4: 19802, ipv6: 54402 });
    expect(f.skipped).toBe(27_579 + 16_120);
    expect(f.rejected).toEqual([]);
  });
  it('RIPE NCC partial: 41,594 records used, the cut-off 41,595th reported', async () => {
    const f = await read('rir-ripencc-partial');
    expect(f.counts).toEqual({ asn: 0, ipv4: 41_595, ipv6: 0 });
    expect(f.rejected.map((d) => d.message.slice(0, 40))).toEqual([
      'last line has no line end: file cut off,',
      'header says 260022 records, file has 415',
      'summary says 100395 ipv4 records, file h',
      'summary says 48678 asn records, file has',
      'summary says 110949 ipv6 records, file h',
    ]);
    expect(f.rejected[0]!.line).toBe(41_599);
  });
});

describe('bgp.tools files', () => {
  it('asns.csv: names with line breaks read whole; classes counted', async () => {
    const f = await readFullSize<AsnsFound<BgpToolsAsn>>('bgptools-asns');
    expect(f.asns.get(13335)).toEqual({ name: 'Cloudflare, Inc.', class: 'Content', cc: 'US' });
    expect(f.asns.get(262170)).toEqual({ name: 'Visualhosting.net', class: 'Unknown', cc: 'AR' });
    const classes = new Map<string, number>();
    for (const v of f.asns.values()) classes.set(v.class, (classes.get(v.class) ?? 0) + 1);
    expect(Object.fromEntries(classes)).toEqual({ Unknown: 109_805, Eyeball: 8768, Content: 1511, Carrier: 694, T1: 15 });
  });

  it('tag files: every name decoded, and equal to the asns.csv name (or its 60-character cut with "...")', async () => {
    const asns = (await readFullSize<AsnsFound<BgpToolsAsn>>('bgptools-asns')).asns;
    let checked = 0;
    let cut = 0;
    for (const tag of BGPTOOLS_TAGS) {
      for (const [asn, name] of (await readFullSize<AsnsFound<string>>(`bgptools-tag-${tag}`)).asns) {
        expect(name.startsWith('"') && name.endsWith('"'), name).toBe(false);
        const full = asns.get(asn)?.name;
        if (full === undefined) continue;
        checked++;
        if (name !== full && name.endsWith('...') && full.startsWith(name.slice(0, -3))) cut++;
        else expect(name).toBe(full);
      }
    }
    expect(checked).toBe(8831);
    expect(cut).toBe(70);
    expect((await readFullSize<AsnsFound<string>>('bgptools-tag-cdn')).asns.get(13335)).toBe('Cloudflare, Inc.');
  });
});

describe('Team Cymru full bogons', () => {
  it('v4 holds the golden special-purpose blocks; v6 is IPv6 only', async () => {
    expect((await readFullSize<PrefixFeed<BogonValue>>('bogons-cymru-v4')).prefixes.map(cidr)).toEqual(
      expect.arrayContaining(['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10']),
    );
    expect((await readFullSize<PrefixFeed<BogonValue>>('bogons-cymru-v6')).prefixes.every((p) => p.version === 6)).toBe(true);
  });
});

describe('Spamhaus DROP IPv6 (ipset conversion)', () => {
  it('is IPv6 only (its last line has no newline)', async () => {
    expect((await readFullSize<PrefixesFound<DropValue>>('spamhaus-drop-v6')).prefixes.every((p) => p.version === 6)).toBe(true);
  });
});

describe('resolver lists', () => {
  type Resolvers = PrefixFeed<ResolverValue>;
  it('dnscrypt: 816 resolvers, 919 stamps, 11 DoH stamps without an address', async () => {
    const f = await readFullSize<Resolvers>('resolver-dnscrypt');
    expect(f.source.note).toBe('816 resolvers, 919 stamps; skipped stamps without an IP: 11 empty address (resolved by host name)');
    expect(f.prefixes.find((p) => cidr(p) === '9.9.9.9/32')?.value.operator).toMatch(/^quad9-/);
  });

  it('doh lists: one IP version per file; the operator is the first host name', async () => {
    const v4 = await readFullSize<Resolvers>('resolver-doh-ipv4');
    const v6 = await readFullSize<Resolvers>('resolver-doh-ipv6');
    expect(v4.prefixes.every((p) => p.version === 4)).toBe(true);
    expect(v6.prefixes.every((p) => p.version === 6)).toBe(true);
    expect(v4.prefixes.find((p) => cidr(p) === '8.8.8.8/32')?.value.operator).toBe('8888.google');
  });
});

describe('VPN lists', () => {
  it('az0: the one rejected line is the 1.2.3.4 placeholder; brands counted', async () => {
    const r = await readFullSize<PrefixFeed<VpnValue>>('az0-vpn');
    expect(r.rejected).toEqual([{ feed: 'az0-vpn', line: 2, message: 'placeholder address 1.2.3.4, not a VPN server' }]);
    const brands = new Map<string, number>();
    for (const p of r.prefixes) brands.set(p.value.brand ?? '-', (brands.get(p.value.brand ?? '-') ?? 0) + 1);
    expect(brands.get('Private Internet Access')).toBe(16962);
    expect(brands.get('NordVPN')).toBe(8075);
  });
});

describe('abuse lists', () => {
  it('blocklist.de holds 466 IPv6 addresses', async () => {
    expect((await readFullSize<PrefixFeed<{ lists: number }>>('abuse-blocklist-de')).prefixes.filter((p) => p.version === 6)).toHaveLength(466);
  });
});
