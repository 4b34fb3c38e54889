#!/usr/bin/env node
// Experiment (issue 13, twenty-first round): the load of two or more builds
// of @ipintel/core, each in fresh processes taken in alternating order: the
// import, `openSync()` (or `open()`) of the snapshot and the first check, as
// `pnpm bench` section 3 times it, with the process's CPU (every thread) and
// RSS right after. Not part of `pnpm bench`; docs/design.md quotes its
// output. Keep a copy of a build before a change, rebuild, and compare:
//
//   cp -r packages/core/dist /tmp/before
//   (change, then: pnpm -C packages/core build)
//   node tools/bench/experiments/loads-side-by-side.mjs /tmp/before packages/core/dist [--rounds 10] [--snapshot PATH] [--async] [--preload]
//
// The snapshot defaults to the bench's (.cache/world.ipintel, `pnpm world`).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runAlternating, sideBySideArgs, spread } from './fresh-processes.mjs';

if (process.env.IPINTEL_LOAD_CHILD !== undefined) {
  // One load: the build named in the environment.
  const { index, snapshot, async: isAsync, preload } = JSON.parse(process.env.IPINTEL_LOAD_CHILD);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const core = await import(pathToFileURL(index).href);
  const options = preload ? { preload: true } : undefined;
  const intel = isAsync ? await core.open(snapshot, options) : core.openSync(snapshot, options);
  intel.check('8.8.8.8');
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  process.stdout.write(JSON.stringify({ ms, cpu: (c.user + c.system) / 1000, rss: process.memoryUsage().rss / 1048576 }));
} else {
  const { values, positionals, rounds } = sideBySideArgs('loads-side-by-side.mjs DIST [DIST ...] [--rounds N] [--snapshot PATH] [--async] [--preload]', 10, {
    async: { type: 'boolean', default: false },
    preload: { type: 'boolean', default: false },
  });
  const builds = positionals.map((d) => ({ dir: d, index: resolve(d, 'index.js'), runs: [] }));
  for (const b of builds) if (!existsSync(b.index)) throw new Error(`no build at ${b.index}`);
  runAlternating(import.meta.url, 'IPINTEL_LOAD_CHILD', builds, rounds, (b) => ({ index: b.index, snapshot: values.snapshot, async: values.async, preload: values.preload }));
  console.log(`${values.async ? 'open()' : 'openSync()'}${values.preload ? ' with preload' : ''} + first check, import included; ${values.snapshot}; ${rounds} alternating rounds`);
  for (const b of builds) {
    console.log(`${b.dir}: wall ${spread(b.runs.map((r) => r.ms), 0)} ms, CPU ${spread(b.runs.map((r) => r.cpu), 0)} ms, RSS ${spread(b.runs.map((r) => r.rss), 0)} MB`);
  }
}
