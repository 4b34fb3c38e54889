import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kindFromDescription } from '../../src/feeds/bogons/bogon-lists.js';
import { IANA_GLOBALLY_REACHABLE, IANA_SPECIAL_PURPOSE_ROWS, buildSpecialPurposeFeed, rowBlock } from '../../src/feeds/bogons/iana-special.js';
import type { BogonValue, IanaSpecialRow } from '../../src/feeds/bogons/iana-special.js';
import { parseCidr } from '../../src/feeds/read/cidr.js';
import { feedById } from '../../src/feeds/registry.js';
import type { PrefixFeed } from '../../src/feeds/types.js';
import { cidr, fixtureBytes, readFixture } from './helpers.js';

type Bogons = PrefixFeed<BogonValue>;
const IANA = readFixture<Bogons>('iana-special-purpose');

describe('bogon lists', () => {
  it('fullbogons v4: unallocated kind, epoch header date, bad line rejected', () => {
    const f = readFixture<Bogons>('bogons-cymru-v4');
    expect(f.prefixes.map(cidr)).toEqual([
      '0.0.0.0/8',
      '10.0.0.0/8',
      '23.135.225.0/24',
      '100.64.0.0/10',
      '127.0.0.0/8',
      '224.0.0.0/4',
      '240.0.0.0/4',
    ]);
    expect(f.prefixes.every((p) => p.value.kind === 'unallocated')).toBe(true);
    expect(f.rejected).toEqual([{ feed: 'bogons-cymru-v4', line: 8, message: 'host bits set: "23.151.160.1/24"' }]);
    expect(f.source.data_date).toBe('2024-03-10T16:55:01Z');
  });

  it('fullbogons v6', () => {
    const f = readFixture<Bogons>('bogons-cymru-v6');
    expect(f.prefixes.map(cidr)).toEqual(['::/10', '1000::/4', '2001:db8::/32', '3ffe::/16', 'fc00::/7']);
    expect(f.rejected).toEqual([{ feed: 'bogons-cymru-v6', line: 7, message: 'prefix length 129 exceeds 128' }]);
    expect(f.source.data_date).toBe('2024-03-10T16:55:01Z');
  });

  it('ipinfo: kind from the description', () => {
    const f = readFixture<Bogons>('bogons-ipinfo');
    expect(f.prefixes.map((p) => `${cidr(p)} ${p.value.kind}`)).toEqual([
      '0.0.0.0/8 this-network',
      '10.0.0.0/8 private-use-networks',
      '100.64.0.0/10 carrier-grade-nat',
      '127.0.0.0/8 loopback',
      '127.0.53.53/32 name-collision-occurrence',
      '169.254.0.0/16 link-local',
      '240.0.0.0/4 reserved-for-future-use',
      '255.255.255.255/32 limited-broadcast',
    ]);
    expect(f.rejected).toEqual([{ feed: 'bogons-ipinfo', line: 6, message: 'not an address: "300.0.0.0"' }]);
    expect(f.source.note).toContain('RE-PROCESSED');
    expect(kindFromDescription(null)).toBeNull();
  });

  it('fullbogons: each file holds its own IP version; the other one\'s file in its place is feed_format', () => {
    const v6 = fixtureBytes('bogons-cymru-v6');
    expect(() => feedById('bogons-cymru-v4').read(v6)).toThrow(expect.objectContaining({ code: 'feed_format' }) as Error);
    expect(() => feedById('bogons-cymru-v6').read(fixtureBytes('bogons-cymru-v4'))).toThrow(expect.objectContaining({ code: 'feed_format' }) as Error);
    const mixed = feedById('bogons-cymru-v4').read('# last updated 1710089701\n0.0.0.0/8\nfc00::/7\n') as Bogons;
    expect(mixed.prefixes.map(cidr)).toEqual(['0.0.0.0/8']);
    expect(mixed.rejected).toEqual([{ feed: 'bogons-cymru-v4', line: 3, message: 'IPv6 entry in an IPv4 list' }]);
  });

  it('a full-bogon file with its header only is empty', () => {
    expect(() => feedById('bogons-cymru-v4').read('# last updated 1710089701\n')).toThrow(expect.objectContaining({ code: 'feed_empty' }));
  });
});

// ------------------------------------------------------------------ IANA

const blocks = IANA_SPECIAL_PURPOSE_ROWS.map(rowBlock);
const holes = IANA_GLOBALLY_REACHABLE.map(rowBlock);
/** Pairs of table rows that overlap on purpose: a more specific registry row inside a broader one. */
const NESTED_ON_PURPOSE = new Set([
  '0.0.0.0/8 > 0.0.0.0/32',
  '192.0.0.0/24 > 192.0.0.0/29',
  '192.0.0.0/24 > 192.0.0.8/32',
  '192.0.0.0/24 > 192.0.0.170/32',
  '192.0.0.0/24 > 192.0.0.171/32',
  '192.88.99.0/24 > 192.88.99.2/32',
  '240.0.0.0/4 > 255.255.255.255/32',
  '2001::/23 > 2001:2::/48',
  '2001::/23 > 2001:10::/28',
]);

type Block = ReturnType<typeof rowBlock>;
const overlaps = (a: Block, b: Block): boolean => a.version === b.version && a.first <= b.last && b.first <= a.last;
const contains = (a: Block, x: { version: 4 | 6; value: bigint }): boolean => a.version === x.version && a.first <= x.value && x.value <= a.last;

/** The oracle: carved out -> null; else the kind of the most specific row holding the address. */
function oracle(x: { version: 4 | 6; value: bigint }): string | null {
  if (holes.some((h) => contains(h, x))) return null;
  const hits = blocks.filter((b) => contains(b, x)).sort((a, b) => b.length - a.length);
  return hits[0]?.row.kind ?? null;
}

function lookup(x: { version: 4 | 6; value: bigint }): string | null {
  const bits = x.version === 4 ? 32 : 128;
  const hits = IANA.prefixes.filter(
    (p) => p.version === x.version && x.value >= p.start && x.value < p.start + (1n << BigInt(bits - p.length)),
  );
  expect(hits.length).toBeLessThanOrEqual(1);
  return hits[0]?.value.kind ?? null;
}

const addr = (text: string): { version: 4 | 6; value: bigint } => {
  const c = parseCidr(text);
  if (!c.ok) throw new Error(text);
  return { version: c.version, value: c.start };
};

describe('IANA special-purpose table', () => {
  const rows = fc.constantFrom<IanaSpecialRow>(...IANA_SPECIAL_PURPOSE_ROWS, ...IANA_GLOBALLY_REACHABLE);

  it('property: every listed prefix parses with host bits zero', () => {
    fc.assert(
      fc.property(rows, (r) => {
        const c = parseCidr(r.cidr);
        return c.ok && !c.hostBitsSet && r.cidr.includes('/') && r.cidr.includes(':') === (c.version === 6);
      }),
      { numRuns: 500, seed: 42 },
    );
  });

  it('property: no two rows overlap unless nested on purpose', () => {
    const n = IANA_SPECIAL_PURPOSE_ROWS.length;
    fc.assert(
      fc.property(fc.nat(n - 1), fc.nat(n - 1), (i, j) => {
        if (i === j) return true;
        const [a, b] = [blocks[i]!, blocks[j]!].sort((x, y) => x.length - y.length) as [Block, Block];
        if (!overlaps(a, b)) return true;
        return a.length < b.length && NESTED_ON_PURPOSE.has(`${a.row.cidr} > ${b.row.cidr}`);
      }),
      { numRuns: 5000, seed: 42 },
    );
    // and exhaustively, so the declared nesting list is exact
    const found: string[] = [];
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) if (i !== j && blocks[i]!.length < blocks[j]!.length && overlaps(blocks[i]!, blocks[j]!)) found.push(`${blocks[i]!.row.cidr} > ${blocks[j]!.row.cidr}`);
    expect(new Set(found)).toEqual(NESTED_ON_PURPOSE);
  });

  it('the feed: host bits zero, sorted, no overlaps, authoritative IANA source', () => {
    const ps = IANA.prefixes;
    for (let i = 0; i < ps.length; i++) {
      const p = ps[i]!;
      expect(parseCidr(cidr(p))).toMatchObject({ ok: true, hostBitsSet: false });
      const next = ps[i + 1];
      if (next && next.version === p.version) {
        const bits = p.version === 4 ? 32 : 128;
        expect(p.start + (1n << BigInt(bits - p.length))).toBeLessThanOrEqual(next.start);
      }
    }
    expect(IANA.source).toMatchObject({ id: 'iana-special-purpose', publisher: 'IANA', licence: 'public registry', entries: ps.length });
    expect(IANA.source.note).toContain('https://www.iana.org/assignments/iana-ipv6-special-registry/');
  });

  it('property: feed lookup equals the oracle (most specific row, minus carve-outs)', () => {
    const inRow = fc
      .tuple(fc.constantFrom(...blocks, ...holes), fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }))
      .map(([b, r]) => ({ version: b.version, value: b.first + (r % (b.last - b.first + 1n)) }));
    const anyV4 = fc.bigInt({ min: 0n, max: (1n << 32n) - 1n }).map((value) => ({ version: 4 as const, value }));
    const anyV6 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map((value) => ({ version: 6 as const, value }));
    fc.assert(
      fc.property(fc.oneof(inRow, inRow, anyV4, anyV6), (x) => lookup(x) === oracle(x)),
      { numRuns: 3000, seed: 42 },
    );
  });

  it('decisions: reachable exceptions, 6to4, Teredo, RFC 9637 documentation, limited broadcast', () => {
    const k = (t: string): string | null => lookup(addr(t));
    expect(k('10.1.2.3')).toBe('private-use');
    expect(k('192.0.0.9')).toBeNull(); // PCP anycast, globally reachable
    expect(k('192.0.0.10')).toBeNull(); // TURN anycast
    expect(k('192.0.0.8')).toBe('ipv4-dummy-address');
    expect(k('192.0.0.11')).toBe('ietf-protocol-assignments');
    expect(k('192.88.99.1')).toBe('deprecated-6to4-relay-anycast');
    expect(k('255.255.255.255')).toBe('limited-broadcast');
    expect(k('255.255.255.254')).toBe('reserved');
    expect(k('224.0.0.1')).toBe('multicast');
    expect(k('8.8.8.8')).toBeNull();
    expect(k('::1')).toBe('loopback');
    expect(k('2001:1::1')).toBeNull();
    expect(k('2001:1::4')).toBe('ietf-protocol-assignments');
    expect(k('2001:4:112::1')).toBeNull();
    expect(k('2001:20::1')).toBeNull();
    expect(k('2001:0:4136:e378::1')).toBeNull(); // Teredo: not a bogon by decision
    expect(k('2002:c000:0204::1')).toBeNull(); // 6to4: not a bogon by decision
    expect(k('2001:db8::1')).toBe('documentation');
    expect(k('3fff:fff:ffff::1')).toBe('documentation');
    expect(k('3fff:1000::1')).toBeNull();
    expect(k('5f00::1')).toBe('srv6-sids');
    expect(k('fe80::1')).toBe('link-local');
    expect(k('ff02::1')).toBe('multicast');
    // IPv4-mapped addresses are decided by the IPv4 rows (core unmaps them)
    expect(IANA.prefixes.some((p) => p.version === 6 && p.start >> 32n === 0xffffn)).toBe(false);
    expect(addr('::ffff:10.0.0.1').version).toBe(4);
  });

  it('buildSpecialPurposeFeed carves holes out of nested rows', () => {
    const f = buildSpecialPurposeFeed(
      [{ cidr: '198.51.100.0/24', kind: 'doc', name: 'x', rfc: 'x' }],
      [{ cidr: '198.51.100.128/25', kind: 'hole', name: 'x', rfc: 'x' }],
    );
    expect(f.prefixes.map(cidr)).toEqual(['198.51.100.0/25']);
  });
});
