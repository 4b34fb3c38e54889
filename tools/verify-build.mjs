#!/usr/bin/env node
/**
 * verify-build: accuracy check of a built snapshot (issue #3).
 *
 * For random public addresses (and, for the signals, addresses drawn from
 * every signal feed's own prefixes), compares what the snapshot answers with
 * what the raw sources say, re-derived with simple code that shares nothing
 * with the builder's combiner (no combine/layers/flatten, no core range
 * index). The parts live in tools/verify/:
 *
 * - reference.mjs: geo (mmdb-lib on the DB-IP City Lite MMDB, or the fixture
 *   CSVs), ASN (a binary search over the ip-location-db CSVs, parsed there),
 *   and per role the feeds the builder's registry declares for the build,
 *   read with their declared adapters into per-length hash maps;
 * - expect.mjs: the facts about one address and the precedence rules of
 *   docs/data.md written out again;
 * - sampling.mjs, tables.mjs, check.mjs, report.mjs, options.mjs.
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
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultSnapshotPath, openSync } from '../packages/core/dist/index.js';
import { feeds as R } from '../packages/builder/dist/index.js';
import { checkAddress, newTally } from './verify/check.mjs';
import { fieldsFor } from './verify/expect.mjs';
import { USAGE, UsageError, parseArgs } from './verify/options.mjs';
import { loadAsn, loadGeo, loadSignals } from './verify/reference.mjs';
import { buildReport, formatText } from './verify/report.mjs';
import { Sampler, feedAddresses, randomAddresses } from './verify/sampling.mjs';
import { PrefixTable, parseText } from './verify/tables.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const log = (m) => process.stderr.write(`${m}\n`);
const t0 = performance.now();
const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(1)}s`;

function usage(message) {
  if (message) process.stderr.write(`verify-build: ${message}\n`);
  process.stderr.write(USAGE);
  process.exit(2);
}

let opt;
try {
  opt = parseArgs(process.argv.slice(2));
} catch (e) {
  if (!(e instanceof UsageError)) throw e;
  usage(e.help ? null : e.message);
}

// ------------------------------------------------------------ the sources

const snapshotPath = resolve(opt.snapshot ?? defaultSnapshotPath());
const feedsDir = resolve(opt.feeds ?? join(repo, '..', 'shared', 'feeds'));
const haveFeeds = existsSync(feedsDir);
const notes = [];
if (!haveFeeds) notes.push(`feeds folder ${feedsDir} not found: only geo and ASN are checked (signals, is_bogon and is_announced are not)`);

// Geo and ASN tables: the npm data packages, unless the feeds folder holds their declared copies (fixture layout) or --geo-csv/--asn-csv say where.
const table = (role) => R.FEEDS.find((f) => f.role === role && f.use === 'build');
const fixtureLayout = haveFeeds && existsSync(join(feedsDir, table('geo').path));
const geoCsvDir = opt.geoCsv ?? (fixtureLayout ? dirname(join(feedsDir, table('geo').path)) : null);
const geo = loadGeo(R.FEEDS, geoCsvDir);
log(`[${elapsed()}] geo: ${geo.source}`);
const asnCopy = join(feedsDir, table('asn').path);
const asn = loadAsn(R.FEEDS, opt.asnCsv ?? (fixtureLayout && existsSync(asnCopy) ? dirname(asnCopy) : null));
if (asn.error) usage(asn.error);
log(`[${elapsed()}] asn: ${asn.source}: ${asn.tables[4].length} IPv4 + ${asn.tables[6].length} IPv6 rows, ${asn.clipped} overlapping row(s) clipped`);

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
// The snapshot's build date decides which VPN lists are too old to count (docs/data.md rule 6).
const signals = loadSignals(haveFeeds ? R.FEEDS : [], feedsDir, intel.info.build_date);
if (haveFeeds) {
  const absent = signals.feedStatus.filter((f) => f.status === 'absent').map((f) => f.id);
  log(`[${elapsed()}] routing: ${signals.tables.route.size} routes, ${signals.tables.mapped.size} asmap prefixes, ${signals.tables.rir.size} RIR prefixes, ${signals.tables.unallocated.size} full-bogon prefixes`);
  log(`[${elapsed()}] feeds: ${signals.feedStatus.length - absent.length} read${absent.length ? `, absent: ${absent.join(', ')}` : ''}`);
}
const ref = {
  ...signals,
  geoLookup: geo.lookup,
  asnAt: (version, x) => asn.tables[version].get(version === 4 ? Number(x) : x),
};

// ------------------------------------------------------------------ checking


const FIELDS = fieldsFor(haveFeeds);
const ctx = { intel, ref, haveFeeds, maxListed: opt.list };

if (opt.ips.length > 0) {
  for (const text of opt.ips) {
    const a = parseText(text);
    if (!a) usage(`not an address: ${text}`);
    const out = checkAddress(ctx, newTally(FIELDS), a.version, a.x, null, true);
    process.stdout.write(`${JSON.stringify(out, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`);
  }
  process.exit(0);
}

// Random addresses avoid special-purpose space: the builder's built-in special-purpose table.
const special = new PrefixTable('iana');
for (const f of R.FEEDS) if (f.role === 'bogon-special' && f.origin === 'built-in') for (const p of f.read(new Uint8Array(0)).prefixes) special.add(p.version, p.start, p.length, true);

const sampler = new Sampler(opt.seed);
const random = randomAddresses(sampler, special, asn.tables[6]);
const tallies = { random: newTally(FIELDS), ...(haveFeeds ? { feed: newTally(FIELDS) } : {}) };
log(`[${elapsed()}] checking ${opt.v4} random IPv4 and ${opt.v6} random IPv6 addresses (seed ${opt.seed})`);
for (let i = 0; i < opt.v4; i++) checkAddress(ctx, tallies.random, 4, random.v4());
const v6Global = Math.ceil(opt.v6 / 2);
for (let i = 0; i < opt.v6; i++) checkAddress(ctx, tallies.random, 6, i < v6Global ? random.v6Global() : random.v6InTable());
if (haveFeeds) {
  sampler.use('feed');
  let n = 0;
  for (const feed of signals.sampleFeeds) {
    for (const a of feedAddresses(sampler, feed, opt.perFeed, asn.tables)) {
      checkAddress(ctx, tallies.feed, a.version, a.x, `${feed.id} (${a.kind})`);
      n++;
    }
  }
  log(`[${elapsed()}] checked ${n} addresses from ${signals.sampleFeeds.length} signal feeds`);
}

// ------------------------------------------------------------------- report

const report = buildReport({
  tallies,
  fields: FIELDS,
  meta: {
    snapshot: snapshotPath,
    build_date: intel.info.build_date,
    feeds: haveFeeds ? feedsDir : null,
    geo_source: geo.source,
    asn_source: asn.source,
    seed: opt.seed,
    notes,
    feed_status: signals.feedStatus,
  },
});
report.seconds = Math.round((performance.now() - t0) / 100) / 10;
if (opt.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else process.stdout.write(formatText(report, { v4: opt.v4, v6: opt.v6, sampleFeeds: signals.sampleFeeds.length }));
process.exit(report.ok ? 0 : 1);

