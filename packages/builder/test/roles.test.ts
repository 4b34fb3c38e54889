/**
 * build/roles.ts: the combiner's inputs come from the declared roles and
 * flags, never from feed ids. Feeds declared here (not the registry's) land
 * where their declaration says; changing a declaration moves them.
 */
import { describe, expect, it } from 'vitest';
import { toCombineInput, sourceRows, newestDate } from '../src/build/roles.js';
import type { Loaded } from '../src/build/load.js';
import { defineFeed, type FeedDeclaration } from '../src/feeds/declare.js';
import { register } from '../src/feeds/register.js';
import type { Prefix } from '../src/feeds/types.js';

const p = <V>(start: number, length: number, value: V): Prefix<V> => ({ version: 4, start: BigInt(start), length, value });

let n = 0;
/** A registered feed of `role` whose adapter returns `found`, read once. */
function loaded(decl: Record<string, unknown>, found: Record<string, unknown>): Loaded {
  n++;
  const d = defineFeed({
    id: `feed-${n}`,
    publisher: 'P',
    url: 'https://example.test/',
    licence: 'L',
    attribution_required: false,
    evidence: 'inferred',
    format: 'f',
    refresh: '1d',
    use: 'build',
    origin: 'feeds',
    path: `x/${n}`,
    download: { url: 'https://example.test/' },
    parse: () => ({ rejected: [], dataDate: null, ...found }),
    ...decl,
  } as unknown as FeedDeclaration);
  const [feed] = register([d]);
  return { feed: feed!, result: feed!.read('x') };
}

const input = (list: Loaded[]): ReturnType<typeof toCombineInput> => toCombineInput(list, { buildDate: '2026-01-01T00:00:00.000Z', attributionUrl: 'u' }, () => {});

describe('roles to combiner inputs', () => {
  it('a vpn feed goes to vpn, or to vpnBroad when declared broad', () => {
    const list = [loaded({ role: 'vpn' }, { prefixes: [p(1, 32, { brand: 'B' })] }), loaded({ role: 'vpn', broad: true }, { prefixes: [p(2, 32, { brand: null })] })];
    const i = input(list);
    expect(i.vpn.map((x) => [x.start, x.value])).toEqual([[1n, { brand: 'B' }]]);
    expect(i.vpnBroad.map((x) => x.start)).toEqual([2n]);
  });

  it('an abuse feed counts from its declared minLists; a broad one goes to abuseBroad whole', () => {
    const i = input([
      loaded({ role: 'abuse', evidence: 'beta', minLists: 2 }, { prefixes: [p(1, 32, { lists: 1 }), p(2, 32, { lists: 2 })] }),
      loaded({ role: 'abuse', evidence: 'beta', broad: true }, { prefixes: [p(3, 32, { lists: 1 })] }),
    ]);
    expect(i.abuse.map((x) => x.start)).toEqual([2n]);
    expect(i.abuseBroad.map((x) => x.start)).toEqual([3n]);
  });

  it('datacenter ranges are published by authoritative evidence (with a provider), else inferred', () => {
    const i = input([
      loaded({ role: 'datacenter', evidence: 'authoritative' }, { prefixes: [p(1, 32, { provider: 'AWS' }), p(2, 32, { provider: null })] }),
      loaded({ role: 'datacenter' }, { prefixes: [p(3, 32, { provider: null })] }),
    ]);
    expect(i.datacenterPublished.map((x) => [x.start, x.value])).toEqual([[1n, { provider: 'AWS' }]]);
    expect(i.datacenterInferred.map((x) => [x.start, x.value])).toEqual([[3n, { provider: null }]]);
  });

  it('for identical prefixes in one role the earlier feed wins (the later one in the combiner list)', () => {
    const i = input([loaded({ role: 'crawler', evidence: 'authoritative' }, { prefixes: [p(1, 24, { name: 'First' })] }), loaded({ role: 'crawler', evidence: 'authoritative' }, { prefixes: [p(1, 24, { name: 'Second' })] })]);
    expect(i.crawlers.at(-1)!.value.name).toBe('First');
  });

  it('bgp.tools tags by their declared tag: mobile, satnet, and vpsh after the hosting-ASN lists', () => {
    const i = input([
      loaded({ role: 'asn-tag', tag: 'vpsh' }, { asns: new Map([[1, 'tag name'], [2, 'tagged']]) }),
      loaded({ role: 'asn-tag', tag: 'mobile' }, { asns: new Map([[3, 'm']]) }),
      loaded({ role: 'asn-tag', tag: 'satnet' }, { asns: new Map([[4, 's']]) }),
      loaded({ role: 'hosting-asn' }, { asns: new Map([[1, 'list name'], [5, null]]) }),
    ]);
    expect([...i.hostingAsns]).toEqual([[1, 'list name'], [5, ''], [2, 'tagged']]);
    expect([...i.mobileAsns, ...i.satelliteAsns]).toEqual([3, 4]);
  });

  it('ASN lists, tables and the RPKI set', () => {
    const i = input([
      loaded({ role: 'vpn-asn' }, { asns: new Map([[7, { brand: 'x' }]]) }),
      loaded({ role: 'drop-asn', evidence: 'authoritative' }, { asns: new Map([[8, {}]]) }),
      loaded({ role: 'asn', evidence: 'authoritative', row: 'asn-table' }, { ranges: [{ version: 4, first: 0n, last: 9n, asn: 1, org: 'O' }, { version: 6, first: 0n, last: 9n, asn: 2, org: 'Q' }] }),
      loaded({ role: 'rpki', evidence: 'authoritative' }, { roas: [{ version: 4, start: 0n, length: 8, maxLength: 8, asn: 1 }], duplicates: 0 }),
    ]);
    expect([...i.vpnAsns, ...i.dropAsns]).toEqual([7, 8]);
    expect(i.v4.asn).toEqual([{ first: 0n, last: 9n, value: { asn: 1, org: 'O' } }]);
    expect(i.v6.asn).toEqual([{ first: 0n, last: 9n, value: { asn: 2, org: 'Q' } }]);
    expect(i.validate!(4, 0n, 8, 1)).toBe('valid');
    expect(i.validate!(4, 0n, 8, 2)).toBe('invalid');
  });

  it('source rows keep registry order; files of one row are summed into the first; the build date is the newest', () => {
    const a = loaded({ role: 'tor', row: 'both', copyDate: '2026-02-01' }, { prefixes: [p(1, 32, true)] });
    const b = loaded({ role: 'tor', row: 'both', copyDate: '2026-03-01' }, { prefixes: [p(2, 32, true), p(3, 32, true)] });
    const c = loaded({ role: 'proxy', copyDate: '2026-01-15T10:00:00Z' }, { prefixes: [p(4, 32, true)] });
    const rows = sourceRows([a, b, c]);
    expect(rows.map((r) => [r.id, r.entries, r.data_date])).toEqual([
      ['both', 3, '2026-02-01'],
      [c.feed.id, 1, '2026-01-15T10:00:00Z'],
    ]);
    expect(newestDate(rows)).toBe('2026-02-01T00:00:00.000Z');
  });
});
