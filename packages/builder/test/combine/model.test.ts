/**
 * The combiner against a naive model: for random inputs in every role (both
 * families, prefixes of every length, nested and duplicated, at the edges of
 * the address space), the snapshot model's answer at an address is what
 * core's rules give for the facts read per address by the plain rules of
 * docs/data.md ("Combining"): the longest prefix of a role holds, the later
 * of two identical prefixes wins (roles.ts reverses registry order), an
 * interval table's row holds where it covers the address.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classify, NULL_GEO, type AddressFacts, type SnapshotModel } from '@ipintel/core/writer';
import { combine } from '../../src/combine/combine.js';
import type { CombineInput, Interval } from '../../src/combine/input.js';
import type { Prefix } from '../../src/feeds/types.js';
import { input } from '../support/combine-input.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 40) });

const BITS = { 4: 32, 6: 128 } as const;
const MAX = { 4: (1n << 32n) - 1n, 6: (1n << 128n) - 1n } as const;

/** A few regions where prefixes pile up: the bottom and top of the space and one in the middle. */
const anchor = (version: 4 | 6, which: number): bigint => (which === 0 ? 0n : which === 1 ? MAX[version] : MAX[version] / 3n);

function arbPrefix<V>(version: 4 | 6, value: fc.Arbitrary<V>): fc.Arbitrary<Prefix<V>> {
  const bits = BITS[version];
  return fc
    .record({ which: fc.integer({ min: 0, max: 2 }), off: fc.integer({ min: 0, max: 4095 }), len: fc.integer({ min: Math.max(0, bits - 14), max: bits }), short: fc.integer({ min: 0, max: 20 }), value })
    .map(({ which, off, len, short, value: v }) => {
      // Mostly long prefixes near an anchor; sometimes a short one (down to /0) around it.
      const length = short === 0 ? short : short === 1 ? 1 : short === 2 ? 8 : len;
      const raw = which === 1 ? anchor(version, 1) - BigInt(off) : anchor(version, which) + BigInt(off);
      const host = (1n << BigInt(bits - length)) - 1n;
      return { version, start: raw & ~host, length, value: v };
    });
}

function arbIntervals<V>(version: 4 | 6, value: fc.Arbitrary<V>): fc.Arbitrary<Interval<V>[]> {
  // Cut points near the anchors; every other gap is a row.
  return fc.array(fc.record({ which: fc.integer({ min: 0, max: 2 }), off: fc.integer({ min: 0, max: 4095 }) }), { maxLength: 8 }).chain((cuts) => {
    const points = [...new Set(cuts.map(({ which, off }) => (which === 1 ? anchor(version, 1) - BigInt(off) : anchor(version, which) + BigInt(off))))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const pairs: [bigint, bigint][] = [];
    for (let i = 0; i + 1 < points.length; i += 2) pairs.push([points[i]!, points[i + 1]!]);
    if (points.length % 2 === 1) pairs.push([points[points.length - 1]!, points[points.length - 1]!]);
    return fc.array(value, { minLength: pairs.length, maxLength: pairs.length }).map((vs) => pairs.map(([first, last], i) => ({ first, last, value: vs[i]! })));
  });
}

const ASNS = [1, 2, 3];
const asnSet = fc.subarray(ASNS);
const brand = fc.constantFrom(null, 'A', 'B');
const geoRow = fc.constantFrom('x', 'y').map((city) => ({ ...NULL_GEO, city, country_code: 'US' }));

function arbFamily(version: 4 | 6) {
  const list = <V>(v: fc.Arbitrary<V>) => fc.array(arbPrefix(version, v), { maxLength: 4 });
  const unit = fc.constant({});
  return fc.record({
    geo: arbIntervals(version, geoRow),
    asn: arbIntervals(version, fc.constantFrom(...ASNS).map((asn) => ({ asn, org: `Org${asn}` }))),
    routes: list(fc.subarray(ASNS, { minLength: 1 }).map((origins) => ({ origins }))),
    routesMapped: list(fc.constantFrom(...ASNS).map((a) => ({ origins: [a] }))),
    rir: list(fc.record({ date: fc.constantFrom(null, '2001-02-03'), country: fc.constantFrom(null, 'DE') })),
    bogons: list(unit),
    unallocated: list(unit),
    datacenterPublished: list(fc.record({ provider: fc.constantFrom('AWS', 'CF'), cdn: fc.boolean(), anycast: fc.boolean() })),
    datacenterInferred: list(fc.record({ provider: fc.constantFrom(null, 'Hoster') })),
    tor: list(unit),
    vpn: list(fc.record({ brand })),
    vpnBroad: list(fc.record({ brand })),
    proxy: list(unit),
    relay: list(fc.record({ provider: fc.constantFrom('R1', 'R2') })),
    crawlers: list(fc.record({ name: fc.constantFrom('Bot1', 'Bot2') })),
    resolvers: list(unit),
    drop: list(unit),
    abuse: list(unit),
  });
}

const arbSets = fc.record({
  hostingAsns: asnSet.map((s) => new Map(s.map((a) => [a, `H${a}`] as const))),
  dropAsns: asnSet.map((s) => new Set(s)),
  vpnAsnWide: asnSet.map((s) => new Set(s)),
  asnTags: fc.array(fc.tuple(fc.constantFrom(...ASNS), fc.subarray(['dsl', 'mobile', 'satnet', 'vpsh', 'cdn'])), { maxLength: 3 }).map((xs) => new Map(xs.map(([a, t]) => [a, new Set(t)] as const))),
  asnClass: fc.array(fc.tuple(fc.constantFrom(...ASNS), fc.constantFrom('T1', 'Eyeball')), { maxLength: 3 }).map((xs) => new Map(xs)),
  operators: fc.array(fc.tuple(fc.constantFrom(...ASNS), fc.record({ kind: fc.constantFrom('mobile' as const, 'cdn' as const), name: fc.constant('Op'), anycast: fc.boolean(), why: fc.constant('test') })), { maxLength: 2 }).map((xs) => new Map(xs)),
});

type Fam = ReturnType<typeof arbFamily> extends fc.Arbitrary<infer T> ? T : never;
const PREFIX_ROLES = ['routes', 'routesMapped', 'rir', 'bogons', 'unallocated', 'datacenterPublished', 'datacenterInferred', 'tor', 'vpn', 'vpnBroad', 'proxy', 'relay', 'crawlers', 'resolvers', 'drop', 'abuse'] as const;

/** The longest prefix holding x; of equal ones, the later. */
function lpm<V>(ps: readonly Prefix<V>[], version: 4 | 6, x: bigint): V | null {
  let best: Prefix<V> | null = null;
  for (const p of ps) {
    if (p.version !== version) continue;
    const end = p.start + (1n << BigInt(BITS[version] - p.length)) - 1n;
    if (x >= p.start && x <= end && (best === null || p.length >= best.length)) best = p;
  }
  return best === null ? null : best.value;
}
const row = <V>(ivs: readonly Interval<V>[], x: bigint): V | null => ivs.find((iv) => iv.first <= x && x <= iv.last)?.value ?? null;

function answerAt(model: SnapshotModel, version: 4 | 6, x: bigint) {
  const r = version === 4 ? model.v4 : model.v6;
  let i = 0;
  while (i + 1 < r.starts.length && r.starts[i + 1]! <= x) i++;
  const leaf = model.leaves[r.values[i]!]!;
  return { geo: model.geo[leaf.geo]!, network: model.networks[leaf.net]!, signals: model.signals[leaf.sig]! };
}

describe('combine: the model agrees with a per-address reading of the rules', () => {
  it('for random inputs in every role and both families, at every boundary, its neighbours and the ends of the space', () => {
    fc.assert(
      fc.property(arbFamily(4), arbFamily(6), arbSets, fc.boolean(), (f4, f6, sets, roas) => {
        const prefixes = Object.fromEntries(PREFIX_ROLES.map((k) => [k, [...(f4[k] as Prefix<unknown>[]), ...(f6[k] as Prefix<unknown>[])]])) as Pick<CombineInput, (typeof PREFIX_ROLES)[number]>;
        const validate: CombineInput['validate'] = roas ? (_v, start, _l, origin) => (origin === 1 ? 'valid' : (start & 1n) === 0n ? 'invalid' : 'not-found') : null;
        const inp = input({ ...prefixes, ...sets, validate, v4: { geo: f4.geo, asn: f4.asn }, v6: { geo: f6.geo, asn: f6.asn } });
        const { model } = combine(inp);
        for (const version of [4, 6] as const) {
          const fam: Fam = version === 4 ? f4 : f6;
          const ranges = version === 4 ? model.v4 : model.v6;
          // Adjacent ranges never carry the same answer (they would have merged).
          for (let i = 1; i < ranges.values.length; i++) expect(ranges.values[i]).not.toBe(ranges.values[i - 1]);
          const probes = new Set<bigint>([0n, 1n, MAX[version], MAX[version] - 1n]);
          for (const s of ranges.starts) for (const d of [-1n, 0n, 1n]) if (s + d >= 0n && s + d <= MAX[version]) probes.add(s + d);
          for (const p of PREFIX_ROLES.flatMap((k) => fam[k] as Prefix<unknown>[])) {
            const end = p.start + (1n << BigInt(BITS[version] - p.length)) - 1n;
            for (const x of [p.start - 1n, p.start, end, end + 1n]) if (x >= 0n && x <= MAX[version]) probes.add(x);
          }
          for (const x of probes) {
            const route = lpm(fam.routes, version, x);
            const facts: AddressFacts = {
              geo: row(fam.geo, x),
              asn: row(fam.asn, x),
              route: route === null ? null : { origins: route.origins, rpki: route.origins.map((o) => (validate === null ? 'unknown' : validate(version, 0n, 0, o))) },
              mapped: lpm(fam.routesMapped, version, x)?.origins[0] ?? null,
              rir: lpm(fam.rir, version, x),
              bogon: lpm(fam.bogons, version, x) !== null,
              unallocated: lpm(fam.unallocated, version, x) !== null,
              datacenterPublished: lpm(fam.datacenterPublished, version, x),
              datacenterInferred: lpm(fam.datacenterInferred, version, x)?.provider ?? (lpm(fam.datacenterInferred, version, x) === null ? null : ''),
              tor: lpm(fam.tor, version, x) !== null,
              vpn: lpm(fam.vpn, version, x)?.brand ?? (lpm(fam.vpn, version, x) === null ? null : ''),
              vpnBroad: lpm(fam.vpnBroad, version, x)?.brand ?? (lpm(fam.vpnBroad, version, x) === null ? null : ''),
              proxy: lpm(fam.proxy, version, x) !== null,
              relay: lpm(fam.relay, version, x)?.provider ?? null,
              crawler: lpm(fam.crawlers, version, x)?.name ?? null,
              resolver: lpm(fam.resolvers, version, x) !== null,
              drop: lpm(fam.drop, version, x) !== null,
              abuse: lpm(fam.abuse, version, x) !== null,
              bgpTable: fam.routes.length > 0,
            };
            // The validator above reads the route's start: give it the route's own.
            if (route !== null && validate !== null) {
              const rp = fam.routes.filter((p) => p.value === route);
              const start = rp[0]!.start;
              (facts as { route: unknown }).route = { origins: route.origins, rpki: route.origins.map((o) => validate(version, start, 0, o)) };
            }
            const want = classify(facts, inp, validate !== null);
            expect(answerAt(model, version, x), `IPv${version} ${x}`).toEqual({ geo: want.geo, network: want.network, signals: want.signals });
          }
        }
      }),
    );
  });
});
