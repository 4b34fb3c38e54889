#!/usr/bin/env node
// Experiment (issue 13, sixteenth round): two or more builds of
// @ipintel/server, each started as `startServer` in its own process, loaded
// in alternating rounds (each round takes them in the other order) by
// autocannon in this process: GET /v1/check?ip=8.8.8.8 with a key, 10
// keep-alive connections, as `pnpm bench`'s section 5. Prints, per build and
// round, req/s, the server process's CPU per request (user + system) and
// the p99 latency. Not part of `pnpm bench`; docs/design.md ("Sixteenth
// round") quotes its output. Keep a copy of a build before a change, inside
// packages/server (so that it finds @ipintel/core and its dependencies):
//
//   cp packages/server/dist/index.js packages/server/dist/before.js
//   (change, then: pnpm -C packages/server build)
//   node tools/bench/experiments/servers-side-by-side.mjs packages/server/dist/before.js packages/server/dist/index.js [--rounds 6] [--seconds 5] [--snapshot PATH]
//
// The snapshot defaults to the server benchmark's one-network snapshot
// (packages/server/bench/shared.mjs); every server shares one SQLite
// store in a temporary folder and one key.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { answerCpu, load, measured, snapshotBytes } from '../../../packages/server/bench/shared.mjs';

const serverPackage = new URL('../../../packages/server/package.json', import.meta.url);

if (process.env.IPINTEL_SIDE_BY_SIDE_CHILD !== undefined) {
  // A server: the build named in the environment, answering 'cpu' with its CPU time so far (us).
  const { build, snapshot, store } = JSON.parse(process.env.IPINTEL_SIDE_BY_SIDE_CHILD);
  const server = await import(pathToFileURL(build).href);
  const s = await server.startServer({ port: 0, snapshotPath: snapshot, store, activationDelayMs: 0, rateLimit: false, sighup: false });
  process.send({ port: s.port });
  answerCpu();
  process.on('disconnect', () => void s.close().then(() => process.exit(0)));
} else {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { rounds: { type: 'string', default: '6' }, seconds: { type: 'string', default: '5' }, snapshot: { type: 'string' } },
  });
  if (positionals.length < 1) {
    console.error('usage: servers-side-by-side.mjs BUILD.js [BUILD.js ...] [--rounds N] [--seconds S] [--snapshot PATH]');
    process.exit(2);
  }
  const builds = positionals.map((p) => resolve(p));
  const requireS = createRequire(serverPackage);
  const autocannon = requireS('autocannon');
  const server = await import(pathToFileURL(builds[0]).href);
  const writer = await import(pathToFileURL(requireS.resolve('@ipintel/core/writer')).href);
  const dir = mkdtempSync(join(tmpdir(), 'ipintel-servers-'));
  try {
    const snapshot = values.snapshot ?? join(dir, 'bench.ipintel');
    if (values.snapshot === undefined) writeFileSync(snapshot, snapshotBytes(writer));
    const store = `sqlite:${join(dir, 'store.sqlite')}`;
    const s = await server.openStore(store);
    const { key } = await server.createKey(s, { plan: 'scale', plans: server.resolvePlans(), now: 0 });
    await s.close();

    const servers = [];
    for (const build of builds) {
      const env = { ...process.env, IPINTEL_SIDE_BY_SIDE_CHILD: JSON.stringify({ build, snapshot, store }) };
      const child = fork(new URL(import.meta.url).pathname, [], { env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      const port = await new Promise((res, rej) => {
        child.once('message', (m) => res(m.port));
        child.once('exit', (c) => rej(new Error(`${build} exited with ${c}`)));
      });
      servers.push({ build, child, port, rounds: [] });
    }
    const run = (port, duration) =>
      load(autocannon, { url: `http://127.0.0.1:${port}/v1/check?ip=8.8.8.8`, connections: 10, duration, headers: { 'x-api-key': key } });
    for (const sv of servers) await run(sv.port, 2); // warm-up
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const sv of round % 2 === 0 ? servers : [...servers].reverse()) {
        const r = await measured(sv.child, () => run(sv.port, Number(values.seconds)));
        if (r.non2xx > 0 || r.errors > 0) throw new Error(`${sv.build}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
        sv.rounds.push(`${Math.round(r.requests.average)} req/s ${r.cpuPerRequest.toFixed(1)} us p99 ${r.latency.p99} ms`);
      }
    }
    console.log(`autocannon 10 connections, ${values.seconds} s per round, ${values.rounds} alternating rounds; snapshot ${values.snapshot ?? 'one network'}`);
    for (const sv of servers) {
      console.log(`${sv.build}: ${sv.rounds.join(' | ')}`);
      sv.child.disconnect();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
