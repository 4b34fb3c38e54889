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
// --connections (default 10, as the bench) sets autocannon's connections:
// more connections make larger groups (at most one count a connection).
//
// The snapshot defaults to the server benchmark's one-network snapshot
// (packages/server/bench/shared.mjs); every server shares one SQLite
// store in a temporary folder and one key.
//
// Attribution (nineteenth round): a contender may also be `bare` (node:http
// answering the first build's body, as `pnpm bench` section 5's bare server)
// or a build with suffixes: `BUILD.js#nolog` (no access log), `#nostore`
// (counting answered by a store that counts nothing, one setImmediate per
// request), or both:
//
//   node tools/bench/experiments/servers-side-by-side.mjs bare D.js D.js#nolog D.js#nostore D.js#nolog#nostore
//
// Twenty-third round: `#nostore` answers each request on its own, so it also
// loses the batching of answers that the group commit gives (answers written
// together, after a group's requests were all read); `#groupstore` keeps it:
// every count of a group is answered two event-loop turns after the group's
// first, as the SQLite store does, and nothing is written, so the difference
// to the build as it is shows what the SQLite commit itself costs.
// `#journal` is `#groupstore` plus one append of the group's counts to a file
// beside the store (one write system call a group: the floor of a store that
// is durable against a crash of the process). `bare-grouped` is the bare
// server answering in such groups, with the five headers ours sends.
//
// Twenty-fourth round: `BUILD.js#floor` is the least a server with our
// features can do on node:http, made of the build's own parts: the key from
// a per-process map (its hash checked once), core's check(), the count by
// the build's real store (durable, group-committed), and our body and five
// headers. No router, no parameter checks, no access log, no problem
// answers: what is left of our server when everything that could be cut is
// cut (serveFloor in packages/server/bench/shared.mjs, which `pnpm bench` runs
// too). Each round also prints the CPU split into user and system time.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { answerCpu, load, measured, serveBare, serveFloor, snapshotBytes, withoutPort } from '../../../packages/server/bench/shared.mjs';

const serverPackage = new URL('../../../packages/server/package.json', import.meta.url);

/** Queues items and hands each group to `answer` two event-loop turns after its first item, as the SQLite store's group commit. */
function inGroups(answer) {
  let queue = [];
  const flush = () => {
    const group = queue;
    queue = [];
    answer(group);
  };
  return (item) => {
    if (queue.push(item) === 1) setImmediate(() => setImmediate(flush));
  };
}

/** The bare server answering in groups (inGroups), with the headers a counted answer of ours carries. */
function serveBareGrouped(body) {
  const headers = {
    'ratelimit-limit': '10000000',
    'ratelimit-remaining': '9999999',
    'ratelimit-reset': '2342555',
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': String(Buffer.byteLength(body)),
  };
  const answerGroup = inGroups((group) => {
    for (const res of group) {
      res.writeHead(200, headers);
      res.end(body);
    }
  });
  const server = createServer((_req, res) => answerGroup(res));
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  answerCpu();
}

/** Whether a contender is one of the bare servers (no build of ours). */
const isBare = (c) => c === 'bare' || c === 'bare-grouped';

if (process.env.IPINTEL_SIDE_BY_SIDE_CHILD !== undefined) {
  // A server: the build named in the environment, answering 'cpu' with its CPU time so far (us).
  const { contender, snapshot, store, body } = JSON.parse(process.env.IPINTEL_SIDE_BY_SIDE_CHILD);
  if (isBare(contender)) {
    (contender === 'bare' ? serveBare : serveBareGrouped)(body);
    process.on('disconnect', () => process.exit(0));
  } else {
    const [build, ...flags] = contender.split('#');
    const server = await import(pathToFileURL(build).href);
    if (flags.includes('floor')) {
      await serveFloor(server, snapshot, store);
      process.on('disconnect', () => process.exit(0));
    } else {
      const options = { port: 0, snapshotPath: snapshot, store, activationDelayMs: 0, rateLimit: false, sighup: false };
      if (flags.includes('nolog')) options.logger = false;
      // The store doubles are alternatives (#nostore before #groupstore and #journal): one real store is opened.
      if (flags.includes('nostore')) {
        const real = await server.openStore(store);
        options.store = { ...real, consume: () => new Promise((res) => setImmediate(() => res({ outcome: 'ok', used: 0 }))) };
      } else if (flags.includes('groupstore') || flags.includes('journal')) {
        const real = await server.openStore(store);
        const journal = flags.includes('journal') ? openSync(`${store.slice('sqlite:'.length)}.journal`, 'a') : undefined;
        const answerGroup = inGroups((group) => {
          if (journal !== undefined) writeSync(journal, group.map(({ r }) => `${r.account} ${r.period} ${r.n}\n`).join(''));
          for (const { resolve } of group) resolve({ outcome: 'ok', used: 0 });
        });
        options.store = { ...real, consume: (r) => new Promise((resolve) => answerGroup({ r, resolve })) };
      }
      const s = await server.startServer(options);
      process.send({ port: s.port });
      answerCpu();
      process.on('disconnect', () => void s.close().then(() => process.exit(0)));
    }
  }
} else {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { rounds: { type: 'string', default: '6' }, seconds: { type: 'string', default: '5' }, snapshot: { type: 'string' }, connections: { type: 'string', default: '10' } },
  });
  if (positionals.length < 1) {
    console.error('usage: servers-side-by-side.mjs CONTENDER [CONTENDER ...] [--rounds N] [--seconds S] [--snapshot PATH] [--connections C]\n  CONTENDER: bare | bare-grouped | BUILD.js#floor | BUILD.js[#nolog][#nostore|#groupstore|#journal]');
    process.exit(2);
  }
  for (const name of ['rounds', 'seconds', 'connections']) {
    if (!/^[1-9]\d*$/.test(values[name])) {
      console.error(`--${name} takes a positive whole number, got ${JSON.stringify(values[name])}`);
      process.exit(2);
    }
  }
  // A build's path made absolute, its #flags kept.
  const contenders = positionals.map((p) => {
    if (isBare(p)) return p;
    const [file, ...flags] = p.split('#');
    return [resolve(file), ...flags].join('#');
  });
  const builds = contenders.filter((c) => !isBare(c)).map((c) => c.split('#')[0]);
  if (builds.length === 0) throw new Error('name at least one build (bare answers the first build\'s body)');
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
    let body;
    // Builds first: the bare server answers the body of the first.
    for (const contender of [...contenders.filter((c) => !isBare(c)), ...contenders.filter(isBare)]) {
      const env = { ...process.env, IPINTEL_SIDE_BY_SIDE_CHILD: JSON.stringify({ contender, snapshot, store, body }) };
      const child = fork(new URL(import.meta.url).pathname, [], { env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      const port = await new Promise((res, rej) => {
        child.once('message', (m) => res(m.port));
        child.once('exit', (c) => rej(new Error(`${contender} exited with ${c}`)));
      });
      const answer = await (await fetch(`http://127.0.0.1:${port}/v1/check?ip=8.8.8.8`, { headers: { 'x-api-key': key } })).text();
      // Every build (the floor too) must answer what the first does, but for its port in the attribution link.
      if (body !== undefined && !isBare(contender) && withoutPort(answer) !== withoutPort(body)) throw new Error(`${contender} answers differently from the first build`);
      body ??= answer;
      servers.push({ build: contender, child, port, rounds: [], rps: [], cpu: [] });
    }
    const run = (port, duration) =>
      load(autocannon, { url: `http://127.0.0.1:${port}/v1/check?ip=8.8.8.8`, connections: Number(values.connections), duration, headers: { 'x-api-key': key } });
    for (const sv of servers) await run(sv.port, 2); // warm-up
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const sv of round % 2 === 0 ? servers : [...servers].reverse()) {
        const r = await measured(sv.child, () => run(sv.port, Number(values.seconds)));
        if (r.non2xx > 0 || r.errors > 0) throw new Error(`${sv.build}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
        sv.rounds.push(`${Math.round(r.requests.average)} req/s ${r.cpuPerRequest.toFixed(1)} us (user ${r.userPerRequest.toFixed(1)}, system ${r.systemPerRequest.toFixed(1)}) p99 ${r.latency.p99} ms`);
        sv.rps.push(r.requests.average);
        sv.cpu.push(r.cpuPerRequest);
      }
    }
    console.log(`autocannon ${values.connections} connections, ${values.seconds} s per round, ${values.rounds} alternating rounds; snapshot ${values.snapshot ?? 'one network'}`);
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    for (const sv of servers) {
      console.log(`${sv.build}: ${sv.rounds.join(' | ')}`);
      console.log(`  median ${Math.round(median(sv.rps))} req/s, ${median(sv.cpu).toFixed(1)} us CPU per request`);
      sv.child.disconnect();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
