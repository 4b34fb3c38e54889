/**
 * The explain sidecar of a build (core's explain/format.ts): what each
 * role's source said, from the combiner's input and the provenance
 * roles.ts recorded. Values are the ones the combiner reads (routes carry
 * the RPKI status of each origin, as combine.ts computes it), so core can
 * run the precedence rules again at one address and get the snapshot's
 * answer. Two things are left to the snapshot to keep the file small: geo
 * is one span per geo source (the address range its rows cover), not per
 * row, the geo row itself being the snapshot's; and the ASN table keeps
 * ASNs, not names (the name is the snapshot's `as_org`). asmap prefixes
 * that BGP routes cover whole are left out (the rules never read them).
 *
 * @module
 */
import type { RpkiStatus } from '@ipintel/core';
import { encodeSidecar, flattenPrefixes, snapshotIdentity, type AsnSectionInput, type IntervalSectionInput, type PrefixSectionInput, type SnapshotModel } from '@ipintel/core/writer';
import type { AsnRole, CombineInput, Interval, PrefixRole, SourceRun } from '../combine/input.js';
import type { Prefix } from '../feeds/types.js';

type SnapshotMeta = Parameters<typeof snapshotIdentity>[0];

/**
 * The asmap prefixes that hold an address no BGP route holds: where a BGP
 * table routes an address the rules never read the asmap (core's
 * rules/classify.ts), so the rest would only grow the file. Runs are
 * filtered along (`keep` per index).
 */
function withoutRouted<V>(mapped: readonly Prefix<V>[], routes: readonly Prefix<unknown>[]): { prefixes: Prefix<V>[]; keep: boolean[] } {
  const covered = { 4: flattenPrefixes(4, routes.filter((r) => r.version === 4).map((r) => ({ start: r.start, length: r.length, value: 1 })), 0), 6: flattenPrefixes(6, routes.filter((r) => r.version === 6).map((r) => ({ start: r.start, length: r.length, value: 1 })), 0) };
  const keep = mapped.map((p) => {
    const ranges = covered[p.version];
    const last = p.start + (1n << BigInt((p.version === 4 ? 32 : 128) - p.length)) - 1n;
    // The range holding the prefix's first address; the prefix is covered if that range is routed and reaches its last address.
    let lo = 0;
    let hi = ranges.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (ranges.starts[mid]! <= p.start) lo = mid;
      else hi = mid - 1;
    }
    const end = lo + 1 < ranges.starts.length ? ranges.starts[lo + 1]! - 1n : (1n << BigInt(p.version === 4 ? 32 : 128)) - 1n;
    return !(ranges.values[lo] === 1 && end >= last);
  });
  return { prefixes: mapped.filter((_, i) => keep[i]), keep };
}

/** Runs over the entries `keep` says to keep. */
function keptRuns(runs: readonly SourceRun[], keep: readonly boolean[]): SourceRun[] {
  const out: SourceRun[] = [];
  let i = 0;
  for (const r of runs) {
    let n = 0;
    for (let j = 0; j < r.count; j++) if (keep[i + j]) n++;
    i += r.count;
    if (n > 0) out.push({ source: r.source, count: n });
  }
  return out;
}

/** One interval per run: the range a source's (sorted, adjacent) intervals cover. */
function spans<V>(intervals: readonly Interval<V>[], runs: readonly SourceRun[]): { intervals: Interval<null>[]; runs: SourceRun[] } {
  const out: Interval<null>[] = [];
  let i = 0;
  for (const r of runs) {
    if (r.count > 0) out.push({ first: intervals[i]!.first, last: intervals[i + r.count - 1]!.last, value: null });
    i += r.count;
  }
  return { intervals: out, runs: runs.filter((r) => r.count > 0).map((r) => ({ source: r.source, count: 1 })) };
}

/** The sidecar bytes for a snapshot built from `input` (whose meta is `meta`). */
export function sidecarOf(input: CombineInput, model: Pick<SnapshotModel, 'build_date'>, meta: SnapshotMeta, deflate?: (raw: Uint8Array, level: number) => Uint8Array): Uint8Array {
  const p = input.provenance;
  if (p === undefined) throw new TypeError('the explain sidecar needs the provenance build/roles.ts records');
  const str = (v: string | null | undefined): string => v ?? '';
  const rpkiOf = (r: Prefix<unknown>, origins: readonly number[]): RpkiStatus[] =>
    origins.map((o) => (input.validate === null ? 'unknown' : input.validate(r.version, r.start, r.length, o)));
  const section = <V>(role: PrefixRole, prefixes: readonly Prefix<V>[], value: (v: V, p: Prefix<unknown>) => unknown): PrefixSectionInput<never> =>
    ({ role, prefixes, runs: p.prefixes[role], value }) as unknown as PrefixSectionInput<never>;
  const none = (): null => null;
  const mapped = withoutRouted(input.routesMapped, input.routes);
  const prefixes = [
    section('routes', input.routes, (v, r) => ({ origins: v.origins, rpki: rpkiOf(r, v.origins) })),
    { ...section('routesMapped', mapped.prefixes, (v) => v.origins), runs: keptRuns(p.prefixes.routesMapped, mapped.keep) },
    section('rir', input.rir, (v) => ({ date: v.date, country: v.country })),
    section('bogons', input.bogons, none),
    section('unallocated', input.unallocated, none),
    section('datacenterPublished', input.datacenterPublished, (v) => ({ provider: v.provider, cdn: v.cdn, anycast: v.anycast })),
    section('datacenterInferred', input.datacenterInferred, (v) => str(v.provider)),
    section('tor', input.tor, none),
    section('vpn', input.vpn, (v) => str(v.brand)),
    section('vpnBroad', input.vpnBroad, (v) => str(v.brand)),
    section('proxy', input.proxy, none),
    section('relay', input.relay, (v) => v.provider),
    section('crawlers', input.crawlers, (v) => v.name),
    section('resolvers', input.resolvers, none),
    section('drop', input.drop, none),
    section('abuse', input.abuse, none),
  ];
  const intervals: IntervalSectionInput<never>[] = [];
  for (const version of [4, 6] as const) {
    const fam = version === 4 ? input.v4 : input.v6;
    const runs = version === 4 ? p.v4 : p.v6;
    intervals.push({ role: 'asn', version, kind: 'interval', intervals: fam.asn, runs: runs.asn, value: (v: { asn: number }) => v.asn } as unknown as IntervalSectionInput<never>);
    const geo = spans(fam.geo, runs.geo);
    intervals.push({ role: 'geo', version, kind: 'span', intervals: geo.intervals, runs: geo.runs, value: none } as unknown as IntervalSectionInput<never>);
  }
  const asnSection = <V>(role: AsnRole, map: ReadonlyMap<number, V> | ReadonlySet<number>, value: (v: V) => unknown): AsnSectionInput => {
    const pairs: [number, unknown][] = map instanceof Set ? [...(map as ReadonlySet<number>)].map((a) => [a, null]) : [...(map as ReadonlyMap<number, V>)].map(([a, v]) => [a, value(v)]);
    return { role, entries: pairs.map(([a, v]) => [a, v, p.asns[role].get(a)!] as const) };
  };
  const asns: AsnSectionInput[] = [
    asnSection('hostingAsns', input.hostingAsns, (v) => v),
    asnSection('asnClass', input.asnClass, (v) => v),
    asnSection('operators', input.operators, (v) => ({ kind: v.kind, name: v.name, anycast: v.anycast })),
    asnSection('dropAsns', input.dropAsns, () => null),
    asnSection('vpnAsnWide', input.vpnAsnWide, () => null),
    { role: 'asnTags', entries: [...p.asnTags].flatMap(([a, tags]) => [...tags].map(([tag, source]) => [a, tag, source] as const)) },
  ];
  return encodeSidecar({ snapshot: { build_date: model.build_date, identity: snapshotIdentity(meta) }, roas_source: p.roas ?? null, prefixes, intervals, asns }, deflate);
}
