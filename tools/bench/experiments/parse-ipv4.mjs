#!/usr/bin/env node
// Experiment (issue 13, fourteenth round): the IPv4 parse of two or more
// builds of @ipintel/core, side by side in one process. Not part of
// `pnpm bench`; docs/design.md ("Fourteenth round") quotes it.
//
//   node tools/bench/experiments/parse-ipv4.mjs DIST_A DIST_B [...] [--reps 4]
//
// Each build's `parseAddress` (its IPv4 parse, plus the small object it
// returns) on 4,096 random public addresses read over and over (the texts
// stay in the cache: what is timed is the parse's own work), and each
// build's `check()` on 1,000 such addresses over and over (a hot check, of
// which the parse was half), each in a caller's loop compiled for that build.
// A build may be listed twice: the same module (import() of one path gives
// one), timed in a loop of its own per listing, so the listings' spread is the
// run's noise. To also vary where the code sits, list a copy of its directory.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { compiledAlone, flatText, load, loopRates, randomPublicV4, v4Text } from '../common.mjs';

const { values, positionals: dists } = parseArgs({ allowPositionals: true, options: { reps: { type: 'string', default: '4' } } });
if (dists.length < 2) {
  console.error('usage: parse-ipv4.mjs DIST_A DIST_B [...] [--reps 4]');
  process.exit(2);
}
const world = new URL('../../../.cache/world.ipintel', import.meta.url).pathname;
const snapshot = existsSync(world) ? world : new URL('../../../packages/data/world.ipintel', import.meta.url).pathname;
const builds = await Promise.all(dists.map((d) => import(pathToFileURL(resolve(d, 'index.js')).href)));
const intels = builds.map((b) => b.openSync(snapshot));
const names = dists.map((_, k) => String.fromCharCode(65 + k));
const PARSE = 4096;
const ROUNDS_OF = 100; // the 4,096 texts 100 times a round
const texts = Array.from(randomPublicV4(PARSE, 11), (n) => flatText(v4Text(n)));
const hot = texts.slice(0, 1000);
const HOT_TIMES = 400;

// The same answers first.
for (const t of texts) {
  const want = builds[0].parseAddress(t).value;
  builds.forEach((b, k) => {
    if (b.parseAddress(t).value !== want) throw new Error(`build ${names[k]} parses ${t} differently`);
  });
}

const parseLoops = {};
const checkLoops = {};
names.forEach((name, k) => {
  const parse = compiledAlone(`parse, build ${name}`, ['parseAddress', 'texts', 'times'], 'let s = 0;\nfor (let r = 0; r < times; r++) for (let i = 0; i < texts.length; i++) s += parseAddress(texts[i]).value;\nreturn s;');
  const check = compiledAlone(`check, build ${name}`, ['intel', 'texts', 'times'], 'let s = 0;\nfor (let r = 0; r < times; r++) for (let i = 0; i < texts.length; i++) s += intel.check(texts[i]).risk.score;\nreturn s;');
  parseLoops[name] = () => parse(builds[k].parseAddress, texts, ROUNDS_OF);
  checkLoops[name] = () => check(intels[k], hot, HOT_TIMES);
});
names.forEach((name, k) => console.log(`${name} = ${dists[k]}`));
const ns = (rate) => `${(1e9 / rate).toFixed(1)} ns`;
for (let rep = 0; rep < Number(values.reps); rep++) {
  const p = loopRates(parseLoops, PARSE * ROUNDS_OF, { orders: 1, rotate: true });
  const c = loopRates(checkLoops, hot.length * HOT_TIMES, { orders: 1, rotate: true });
  const each = (r) => names.map((name) => `${name} ${ns(r[name])} (${(r[names[0]] / r[name]).toFixed(2)}x A's time)`).join(' | ');
  console.log(`parseAddress: ${each(p)} || hot check(): ${each(c)} | load ${load()}`);
}
