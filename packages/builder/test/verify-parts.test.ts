/**
 * The parts of tools/verify-build.mjs (tools/verify/), one by one: the
 * command line, the reference tables, the sampling, how a declared feed
 * lands in the reference by its role, the re-derived precedence rules and
 * the report. The tool as a whole runs in verify-tool.test.ts. The parts are
 * plain JS modules that import the BUILT core (like the tool), so they are
 * loaded by URL.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
type Module = Record<string, any>;
const load = (name: string): Promise<Module> => import(pathToFileURL(join(root, 'tools/verify', name)).href) as Promise<Module>;

let options: Module;
let tables: Module;
let sampling: Module;
let reference: Module;
let expectMod: Module;
let report: Module;

beforeAll(async () => {
  if (!existsSync(join(root, 'packages/core/dist/index.js'))) throw new Error('packages/core/dist missing: the verify tool imports the built core (run `pnpm run build`)');
  options = await load('options.mjs');
  tables = await load('tables.mjs');
  sampling = await load('sampling.mjs');
  reference = await load('reference.mjs');
  expectMod = await load('expect.mjs');
  report = await load('report.mjs');
});

const v4 = (text: string): bigint => BigInt(text.split('.').reduce((a, o) => a * 256 + Number(o), 0));

describe('options', () => {
  it('defaults, every flag, repeatable --ip', () => {
    expect(options.parseArgs([])).toEqual({ ...options.DEFAULTS, ips: [] });
    const o = options.parseArgs(['--snapshot', 's', '--feeds', 'f', '--v4', '5', '--v6', '6', '--seed', '7', '--json', '--geo-csv', 'g', '--asn-csv', 'a', '--per-feed', '8', '--list', '9', '--ip', '1.1.1.1', '--ip', '::1']);
    expect(o).toEqual({ snapshot: 's', feeds: 'f', v4: 5, v6: 6, seed: 7, json: true, geoCsv: 'g', asnCsv: 'a', perFeed: 8, list: 9, ips: ['1.1.1.1', '::1'] });
  });

  it('a missing value, a non-number, an unknown flag and --help are usage errors', () => {
    const err = (argv: string[]): { message: string; help: boolean } => {
      try {
        options.parseArgs(argv);
      } catch (e) {
        return e as { message: string; help: boolean };
      }
      throw new Error('no error');
    };
    expect(err(['--v4']).message).toBe('--v4 needs a value');
    expect(err(['--v4', '1e3']).message).toBe('--v4 needs a whole number, got "1e3"');
    expect(err(['--fast']).message).toBe('unknown argument "--fast"');
    expect(err(['-h']).help).toBe(true);
  });
});

describe('reference tables', () => {
  it('PrefixTable: the longest prefix matches; for an identical prefix the first value stays', () => {
    const t = new tables.PrefixTable('t');
    t.add(4, v4('10.0.0.0'), 8, 'a');
    t.add(4, v4('10.1.0.0'), 16, 'b');
    t.add(4, v4('10.1.0.0'), 16, 'c');
    expect(t.match(4, v4('10.1.2.3'))).toEqual({ length: 16, value: 'b' });
    expect(t.match(4, v4('10.2.0.0'))).toEqual({ length: 8, value: 'a' });
    expect(t.has(4, v4('11.0.0.0'))).toBe(false);
    expect(t.size).toBe(2);
  });

  it('property: PrefixTable.match equals a scan for the longest covering prefix', () => {
    const prefix = fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 32 }));
    fc.assert(
      fc.property(fc.array(prefix, { maxLength: 20 }), fc.integer({ min: 0, max: 0xffffffff }), (ps, x) => {
        const t = new tables.PrefixTable('t');
        const norm = ps.map(([a, len]) => ({ start: len === 0 ? 0n : (BigInt(a) >> BigInt(32 - len)) << BigInt(32 - len), len }));
        for (const p of norm) t.add(4, p.start, p.len, `${p.start}/${p.len}`);
        const covering = norm.filter((p) => p.len === 0 || BigInt(x) >> BigInt(32 - p.len) === p.start >> BigInt(32 - p.len));
        const best = covering.sort((a, b) => b.len - a.len)[0];
        expect(t.match(4, BigInt(x))?.length ?? null).toBe(best?.len ?? null);
      }),
      { numRuns: 200 },
    );
  });

  it('RangeTable finds the range holding an address, or nothing between ranges', () => {
    const t = new tables.RangeTable();
    t.push(10, 20, 'a');
    t.push(30, 40, 'b');
    expect([t.get(10), t.get(20), t.get(25), t.get(40), t.get(41), t.get(0)]).toEqual(['a', 'a', null, 'b', null, null]);
  });

  it('the ASN CSV reader clips an overlapping row, drops one inside or out of order, unquotes names', () => {
    const t = { 4: new tables.RangeTable(), 6: new tables.RangeTable() };
    const r = tables.readAsnCsv(['1.0.0.0,1.0.0.255,1,"A, Inc."', '1.0.0.128,1.0.1.255,2,B', '1.0.1.0,1.0.1.10,3,C', '0.0.0.0,0.0.0.1,4,D'].join('\n'), t);
    expect(r).toEqual({ clipped: 2, bad: 1 });
    expect(t[4].get(Number(v4('1.0.0.200')))).toEqual({ asn: 1, org: 'A, Inc.' });
    expect(t[4].get(Number(v4('1.0.1.5')))).toEqual({ asn: 2, org: 'B' });
  });

  it('the geo CSV reader keeps what the builder keeps: sorted, the first of overlapping lines', () => {
    const t = tables.readGeoCsv(['8.8.8.0,8.8.8.255,US,California,,Mountain View,,37.4,-122.0,', '8.8.8.128,8.8.8.200,DE,,,,,,,', 'x,y'].join('\n'), 4);
    expect(t.length).toBe(1);
    expect(t.get(v4('8.8.8.130'))).toMatchObject({ country_code: 'US', city: 'Mountain View' });
  });
});

describe('sampling', () => {
  it('the same seed gives the same numbers; the feed stream is independent of the random one', () => {
    const a = new sampling.Sampler(7);
    const b = new sampling.Sampler(7);
    const seq = (s: Module): number[] => Array.from({ length: 5 }, () => s.int(1000));
    expect(seq(a)).toEqual(seq(b));
    const c = new sampling.Sampler(7);
    c.use('feed');
    const d = new sampling.Sampler(7);
    seq(d); // draws on the random stream do not move the feed stream
    d.use('feed');
    expect(seq(c)).toEqual(seq(d));
  });

  it('property: between stays inside its bounds', () => {
    const s = new sampling.Sampler(1);
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 2n }), fc.bigInt({ min: 0n, max: 1n << 70n }), (first, span) => {
        const x = s.between(first, first + span);
        expect(x >= first && x <= first + span).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("feedAddresses draws first, last and an inner address of entries, at most n, labelled by the entry", () => {
    const s = new sampling.Sampler(3);
    const feed = { prefixes: [{ version: 4, start: v4('10.0.0.0'), length: 30, value: true }, { version: 4, start: v4('1.2.3.4'), length: 32, value: true }] };
    const all = sampling.feedAddresses(s, feed, 100, { 4: new tables.RangeTable(), 6: new tables.RangeTable() });
    expect(all).toHaveLength(4); // 3 from the /30, 1 from the /32
    const inner = all.find((a: { kind: string }) => a.kind === '10.0.0.0/30 inside');
    expect(inner.x > v4('10.0.0.0') && inner.x < v4('10.0.0.3')).toBe(true);
    expect(sampling.feedAddresses(new sampling.Sampler(3), feed, 2, {}).length).toBe(2);
  });
});

describe('the reference by declared role', () => {
  const prefix = (text: string, length: number, value: unknown): Record<string, unknown> => ({ version: 4, start: v4(text), length, value });
  const add = (feed: Record<string, unknown>, result: Record<string, unknown>, roles = reference.emptyRoles(), later: (() => void)[] = [], buildDate: string | null = null): Module => {
    reference.addFeed(roles, { use: 'build', origin: 'feeds', ...feed }, { source: { data_date: null }, ...result }, later, buildDate);
    for (const f of later) f();
    return roles;
  };

  it('broad VPN feeds go to their own table, stale VPN lists to none; abuse counts from the declared minLists', () => {
    const roles = reference.emptyRoles();
    add({ id: 'v', role: 'vpn', broad: true }, { prefixes: [prefix('1.0.0.0', 24, { brand: null })] }, roles);
    add({ id: 'old', role: 'vpn' }, { prefixes: [prefix('7.0.0.0', 24, { brand: 'Old' })], source: { data_date: '2025-08-01' } }, roles, [], '2026-01-01T00:00:00Z');
    add({ id: 'a', role: 'abuse', minLists: 2 }, { prefixes: [prefix('2.0.0.1', 32, { lists: 1 }), prefix('2.0.0.2', 32, { lists: 2 })] }, roles);
    expect(roles.tables.vpnBroad.has(4, v4('1.0.0.9'))).toBe(true);
    expect(roles.tables.vpn.has(4, v4('1.0.0.9'))).toBe(false);
    expect(roles.tables.vpn.has(4, v4('7.0.0.9'))).toBe(false);
    expect(roles.tables.abuse.has(4, v4('2.0.0.1'))).toBe(false);
    expect(roles.tables.abuse.has(4, v4('2.0.0.2'))).toBe(true);
  });

  it('datacenter ranges are published or inferred by the declared evidence; a published range without a provider is not published', () => {
    const roles = reference.emptyRoles();
    add({ id: 'p', role: 'datacenter', evidence: 'authoritative' }, { prefixes: [prefix('4.0.0.0', 8, { provider: 'P', cdn: true }), prefix('5.0.0.0', 8, { provider: null })] }, roles);
    add({ id: 'i', role: 'datacenter', evidence: 'inferred' }, { prefixes: [prefix('6.0.0.0', 8, { provider: null })] }, roles);
    expect(roles.tables.dcPublished.match(4, v4('4.1.1.1'))?.value).toEqual({ provider: 'P', cdn: true, anycast: false });
    expect(roles.tables.dcPublished.has(4, v4('5.1.1.1'))).toBe(false);
    expect(roles.tables.dcInferred.match(4, v4('6.1.1.1'))?.value).toBe('');
  });

  it('tags, classes and the curated operators are kept per ASN; hosting-ASN lists by name', () => {
    const roles = reference.emptyRoles();
    reference.addFeed(roles, { id: 't', role: 'asn-tag', tag: 'vpsh', use: 'build' }, { asns: new Map([[1, 'tag name'], [2, 'x']]) }, []);
    reference.addFeed(roles, { id: 'm', role: 'asn-tag', tag: 'mobile', use: 'build' }, { asns: new Map([[2, 'm']]) }, []);
    reference.addFeed(roles, { id: 'h', role: 'hosting-asn', use: 'build' }, { asns: new Map([[1, 'list name']]) }, []);
    reference.addFeed(roles, { id: 'c', role: 'as-names', use: 'build' }, { asns: new Map([[2, { class: 'T1' }]]) }, []);
    reference.addFeed(roles, { id: 'o', role: 'asn-kind', use: 'build' }, { asns: new Map([[3, { kind: 'cdn', name: 'C', anycast: true }]]) }, []);
    expect([...roles.asnSets.hosting]).toEqual([[1, 'list name']]);
    expect([...roles.asnSets.tags.get(2)]).toEqual(['vpsh', 'mobile']);
    expect(roles.asnSets.cls.get(2)).toBe('T1');
    expect(roles.asnSets.operators.get(3).name).toBe('C');
  });
});

describe('the precedence rules, written out again', () => {
  const none = { asnRow: null, special: null, unallocated: null, route: null, mapped: null, rir: null, dcPublished: null, dcInferred: null, tor: null, vpn: null, vpnBroad: null, proxy: null, relay: null, crawler: null, resolver: null, drop: null, abuse: null };
  const hit = (value: unknown = true): { length: number; value: unknown } => ({ length: 24, value });
  const ref = (): Module => reference.emptyRoles();
  const expectOf = (facts: Record<string, unknown>, r = ref()): Record<string, unknown> => expectMod.expectedSignals(r, { ...none, ...facts });

  it('a special-purpose bogon answers nothing; unallocated space is a bogon only while nothing shows it in use', () => {
    expect(expectOf({ special: hit(), tor: hit() })).toMatchObject({ is_bogon: true, is_tor: false, connection_type: 'unknown' });
    expect(expectOf({ unallocated: hit() }).is_bogon).toBe(true);
    expect(expectOf({ unallocated: hit(), route: hit([1]) })).toMatchObject({ is_bogon: false, is_announced: true, connection_type: 'isp' });
    expect(expectOf({ unallocated: hit(), mapped: hit([1]) })).toMatchObject({ is_bogon: false, is_announced: true });
    expect(expectOf({ unallocated: hit(), drop: hit() })).toMatchObject({ is_bogon: false, is_drop_listed: true });
  });

  it('relay and crawler ranges are never VPN; a crawler is never proxy or abuse', () => {
    expect(expectOf({ relay: hit('iCloud Private Relay'), vpn: hit('M') })).toMatchObject({ is_vpn: false, is_relay: true });
    expect(expectOf({ dcPublished: hit({ provider: 'AWS', cdn: true, anycast: false }), vpn: hit('M') })).toMatchObject({ is_vpn: false, vpn_operator: null });
    expect(expectOf({ vpn: hit('Mullvad') })).toMatchObject({ is_vpn: true, vpn_operator: 'Mullvad' });
    expect(expectOf({ crawler: hit('Googlebot'), vpn: hit(''), proxy: hit(), abuse: hit() })).toMatchObject({ is_vpn: false, is_proxy: false, recent_abuse: false, verified_bot_name: 'Googlebot' });
  });

  it('broad VPN yields to DROP, Tor and the ASNs it expands whole', () => {
    expect(expectOf({ vpnBroad: hit(''), drop: hit() }).is_vpn).toBe(false);
    expect(expectOf({ vpnBroad: hit(''), tor: hit() }).is_vpn).toBe(false);
    expect(expectOf({ vpnBroad: hit('') })).toMatchObject({ is_vpn: true, vpn_operator: null });
    const r = ref();
    r.asnSets.vpnWide.set(5, {});
    expect(expectOf({ asnRow: { asn: 5, org: 'M' }, vpnBroad: hit('') }, r).is_vpn).toBe(false);
  });

  it('connection type: published datacenter, curated operators, pure tags, inferred datacenter off eyeball and T1 networks, isp only when announced', () => {
    const r = ref();
    r.asnSets.tags.set(7, new Set(['satnet']));
    r.asnSets.tags.set(8, new Set(['mobile']));
    r.asnSets.tags.set(11, new Set(['mobile', 'dsl', 'vpsh']));
    r.asnSets.tags.set(12, new Set(['vpsh']));
    r.asnSets.cls.set(12, 'T1');
    r.asnSets.hosting.set(9, 'Hoster');
    r.asnSets.operators.set(13, { kind: 'mobile', name: 'Mob', anycast: false });
    r.asnSets.operators.set(14, { kind: 'cdn', name: 'Edge', anycast: true });
    const asnRow = (asn: number): { asn: number; org: string } => ({ asn, org: `Org ${asn}` });
    expect(expectOf({ asnRow: asnRow(7), dcPublished: hit({ provider: 'AWS', cdn: false, anycast: false }) }, r)).toMatchObject({ connection_type: 'datacenter', datacenter_provider: 'AWS' });
    expect(expectOf({ asnRow: asnRow(7) }, r).connection_type).toBe('satellite');
    expect(expectOf({ asnRow: asnRow(8), dcInferred: hit('X') }, r).connection_type).toBe('mobile');
    expect(expectOf({ asnRow: asnRow(11), dcInferred: hit('X'), route: hit([11]) }, r).connection_type).toBe('isp');
    expect(expectOf({ asnRow: asnRow(12), route: hit([12]) }, r).connection_type).toBe('isp');
    // Unannounced: unknown, though an ASN row names the holder (PRODUCT.md section 3).
    expect(expectOf({ asnRow: asnRow(12) }, r).connection_type).toBe('unknown');
    expect(expectOf({ asnRow: asnRow(10), rir: hit({ date: '1988-01-01', country: 'US' }) }, r).connection_type).toBe('unknown');
    expect(expectOf({ asnRow: asnRow(10), mapped: hit([10]) }, r).connection_type).toBe('isp');
    expect(expectOf({ asnRow: asnRow(13) }, r).connection_type).toBe('mobile');
    expect(expectOf({ asnRow: asnRow(14) }, r)).toMatchObject({ connection_type: 'datacenter', datacenter_provider: 'Edge', is_anycast: true });
    expect(expectOf({ asnRow: asnRow(9) }, r)).toMatchObject({ connection_type: 'datacenter', datacenter_provider: 'Hoster' });
    expect(expectOf({ asnRow: asnRow(10), route: hit([10]) }, r)).toMatchObject({ connection_type: 'isp', datacenter_provider: null });
    expect(expectOf({}, r).connection_type).toBe('unknown');
  });
});

describe('report', () => {
  const tally = (agree: number, compared: number): Module => ({
    addresses: compared,
    fields: { city: { compared, agree, diffs: agree === compared ? [] : [{ ip: '1.2.3.4', expected: 'A', got: 'B' }] } },
    bogonNoGeo: 0,
    bogonWithDbip: [],
    bogonWithDbipCount: 0,
    bogonWithDbipBy: {},
    geoOnBogon: [],
  });
  const meta = { snapshot: 's', build_date: 'd', feeds: null, geo_source: 'g', asn_source: 'a', seed: 1, notes: [], feed_status: [] };

  it('agreement is floored, so 100.000 means every value agreed', () => {
    expect(report.pct(99_999, 100_000)).toBe(99.999);
    expect(report.pct(999_999, 1_000_000)).toBe(99.999);
    expect(report.pct(5, 5)).toBe(100);
    expect(report.pct(0, 0)).toBeNull();
  });

  it('ok only when every field agrees; the text names each disagreeing address', () => {
    const good = report.buildReport({ tallies: { random: tally(3, 3) }, fields: ['city'], meta });
    const bad = report.buildReport({ tallies: { random: tally(2, 3) }, fields: ['city'], meta });
    expect([good.ok, bad.ok]).toEqual([true, false]);
    const text = report.formatText({ ...bad, seconds: 1 }, { v4: 2, v6: 1, sampleFeeds: 0 });
    expect(text).toContain('geo.city | ');
    expect(text).toContain('  1.2.3.4: expected "A", got "B"');
    expect(text.trimEnd().endsWith('DISAGREEMENTS FOUND (1s)')).toBe(true);
    expect(report.formatText({ ...good, seconds: 2 }, { v4: 2, v6: 1, sampleFeeds: 0 })).toContain('ALL FIELDS AGREE (2s)');
  });
});
