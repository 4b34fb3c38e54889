/**
 * The explain sidecar of a build (core's explain/format.ts): what each
 * role's source said, from the combiner's input and the provenance
 * roles.ts recorded. Values are the ones the combiner reads (routes carry
 * the RPKI status of each origin, as combine.ts computes it), so core can
 * run the precedence rules again at one address and get the snapshot's
 * answer. Geo is stored as one span per geo source (the address range its
 * rows cover), not per row: the geo row itself is the snapshot's.
 *
 * @module
 */
import type { RpkiStatus } from '@ipintel/core';
import { encodeSidecar, snapshotIdentity, type AsnSectionInput, type IntervalSectionInput, type PrefixSectionInput, type SnapshotModel } from '@ipintel/core/writer';
import type { AsnRole, CombineInput, Interval, PrefixRole, SourceRun } from '../combine/input.js';
import type { Prefix } from '../feeds/types.js';

type SnapshotMeta = Parameters<typeof snapshotIdentity>[0];

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
  const prefixes = [
    section('routes', input.routes, (v, r) => ({ origins: v.origins, rpki: rpkiOf(r, v.origins) })),
    section('routesMapped', input.routesMapped, (v) => v.origins),
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
    intervals.push({ role: 'asn', version, kind: 'interval', intervals: fam.asn, runs: runs.asn, value: (v: { asn: number; org: string }) => ({ asn: v.asn, org: v.org }) } as unknown as IntervalSectionInput<never>);
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
  return encodeSidecar({ snapshot: { build_date: model.build_date, identity: snapshotIdentity(meta) }, prefixes, intervals, asns }, deflate);
}
