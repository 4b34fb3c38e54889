/**
 * build/roles.ts: the combiner's inputs come from the declared roles and
 * flags, never from feed ids. Feeds declared here (not the registry's) land
 * where their declaration says; changing a declaration moves them.
 */
import { describe, expect, it } from 'vitest';
import { EVIDENCE_ROLES, MAX_VPN_AGE_DAYS, toCombineInput, sourceRows, newestDate } from '../src/build/roles.js';
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

/** An adapter result of each role's shape, for feeds that only need to be present. */
const one = { prefixes: [p(9, 32, { provider: 'P', brand: null, name: 'N', origins: [1], lists: 1 })] };
const ROLE_FOUND: Record<string, Record<string, unknown>> = Object.fromEntries(
  ['datacenter', 'tor', 'vpn', 'proxy', 'crawler', 'relay', 'routes', 'allocation', 'drop', 'abuse', 'resolver'].map((r) => [r, one]),
);

const input = (list: Loaded[]): ReturnType<typeof toCombineInput> => toCombineInput(list, { buildDate: '2026-01-01T00:00:00.000Z', attributionUrl: 'u' }, () => {});

describe('roles to combiner inputs', () => {
  it('a vpn feed goes to vpn, or to vpnBroad when declared broad', () => {
    const list = [loaded({ role: 'vpn' }, { prefixes: [p(1, 32, { brand: 'B' })] }), loaded({ role: 'vpn', broad: true }, { prefixes: [p(2, 32, { brand: null })] })];
    const i = input(list);
    expect(i.vpn.map((x) => [x.start, x.value])).toEqual([[1n, { brand: 'B' }]]);
    expect(i.vpnBroad.map((x) => x.start)).toEqual([2n]);
  });

  it('an abuse feed counts from its declared minLists', () => {
    const i = input([
      loaded({ role: 'abuse', evidence: 'beta', minLists: 2 }, { prefixes: [p(1, 32, { lists: 1 }), p(2, 32, { lists: 2 })] }),
      loaded({ role: 'abuse', evidence: 'beta' }, { prefixes: [p(3, 32, { lists: 1 })] }),
    ]);
    expect(i.abuse.map((x) => x.start)).toEqual([3n, 2n]);
  });

  it('a VPN list older than the age limit at the build date is left out, and the build says so', () => {
    const said: string[] = [];
    const fresh = loaded({ role: 'vpn', copyDate: '2025-11-01' }, { prefixes: [p(1, 32, { brand: 'F' })] });
    const stale = loaded({ role: 'vpn', broad: true, copyDate: '2025-08-01' }, { prefixes: [p(2, 32, { brand: null })] });
    const undated = loaded({ role: 'vpn' }, { prefixes: [p(3, 32, { brand: 'U' })] });
    const i = toCombineInput([fresh, stale, undated], { buildDate: '2026-01-01T00:00:00.000Z', attributionUrl: 'u' }, (m) => said.push(m));
    expect(MAX_VPN_AGE_DAYS).toBe(90);
    expect(i.vpn.map((x) => x.start).sort()).toEqual([1n, 3n]);
    expect(i.vpnBroad).toEqual([]);
    expect(said.some((m) => m.includes(stale.feed.id) && m.includes('153 days old'))).toBe(true);
  });

  it('the VPN age limit counts whole days: a list dated 90 days before the build day is used whatever the build\'s time of day, one dated 91 days before is not', () => {
    const said: string[] = [];
    const at90 = loaded({ role: 'vpn', copyDate: '2025-10-03' }, { prefixes: [p(1, 32, { brand: 'A' })] });
    const at90stamped = loaded({ role: 'vpn', copyDate: '2025-10-03T23:59:00Z' }, { prefixes: [p(2, 32, { brand: 'B' })] });
    const at91 = loaded({ role: 'vpn', copyDate: '2025-10-02T23:59:00Z' }, { prefixes: [p(3, 32, { brand: 'C' })] });
    const i = toCombineInput([at90, at90stamped, at91], { buildDate: '2026-01-01T18:00:00.000Z', attributionUrl: 'u' }, (m) => said.push(m));
    expect(i.vpn.map((x) => x.start).sort()).toEqual([1n, 2n]);
    expect(said).toEqual([`leaving out ${at91.feed.id}: its data is 91 days old (VPN lists older than ${MAX_VPN_AGE_DAYS} days are not used)`]);
  });

  it('a VPN list whose stated date names no real time is left out (unreadable is not fresh), and the build says so', () => {
    const said: string[] = [];
    const unreadable = loaded({ role: 'vpn' }, { prefixes: [p(4, 32, { brand: 'X' })], dateUnreadable: '2025-13-31T13:25:28Z' });
    const undated = loaded({ role: 'vpn' }, { prefixes: [p(3, 32, { brand: 'U' })] });
    const i = toCombineInput([unreadable, undated], { buildDate: '2026-01-01T00:00:00.000Z', attributionUrl: 'u' }, (m) => said.push(m));
    expect(i.vpn.map((x) => x.start)).toEqual([3n]);
    expect(said.some((m) => m.includes(unreadable.feed.id) && m.includes('"2025-13-31T13:25:28Z" is not a real date'))).toBe(true);
  });

  it('a VPN list whose format always states a date but which states none is left out, and the build says which', () => {
    const said: string[] = [];
    const headerless = loaded({ role: 'vpn' }, { prefixes: [p(4, 32, { brand: 'X' })], dateUnreadable: '' });
    const i = toCombineInput([headerless], { buildDate: '2026-01-01T00:00:00.000Z', attributionUrl: 'u' }, (m) => said.push(m));
    expect(i.vpn).toEqual([]);
    expect(said).toContain(`leaving out ${headerless.feed.id}: it states no data date, though its format always does, so its age is unknown (VPN lists older than ${MAX_VPN_AGE_DAYS} days are not used)`);
  });

  it('a snapshot whose every VPN list is left out for its age has no VPN source: vpn is unavailable, as without VPN lists', () => {
    const tor = loaded({ role: 'tor', evidence: 'authoritative' }, { prefixes: [p(1, 32, true)] });
    const stale = loaded({ role: 'vpn', copyDate: '2025-08-01' }, { prefixes: [p(2, 32, { brand: 'S' })] });
    const unreadable = loaded({ role: 'vpn', broad: true }, { prefixes: [p(3, 32, { brand: null })], dateUnreadable: '2025-13-31T13:25:28Z' });
    const none = input([tor, stale, unreadable]);
    expect([none.vpn, none.vpnBroad]).toEqual([[], []]);
    expect(none.unavailable).toContain('vpn');
    // One list still in use is a source: vpn is available.
    const undated = loaded({ role: 'vpn' }, { prefixes: [p(4, 32, { brand: 'U' })] });
    expect(input([tor, stale, undated]).unavailable).not.toContain('vpn');
  });

  it('lists the evidence keys no loaded feed can decide', () => {
    const i = input([loaded({ role: 'tor', evidence: 'authoritative' }, { prefixes: [p(1, 32, true)] })]);
    expect(i.unavailable).toEqual(Object.keys(EVIDENCE_ROLES).filter((k) => k !== 'tor'));
    const all = input(
      Object.values(EVIDENCE_ROLES).map((roles) => loaded({ role: roles[0], ...(roles[0] === 'asn-tag' ? { tag: 'vpsh' } : {}) }, ROLE_FOUND[roles[0]!]!)),
    );
    expect(all.unavailable).toEqual([]);
  });

  it('datacenter ranges are published by authoritative evidence (with a provider), else inferred', () => {
    const i = input([
      loaded({ role: 'datacenter', evidence: 'authoritative' }, { prefixes: [p(1, 32, { provider: 'AWS', cdn: true, anycast: false }), p(2, 32, { provider: null })] }),
      loaded({ role: 'datacenter' }, { prefixes: [p(3, 32, { provider: null })] }),
    ]);
    expect(i.datacenterPublished.map((x) => [x.start, x.value])).toEqual([[1n, { provider: 'AWS', cdn: true, anycast: false }]]);
    expect(i.datacenterInferred.map((x) => [x.start, x.value])).toEqual([[3n, { provider: null }]]);
  });

  it('for identical prefixes in one role the earlier feed wins (the later one in the combiner list)', () => {
    const i = input([loaded({ role: 'crawler', evidence: 'authoritative' }, { prefixes: [p(1, 24, { name: 'First' })] }), loaded({ role: 'crawler', evidence: 'authoritative' }, { prefixes: [p(1, 24, { name: 'Second' })] })]);
    expect(i.crawlers.at(-1)!.value.name).toBe('First');
  });

  it('bgp.tools tags by their declared tag, classes by ASN; hosting-ASN lists by name', () => {
    const i = input([
      loaded({ role: 'asn-tag', tag: 'vpsh' }, { asns: new Map([[1, 'tag name'], [2, 'tagged']]) }),
      loaded({ role: 'asn-tag', tag: 'mobile' }, { asns: new Map([[2, 'm']]) }),
      loaded({ role: 'asn-tag', tag: 'satnet' }, { asns: new Map([[4, 's']]) }),
      loaded({ role: 'hosting-asn' }, { asns: new Map([[1, 'list name'], [5, null]]) }),
      loaded({ role: 'as-names' }, { asns: new Map([[2, { class: 'T1' }]]) }),
      loaded({ role: 'asn-kind' }, { asns: new Map([[6, { kind: 'cdn', name: 'C', anycast: true, why: 'w' }]]) }),
    ]);
    expect([...i.hostingAsns]).toEqual([[1, 'list name'], [5, '']]);
    expect([...i.asnTags].map(([a, t]) => [a, [...t]])).toEqual([[1, ['vpsh']], [2, ['vpsh', 'mobile']], [4, ['satnet']]]);
    expect([...i.asnClass]).toEqual([[2, 'T1']]);
    expect(i.operators.get(6)?.name).toBe('C');
  });

  it('routes: BGP tables (authoritative) apart from the asmap (inferred)', () => {
    const i = input([
      loaded({ role: 'routes', evidence: 'authoritative' }, { prefixes: [p(1, 24, { origins: [1] })] }),
      loaded({ role: 'routes', evidence: 'inferred' }, { prefixes: [p(2, 24, { origins: [2] })] }),
    ]);
    expect(i.routes.map((x) => x.start)).toEqual([1n]);
    expect(i.routesMapped.map((x) => x.start)).toEqual([2n]);
  });

  it('ASN lists, tables and the RPKI set', () => {
    const i = input([
      loaded({ role: 'vpn-asn' }, { asns: new Map([[7, { brand: 'x' }]]) }),
      loaded({ role: 'drop-asn', evidence: 'authoritative' }, { asns: new Map([[8, {}]]) }),
      loaded({ role: 'asn', evidence: 'authoritative', row: 'asn-table' }, { ranges: [{ version: 4, first: 0n, last: 9n, asn: 1, org: 'O' }, { version: 6, first: 0n, last: 9n, asn: 2, org: 'Q' }] }),
      loaded({ role: 'rpki', evidence: 'authoritative' }, { roas: [{ version: 4, start: 0n, length: 8, maxLength: 8, asn: 1 }], duplicates: 0 }),
    ]);
    expect([...i.vpnAsnWide, ...i.dropAsns]).toEqual([7, 8]);
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
