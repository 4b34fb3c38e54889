#!/usr/bin/env node
// Experiment (issue 13, twenty-second round): the raw IPv4 lookup and the
// IPv4 and IPv6 check() of two or more builds of @ipintel/core, each in fresh
// processes taken in alternating order (one build per process: two builds
// in one process would share the bench loop's call site, and V8 would then
// inline neither). Each process loads the snapshot and times a million
// random public addresses, 6 passes of the loop a caller writes
// (`leafOfIPv4(intel, addrs[i])`, then `intel.check(text)`), and 200,000
// random routed IPv6 addresses (`intel.check(text)`, after one IPv6 check
// made the index), CPU time, best pass, as `pnpm bench` sections 1-2 take
// them. Not part of `pnpm bench`;
// docs/design.md quotes its output. Keep a copy of a build before a change:
//
//   cp -r packages/core/dist /tmp/before
//   (change, then: pnpm -C packages/core build)
//   node tools/bench/experiments/lookups-side-by-side.mjs /tmp/before packages/core/dist [--rounds 5] [--snapshot PATH]
//
// The snapshot defaults to the bench's (.cache/world.ipintel, `pnpm world`).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomPublicV4, randomRoutedV6, v4Text } from '../common.mjs';
import { runAlternating, sideBySideArgs, spread } from './fresh-processes.mjs';

const N = 1_000_000;
const N6 = 200_000;
const PASSES = 6;

if (process.env.IPINTEL_LOOKUP_CHILD !== undefined) {
  // One build, in this process alone.
  const { dir, snapshot } = JSON.parse(process.env.IPINTEL_LOOKUP_CHILD);
  const core = await import(pathToFileURL(resolve(dir, 'index.js')).href);
  const { leafOfIPv4 } = await import(pathToFileURL(resolve(dir, 'internal.js')).href);
  const intel = core.openSync(snapshot);
  const addrs = randomPublicV4(N, 7);
  const texts = Array.from(addrs, v4Text);
  const texts6 = randomRoutedV6(N6, 7);
  intel.check(texts6[0]); // the IPv6 index, made on first use
  const raw = () => {
    let sum = 0;
    for (let i = 0; i < addrs.length; i++) sum += leafOfIPv4(intel, addrs[i]);
    return sum;
  };
  const check = () => {
    let sum = 0;
    for (let i = 0; i < texts.length; i++) sum += intel.check(texts[i]).risk.score;
    return sum;
  };
  const check6 = () => {
    let sum = 0;
    for (let i = 0; i < texts6.length; i++) sum += intel.check(texts6[i]).risk.score;
    return sum;
  };
  const loops = { raw: [raw, N], check: [check, N], check6: [check6, N6] };
  const best = { raw: 0, check: 0, check6: 0 };
  let sink = 0;
  for (let p = 0; p < PASSES; p++) {
    for (const [name, [loop, n]] of Object.entries(loops)) {
      const c0 = process.cpuUsage();
      sink += loop();
      const c = process.cpuUsage(c0);
      best[name] = Math.max(best[name], n / (c.user + c.system)); // per microsecond: M/s
    }
  }
  process.stdout.write(JSON.stringify({ ...best, sink }));
} else {
  const { values, positionals, rounds } = sideBySideArgs('lookups-side-by-side.mjs DIST [DIST ...] [--rounds N] [--snapshot PATH]', 5);
  const builds = positionals.map((d) => ({ dir: resolve(d), runs: [] }));
  for (const b of builds) if (!existsSync(resolve(b.dir, 'internal.js'))) throw new Error(`no build at ${b.dir}`);
  runAlternating(import.meta.url, 'IPINTEL_LOOKUP_CHILD', builds, rounds, (b) => ({ dir: b.dir, snapshot: values.snapshot }));
  console.log(
    `${N.toLocaleString('en')} random public IPv4 and ${N6.toLocaleString('en')} routed IPv6 addresses, best of ${PASSES} passes per process; ${values.snapshot}; ${rounds} alternating rounds`,
  );
  for (const b of builds) {
    console.log(`${b.dir}: leafOfIPv4 ${spread(b.runs.map((r) => r.raw), 1)} M/s, check() ${spread(b.runs.map((r) => r.check), 1)} M/s, IPv6 check() ${spread(b.runs.map((r) => r.check6), 1)} M/s`);
  }
}
