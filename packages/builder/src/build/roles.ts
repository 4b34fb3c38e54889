/**
 * From feeds read to the combiner's inputs (combine/input.ts), by declared
 * role: every feed of a role goes to that role's input, in registry order
 * (for two identical prefixes the earlier feed's value is kept), with the
 * declared flags applied — `broad` VPN feeds go to the input that yields to
 * more specific sources, `evidence` splits published from inferred
 * datacenter ranges and BGP tables from the asmap, `minLists` is the abuse
 * threshold, and `tag` says which bgp.tools tag list an `asn-tag` feed is
 * (declare.ts's ASN_TAGS: the tags read here). VPN lists past their age
 * limit are left out here, and the evidence keys no feed can decide are
 * listed for the snapshot (`unavailable`).
 * No feed is named here: a change of role is a change of one declaration.
 *
 * @module
 */
import type { Evidence, SourceInfo } from '@ipintel/core';
import type { GeoRow } from '@ipintel/core/writer';
import type { AsnInfo, AsnRole, CombineInput, FamilyRanges, Interval, PrefixRole, Provenance, SourceRun } from '../combine/input.js';
import { isRecentAbuse } from '../feeds/abuse.js';
import type { Role, RoleFound } from '../feeds/declare.js';
import type { Feed } from '../feeds/register.js';
import { buildRoaIndex, validateOrigin } from '../feeds/routing/rpki.js';
import type { FeedResult, Prefix } from '../feeds/types.js';
import { timeOfDataDate } from './future-dates.js';
import type { Loaded, LoadOptions } from './load.js';

type Of<R extends Role> = { readonly feed: Feed; readonly result: FeedResult<RoleFound[R]> };

/**
 * The prefixes of these feeds in registry order, ready for the combiner
 * (the combiner keeps the later of two identical prefixes, the registry
 * lists the most specific first: so reversed); `value` maps each value, or
 * drops the prefix with null. `runs` hears which source row each prefix
 * came from, in the returned order.
 */
function prefixesOf<V, W>(
  list: readonly { readonly feed: Feed; readonly result: { readonly prefixes: Prefix<V>[]; readonly source: SourceInfo } }[],
  value: (v: V, feed: Feed) => W | null,
  runs: SourceRun[],
  rowOf: (s: SourceInfo) => number,
): Prefix<W>[] {
  const out: Prefix<W>[] = [];
  for (const l of list) {
    const before = out.length;
    for (const p of l.result.prefixes) {
      const w = value(p.value, l.feed);
      if (w !== null) out.push(w === p.value ? (p as unknown as Prefix<W>) : { ...p, value: w });
    }
    if (out.length > before) runs.push({ source: rowOf(l.result.source), count: out.length - before });
  }
  runs.reverse();
  return out.reverse();
}

const same = <V>(v: V): V => v;

/** Source rows in registry order; files declared under one `row` make one row, entries summed. */
export function sourceRows(loaded: readonly Loaded[]): SourceInfo[] {
  const byId = new Map<string, SourceInfo>();
  for (const { result } of loaded) {
    const s = result.source;
    const prev = byId.get(s.id);
    byId.set(s.id, prev === undefined ? s : { ...prev, entries: prev.entries + s.entries });
  }
  return [...byId.values()];
}

/** VPN lists older than this at the build date are not used (docs/data.md). */
export const MAX_VPN_AGE_DAYS = 90;

const DAY_MS = 86_400_000;

/**
 * Whole days from a data date's UTC day to the build date's (as
 * allocation_age_days counts); null when the date is unknown. A date-only
 * stamp names a day, not its first moment: counted in exact time, a list
 * dated 90 days before the build would be "90.4 days old" and left out.
 */
function ageDays(dataDate: string | null, buildDate: string): number | null {
  if (dataDate === null) return null;
  const t = timeOfDataDate(dataDate);
  if (Number.isNaN(t)) return null;
  return Math.floor(Date.parse(buildDate) / DAY_MS) - Math.floor(t / DAY_MS);
}

/**
 * The roles that can decide each evidence key: a snapshot built with none
 * of them has no source for that signal, and its results say
 * `unavailable` there (docs/scoring.md) instead of a label they cannot back.
 */
export const EVIDENCE_ROLES: Readonly<Record<keyof Evidence, readonly Role[]>> = {
  connection_type: ['datacenter', 'hosting-asn', 'asn-tag', 'asn-kind'],
  tor: ['tor'],
  vpn: ['vpn'],
  proxy: ['proxy'],
  verified_bot: ['crawler'],
  relay: ['relay'],
  routing: ['routes'],
  allocation: ['allocation'],
  drop_listed: ['drop', 'drop-asn'],
  recent_abuse: ['abuse'],
  public_resolver: ['resolver'],
};

/** Evidence keys no loaded feed can decide, in the order of the Evidence type. */
export function unavailableSignals(loaded: readonly Loaded[]): (keyof Evidence)[] {
  const roles = new Set(loaded.map((l) => l.feed.role));
  return (Object.keys(EVIDENCE_ROLES) as (keyof Evidence)[]).filter((k) => !EVIDENCE_ROLES[k].some((r) => roles.has(r)));
}

/** The newest data date among the sources: the default build date (keeps builds reproducible). */
export function newestDate(sources: readonly SourceInfo[]): string {
  let best = 0;
  for (const s of sources) {
    const t = s.data_date === null ? Number.NaN : timeOfDataDate(s.data_date);
    if (!Number.isNaN(t) && t > best) best = t;
  }
  return new Date(best).toISOString();
}

export function toCombineInput(loaded: readonly Loaded[], options: Pick<LoadOptions, 'buildDate' | 'attributionUrl'>, say: (m: string) => void): CombineInput {
  const of = <R extends Role>(role: R): Of<R>[] => loaded.filter((l) => l.feed.role === role) as unknown as Of<R>[];
  const broad = <R extends Role>(role: R, wanted: boolean): Of<R>[] => of(role).filter((l) => (l.feed.broad ?? false) === wanted);
  const sources = sourceRows(loaded);
  // Source rows are keyed by id (files of one `row` share one): the row index of a feed's result.
  const rowIndex = new Map(sources.map((s, i) => [s.id, i]));
  const rowOf = (s: SourceInfo): number => rowIndex.get(s.id)!;
  const asnSources = {} as Record<AsnRole, Map<number, number>>;
  /** The ASN-keyed entries of these feeds, first kept, with the source row each came from. */
  const asnsOf = <V, W>(role: AsnRole, list: readonly { readonly result: { readonly asns: Map<number, V>; readonly source: SourceInfo } }[], value: (v: V) => W): Map<number, W> => {
    const out = new Map<number, W>();
    const from = (asnSources[role] = new Map<number, number>());
    for (const l of list) {
      for (const [a, v] of l.result.asns) {
        if (out.has(a)) continue;
        out.set(a, value(v));
        from.set(a, rowOf(l.result.source));
      }
    }
    return out;
  };

  let validate: CombineInput['validate'] = null;
  let roasSource: number | null = null;
  for (const l of of('rpki')) {
    say(`indexing ROAs of ${l.feed.id}`);
    roasSource = rowOf(l.result.source);
    const index = buildRoaIndex(l.result.roas);
    validate = (version, start, length, origin) => validateOrigin(index, { version, start, length }, origin);
  }
  // Hosting ASNs from the hosting-ASN lists; the first name stays. (The bgp.tools vpsh and cdn tags are asnTags.)
  const hostingAsns = asnsOf('hostingAsns', of('hosting-asn'), (name) => name ?? '');
  const asnTags = new Map<number, Set<string>>();
  const tagSources = new Map<number, Map<string, number>>();
  for (const l of of('asn-tag')) {
    for (const a of l.result.asns.keys()) {
      let tags = asnTags.get(a);
      if (!tags) asnTags.set(a, (tags = new Set()));
      tags.add(l.feed.tag!);
      let from = tagSources.get(a);
      if (!from) tagSources.set(a, (from = new Map<string, number>()));
      if (!from.has(l.feed.tag!)) from.set(l.feed.tag!, rowOf(l.result.source));
    }
  }
  const asnClass = asnsOf('asnClass', of('as-names'), (v) => v.class);
  const operators = asnsOf('operators', of('asn-kind'), (v) => v);

  const buildDate = options.buildDate ?? newestDate(sources);
  // VPN lists older than MAX_VPN_AGE_DAYS at the build date are left out: servers move, and a stale aggregate
  // marks whoever holds the addresses now (CDN edges, parking hosts) as a VPN. A list that states no date
  // (Proton, Mullvad, PIA) cannot be aged and is used; one whose stated date names no real time (or a time past
  // the build machine's clock: future-dates.ts) is left out: a bad date must not pass a possibly stale list as one
  // of unknown age.
  const fresh = (l: Of<'vpn'>): boolean => {
    if (l.result.dateUnreadable !== undefined) {
      const why = l.result.dateUnreadable === '' ? 'it states no data date, though its format always does' : `its data date ${JSON.stringify(l.result.dateUnreadable)} is not a real date or lies in the future`;
      say(`leaving out ${l.feed.id}: ${why}, so its age is unknown (VPN lists older than ${MAX_VPN_AGE_DAYS} days are not used)`);
      return false;
    }
    const age = ageDays(l.result.source.data_date, buildDate);
    if (age === null || age <= MAX_VPN_AGE_DAYS) return true;
    say(`leaving out ${l.feed.id}: its data is ${age} days old (VPN lists older than ${MAX_VPN_AGE_DAYS} days are not used)`);
    return false;
  };
  // The lists left out are no source of this snapshot: with none left, vpn is unavailable (docs/scoring.md).
  const leftOut = new Set<Loaded>(of('vpn').filter((l) => !fresh(l)));
  const used = (l: Loaded): boolean => !leftOut.has(l);

  const runs = {} as Record<PrefixRole, SourceRun[]>;
  const role = <V, W>(name: PrefixRole, list: Parameters<typeof prefixesOf<V, W>>[0], value: (v: V, feed: Feed) => W | null): Prefix<W>[] =>
    prefixesOf(list, value, (runs[name] = []), rowOf);
  /** Intervals of these feeds in order, with one run per feed. */
  const intervals = <T, V>(list: readonly { readonly result: { readonly source: SourceInfo } }[], items: (l: (typeof list)[number]) => T[], value: (t: T) => Interval<V>, into: SourceRun[]): Interval<V>[] =>
    list.flatMap((l) => {
      const out = items(l).map(value);
      if (out.length > 0) into.push({ source: rowOf(l.result.source), count: out.length });
      return out;
    });
  const familyRuns = { v4: { geo: [] as SourceRun[], asn: [] as SourceRun[] }, v6: { geo: [] as SourceRun[], asn: [] as SourceRun[] } };
  const family = (v: 4 | 6): FamilyRanges => ({
    geo: intervals(
      of('geo').filter((l) => l.result.version === v),
      (l) => (l as Of<'geo'>).result.ranges,
      (r): Interval<GeoRow> => ({ first: r.first, last: r.last, value: r.geo }),
      familyRuns[`v${v}`].geo,
    ),
    asn: intervals(
      of('asn'),
      (l) => (l as Of<'asn'>).result.ranges.filter((r) => r.version === v),
      (r): Interval<AsnInfo> => ({ first: r.first, last: r.last, value: { asn: r.asn, org: r.org } }),
      familyRuns[`v${v}`].asn,
    ),
  });

  const input: Omit<CombineInput, 'provenance'> = {
    v4: family(4),
    v6: family(6),
    routes: role(
      'routes',
      of('routes').filter((l) => l.feed.evidence === 'authoritative'),
      same,
    ),
    routesMapped: role(
      'routesMapped',
      of('routes').filter((l) => l.feed.evidence !== 'authoritative'),
      same,
    ),
    validate,
    rir: role('rir', of('allocation'), (v) => ({ date: v.date, country: v.country })),
    bogons: role('bogons', of('bogon-special'), same),
    unallocated: role('unallocated', of('bogon-unallocated'), same),
    datacenterPublished: role(
      'datacenterPublished',
      of('datacenter').filter((l) => l.feed.evidence === 'authoritative'),
      (v) => (v.provider === null ? null : { provider: v.provider, cdn: v.cdn ?? false, anycast: v.anycast ?? false }),
    ),
    datacenterInferred: role(
      'datacenterInferred',
      of('datacenter').filter((l) => l.feed.evidence === 'inferred'),
      (v) => ({ provider: v.provider }),
    ),
    hostingAsns,
    asnTags,
    asnClass,
    operators,
    tor: role('tor', of('tor'), same),
    vpn: role('vpn', broad('vpn', false).filter(used), (v) => ({ brand: v.brand })),
    vpnBroad: role('vpnBroad', broad('vpn', true).filter(used), (v) => ({ brand: v.brand })),
    vpnAsnWide: new Set(asnsOf('vpnAsnWide', of('vpn-asn'), () => true).keys()),
    proxy: role('proxy', of('proxy'), same),
    relay: role('relay', of('relay'), (v) => ({ provider: v.provider })),
    crawlers: role('crawlers', of('crawler'), (v) => ({ name: v.name })),
    resolvers: role('resolvers', of('resolver'), same),
    drop: role('drop', of('drop'), same),
    dropAsns: new Set(asnsOf('dropAsns', of('drop-asn'), () => true).keys()),
    abuse: role('abuse', of('abuse'), (v, feed) => (isRecentAbuse(feed, v) ? v : null)),
    sources,
    unavailable: unavailableSignals(loaded.filter(used)),
    buildDate,
    attributionUrl: options.attributionUrl,
  };
  const provenance: Provenance = { prefixes: runs, v4: familyRuns.v4, v6: familyRuns.v6, asns: asnSources, asnTags: tagSources, roas: roasSource };
  return { ...input, provenance };
}
