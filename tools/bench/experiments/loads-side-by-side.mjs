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
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

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
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      rounds: { type: 'string', default: '10' },
      snapshot: { type: 'string', default: fileURLToPath(new URL('../../../.cache/world.ipintel', import.meta.url)) },
      async: { type: 'boolean', default: false },
      preload: { type: 'boolean', default: false },
    },
  });
  if (positionals.length < 1) {
    console.error('usage: loads-side-by-side.mjs DIST [DIST ...] [--rounds N] [--snapshot PATH] [--async] [--preload]');
    process.exit(2);
  }
  if (!existsSync(values.snapshot)) throw new Error(`no snapshot at ${values.snapshot}: run pnpm world, or pass --snapshot`);
  const builds = positionals.map((d) => ({ dir: d, index: resolve(d, 'index.js'), runs: [] }));
  for (const b of builds) if (!existsSync(b.index)) throw new Error(`no build at ${b.index}`);
  const rounds = Number(values.rounds);
  for (let round = 0; round < rounds; round++) {
    for (const b of round % 2 === 0 ? builds : [...builds].reverse()) {
      const env = { ...process.env, IPINTEL_LOAD_CHILD: JSON.stringify({ index: b.index, snapshot: values.snapshot, async: values.async, preload: values.preload }) };
      b.runs.push(JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url)], { env, encoding: 'utf8' })));
    }
  }
  const spread = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return `${s[0].toFixed(0)}-${s[s.length - 1].toFixed(0)} (median ${s[s.length >> 1].toFixed(0)})`;
  };
  console.log(`${values.async ? 'open()' : 'openSync()'}${values.preload ? ' with preload' : ''} + first check, import included; ${values.snapshot}; ${rounds} alternating rounds`);
  for (const b of builds) {
    console.log(`${b.dir}: wall ${spread(b.runs.map((r) => r.ms))} ms, CPU ${spread(b.runs.map((r) => r.cpu))} ms, RSS ${spread(b.runs.map((r) => r.rss))} MB`);
  }
}
