/**
 * From feeds read to the combiner's inputs (combine/input.ts), by declared
 * role: every feed of a role goes to that role's input, in registry order
 * (for two identical prefixes the earlier feed's value is kept), with the
 * declared flags applied — `broad` feeds go to the inputs that yield to more
 * specific sources, `evidence` splits published from inferred datacenter
 * ranges, `minLists` is the abuse threshold, and `tag` says which bgp.tools
 * tag list an `asn-tag` feed is (declare.ts's ASN_TAGS: the tags read here).
 * No feed is named here: a change of role is a change of one declaration.
 *
 * @module
 */
import type { SourceInfo } from '@ipintel/core';
import type { GeoRow } from '@ipintel/core/writer';
import type { AsnInfo, CombineInput, FamilyRanges, Interval } from '../combine/input.js';
import { isRecentAbuse } from '../feeds/abuse.js';
import type { ASN_TAGS, Role, RoleFound } from '../feeds/declare.js';
import type { Feed } from '../feeds/register.js';
import { buildRoaIndex, validateOrigin } from '../feeds/routing/rpki.js';
import type { FeedResult, Prefix } from '../feeds/types.js';
import type { Loaded, LoadOptions } from './load.js';

type Of<R extends Role> = { readonly feed: Feed; readonly result: FeedResult<RoleFound[R]> };

function firstWins<V>(prefixes: Prefix<V>[]): Prefix<V>[] {
  // The combiner keeps the later of two identical prefixes; the registry lists the most specific first.
  return prefixes.reverse();
}

/**
 * The prefixes of these feeds in registry order, ready for the combiner
 * (first kept for identical prefixes); `value` maps each value, or drops
 * the prefix with null.
 */
function prefixesOf<V, W>(
  list: readonly { readonly feed: Feed; readonly result: { readonly prefixes: Prefix<V>[] } }[],
  value: (v: V, feed: Feed) => W | null,
): Prefix<W>[] {
  const out: Prefix<W>[] = [];
  for (const l of list) {
    for (const p of l.result.prefixes) {
      const w = value(p.value, l.feed);
      if (w !== null) out.push(w === p.value ? (p as unknown as Prefix<W>) : { ...p, value: w });
    }
  }
  return firstWins(out);
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

/** The newest data date among the sources: the default build date (keeps builds reproducible). */
export function newestDate(sources: readonly SourceInfo[]): string {
  let best = 0;
  for (const s of sources) {
    const t = s.data_date === null ? Number.NaN : Date.parse(s.data_date.length === 10 ? `${s.data_date}T00:00:00Z` : s.data_date);
    if (!Number.isNaN(t) && t > best) best = t;
  }
  return new Date(best).toISOString();
}

export function toCombineInput(loaded: readonly Loaded[], options: Pick<LoadOptions, 'buildDate' | 'attributionUrl'>, say: (m: string) => void): CombineInput {
  const of = <R extends Role>(role: R): Of<R>[] => loaded.filter((l) => l.feed.role === role) as unknown as Of<R>[];
  const broad = <R extends Role>(role: R, wanted: boolean): Of<R>[] => of(role).filter((l) => (l.feed.broad ?? false) === wanted);
  const tagged = (tag: keyof typeof ASN_TAGS): Of<'asn-tag'>[] => of('asn-tag').filter((l) => l.feed.tag === tag);
  const asnSet = (list: readonly { readonly result: { readonly asns: Map<number, unknown> } }[]): Set<number> =>
    new Set(list.flatMap((l) => [...l.result.asns.keys()]));

  let validate: CombineInput['validate'] = null;
  for (const l of of('rpki')) {
    say(`indexing ROAs of ${l.feed.id}`);
    const index = buildRoaIndex(l.result.roas);
    validate = (version, start, length, origin) => validateOrigin(index, { version, start, length }, origin);
  }
  // Hosting ASNs: the hosting-ASN lists first, then the bgp.tools vpsh tag; the first name stays.
  const hostingAsns = new Map<number, string>();
  for (const l of [...of('hosting-asn'), ...tagged('vpsh')]) for (const [a, name] of l.result.asns) if (!hostingAsns.has(a)) hostingAsns.set(a, name ?? '');

  const family = (v: 4 | 6): FamilyRanges => ({
    geo: of('geo')
      .filter((l) => l.result.version === v)
      .flatMap((l) => l.result.ranges.map((r): Interval<GeoRow> => ({ first: r.first, last: r.last, value: r.geo }))),
    asn: of('asn').flatMap((l) =>
      l.result.ranges.filter((r) => r.version === v).map((r): Interval<AsnInfo> => ({ first: r.first, last: r.last, value: { asn: r.asn, org: r.org } })),
    ),
  });

  const sources = sourceRows(loaded);
  return {
    v4: family(4),
    v6: family(6),
    routes: prefixesOf(of('routes'), same),
    validate,
    rir: prefixesOf(of('allocation'), (v) => ({ date: v.date, country: v.country })),
    bogons: prefixesOf(of('bogon-special'), same),
    unallocated: prefixesOf(of('bogon-unallocated'), same),
    datacenterPublished: prefixesOf(
      of('datacenter').filter((l) => l.feed.evidence === 'authoritative'),
      (v) => (v.provider === null ? null : { provider: v.provider }),
    ),
    datacenterInferred: prefixesOf(
      of('datacenter').filter((l) => l.feed.evidence === 'inferred'),
      (v) => ({ provider: v.provider }),
    ),
    hostingAsns,
    tor: prefixesOf(of('tor'), same),
    vpn: prefixesOf(broad('vpn', false), (v) => ({ brand: v.brand })),
    vpnBroad: prefixesOf(broad('vpn', true), same),
    vpnAsns: asnSet(of('vpn-asn')),
    proxy: prefixesOf(of('proxy'), same),
    relay: prefixesOf(of('relay'), (v) => ({ provider: v.provider })),
    crawlers: prefixesOf(of('crawler'), (v) => ({ name: v.name })),
    resolvers: prefixesOf(of('resolver'), same),
    drop: prefixesOf(of('drop'), same),
    dropAsns: asnSet(of('drop-asn')),
    abuse: prefixesOf(broad('abuse', false), (v, feed) => (isRecentAbuse(feed, v) ? v : null)),
    abuseBroad: prefixesOf(broad('abuse', true), same),
    mobileAsns: asnSet(tagged('mobile')),
    satelliteAsns: asnSet(tagged('satnet')),
    sources,
    buildDate: options.buildDate ?? newestDate(sources),
    attributionUrl: options.attributionUrl,
  };
}
