// The raw sources as verify-build sees them, built without the builder's
// combiner: the geo and ASN tables read with mmdb-lib and our own CSV readers,
// and one prefix table (or ASN map) per signal, filled from the feeds the
// builder's registry declares for the build (role, `broad`, `minLists`, `tag`,
// `evidence`), each read with its declared adapter. Which feeds exist and what
// they are comes from the registry; what the roles mean is written out again here.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { PrefixTable, RangeTable, parseText, readAsnCsv, readGeoCsv, lines, csvFields } from './tables.mjs';

const requireB = createRequire(new URL('../../packages/builder/package.json', import.meta.url));

/** An npm data package's file and version. */
function npmFile(pkg, file) {
  const dir = dirname(requireB.resolve(`${pkg}/package.json`));
  return { path: join(dir, file), version: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version };
}

/** The IP version of a DB-IP CSV: that of its first readable range. */
function csvVersion(text) {
  for (const line of lines(text)) {
    const a = csvFields(line)?.[0];
    const p = a === undefined ? null : parseText(a);
    if (p) return p.version;
  }
  return 4;
}

/**
 * The geo table: per IP version, a lookup (version, x, text) -> DB-IP record.
 * The declared CSV copies when `csvDir` is given, else the npm MMDB files.
 */
export function loadGeo(feeds, csvDir) {
  const geo = feeds.filter((f) => f.role === 'geo');
  if (csvDir !== null) {
    const files = geo.map((f) => join(csvDir, basename(f.path)));
    const t = {};
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const v = csvVersion(text);
      t[v] = readGeoCsv(text, v);
    }
    return { source: `CSV ${files.join(', ')}`, lookup: (version, x) => t[version]?.get(version === 4 ? Number(x) : x) ?? null };
  }
  const { Reader } = requireB('mmdb-lib');
  const readers = {};
  let label = '';
  for (const f of geo) {
    const { path, version } = npmFile(f.npm.package, f.npm.file);
    const reader = new Reader(readFileSync(path));
    readers[reader.metadata.ipVersion] = reader;
    label = `mmdb-lib on ${f.npm.package} ${version}`;
  }
  return { source: label, lookup: (version, _x, text) => readers[version].get(text) };
}

/** The ASN table as RangeTables per IP version: the declared CSV copies in `csvDir`, else the npm files. */
export function loadAsn(feeds, csvDir) {
  const decls = feeds.filter((f) => f.role === 'asn' && f.use === 'build');
  let files;
  let source;
  if (csvDir !== null) {
    files = decls.map((f) => [join(csvDir, basename(f.path)), join(csvDir, f.npm.file)].find((p) => existsSync(p)));
    if (files.some((f) => f === undefined)) return { error: `no ip-location-db ASN CSVs in ${csvDir}` };
    source = `CSV ${files.join(', ')}`;
  } else {
    const npm = decls.map((f) => npmFile(f.npm.package, f.npm.file));
    files = npm.map((n) => n.path);
    source = `${decls[0].npm.package} ${npm[0].version} (${decls.map((f) => f.npm.file).join(', ')})`;
  }
  const tables = { 4: new RangeTable(), 6: new RangeTable() };
  let clipped = 0;
  for (const f of files) clipped += readAsnCsv(readFileSync(f, 'utf8'), tables).clipped;
  return { source, tables, clipped };
}

/** The signal tables, empty. */
export function emptyRoles() {
  const T = (name) => new PrefixTable(name);
  return {
    tables: {
      special: T('special-purpose bogons (IANA table, ipinfo)'),
      unallocated: T('unallocated (full bogons)'),
      route: T('routes (BGP tables)'),
      mapped: T('routes (asmap)'),
      rir: T('RIR delegations'),
      dcPublished: T('published datacenter'),
      dcInferred: T('inferred datacenter'),
      tor: T('tor'),
      vpn: T('vpn (per server)'),
      vpnBroad: T('vpn (broad)'),
      proxy: T('proxy'),
      relay: T('relay'),
      crawler: T('crawler'),
      resolver: T('resolver'),
      drop: T('drop'),
      abuse: T('abuse'),
    },
    asnSets: { vpnWide: new Map(), drop: new Map(), hosting: new Map(), tags: new Map(), cls: new Map(), operators: new Map() },
  };
}

function addPrefixes(table, prefixes, valueOf = () => true, keep = () => true) {
  for (const p of prefixes) if (keep(p.value)) table.add(p.version, p.start, p.length, valueOf(p.value));
}
function addAsns(map, asns, valueOf = (v) => v) {
  for (const [a, v] of asns) if (!map.has(a)) map.set(a, valueOf(v));
}

/** VPN lists older than this many days at the build date are not used (docs/data.md rule 6). */
export const VPN_MAX_AGE_DAYS = 90;

/**
 * Adds one feed's entries to the signal tables by its declared role, the way
 * the product's rules (docs/data.md) say; returns whether the feed is a
 * signal feed whose own entries are sampled. `later` collects what must be
 * added after every other feed (none today). `buildDate` (ISO) drops stale VPN lists.
 */
export function addFeed(roles, feed, result, later, buildDate = null) {
  const { tables: t, asnSets: a } = roles;
  const p = result.prefixes;
  switch (feed.role) {
    case 'bogon-special':
      addPrefixes(t.special, p);
      return feed.origin !== 'built-in';
    case 'bogon-unallocated':
      addPrefixes(t.unallocated, p);
      return true;
    case 'routes':
      // BGP tables are authoritative; the asmap (inferred) only where no BGP table covers an address.
      addPrefixes(feed.evidence === 'authoritative' ? t.route : t.mapped, p, (v) => v.origins);
      return false;
    case 'allocation':
      addPrefixes(t.rir, p);
      return false;
    case 'datacenter':
      // Published (authoritative) ranges name their provider; inferred ones may not.
      if (feed.evidence === 'authoritative') addPrefixes(t.dcPublished, p, (v) => ({ provider: v.provider, cdn: v.cdn === true, anycast: v.anycast === true }), (v) => v.provider !== null);
      else addPrefixes(t.dcInferred, p, (v) => v.provider ?? '');
      return true;
    case 'hosting-asn':
      addAsns(a.hosting, result.asns, (name) => name ?? '');
      return true;
    case 'asn-tag':
      for (const asn of result.asns.keys()) {
        if (!a.tags.has(asn)) a.tags.set(asn, new Set());
        a.tags.get(asn).add(feed.tag);
      }
      return true;
    case 'as-names':
      addAsns(a.cls, result.asns, (v) => v.class);
      return false;
    case 'asn-kind':
      addAsns(a.operators, result.asns);
      return false;
    case 'tor':
    case 'proxy':
    case 'resolver':
    case 'drop':
      addPrefixes(t[feed.role], p);
      return true;
    case 'relay':
      addPrefixes(t.relay, p, (v) => v.provider);
      return true;
    case 'crawler':
      addPrefixes(t.crawler, p, (v) => v.name);
      return true;
    case 'vpn': {
      const date = result.source.data_date;
      const age = date === null || buildDate === null ? null : (Date.parse(buildDate) - Date.parse(date.length === 10 ? `${date}T00:00:00Z` : date)) / 86_400_000;
      if (age !== null && age > VPN_MAX_AGE_DAYS) return false;
      addPrefixes(feed.broad ? t.vpnBroad : t.vpn, p, (v) => v.brand ?? '');
      return true;
    }
    case 'vpn-asn':
      addAsns(a.vpnWide, result.asns, (v) => ({ feed: feed.id, ...v }));
      return false;
    case 'drop-asn':
      addAsns(a.drop, result.asns, (v) => ({ feed: feed.id, value: v }));
      return true;
    case 'abuse':
      // Each list counts from its declared list threshold up.
      addPrefixes(t.abuse, p, () => true, (v) => v.lists >= (feed.minLists ?? 1));
      return true;
    default:
      return false; // rpki, geo, asn: not compared here
  }
}

/**
 * Reads every build feed of the registry from `feedsDir` (built-in tables
 * from the builder) into the signal tables. Returns the tables, the feeds to
 * sample and each feed's status.
 */
export function loadSignals(feeds, feedsDir, buildDate = null) {
  const roles = emptyRoles();
  const sampleFeeds = [];
  const feedStatus = [];
  const later = [];
  for (const feed of feeds) {
    if (feed.use !== 'build' || feed.origin === 'npm' || feed.role === 'rpki') continue;
    let bytes = new Uint8Array(0);
    if (feed.origin === 'feeds') {
      const file = join(feedsDir, feed.path);
      if (!existsSync(file)) {
        feedStatus.push({ id: feed.id, status: 'absent' });
        continue;
      }
      bytes = new Uint8Array(readFileSync(file));
    }
    const result = feed.read(bytes);
    feedStatus.push({ id: feed.id, status: 'read', entries: result.source.entries });
    if (addFeed(roles, feed, result, later, buildDate)) sampleFeeds.push(result.prefixes ? { id: feed.id, prefixes: result.prefixes } : { id: feed.id, asns: result.asns });
  }
  for (const add of later) add();
  return { ...roles, sampleFeeds, feedStatus };
}
