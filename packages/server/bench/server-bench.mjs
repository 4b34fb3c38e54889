// Server benchmark: a bare node:http server answering a fixed JSON body
// versus ipintel's GET /v1/check (key check + atomic quota counting on the
// SQLite store, access log written), in alternating rounds (the best round of
// each counts), then ipintel at half the bare server's
// rate for its p99 latency. Targets: >= 70% of bare rps, p99 < 10 ms at half load.
// A third contender, the floor (shared.mjs), answers the same requests with our
// parts and nothing else (key map, check(), the SQLite store's count, our body
// and headers): what is left of our server when everything that could be cut
// is cut. It is no bound: it reads requests faster, so fewer join a commit's
// group and it may pay more commits a request than ours (docs/design.md,
// "Twenty-fourth round").
// Also the CPU time each server process spent per request (its own
// process.cpuUsage(), user + system), which the machine's other work does not
// inflate as much as it does req/s, and, in this process without sockets, the
// CPU per request of the routing core (app.handle) with and without the access log.
//
// Uses the BUILT packages (keeps @ipintel/core external):
//   (cd packages/core && npx tsup) && (cd packages/server && npx tsup)
//   node packages/server/bench/server-bench.mjs [--duration 10] [--connections 10] [--rounds 3]
//
// Each server runs in its own process; autocannon runs here, on 127.0.0.1 only,
// bounded in time. Prints a Markdown table.
import { fork } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { answerCpu, load, measured, serveBare, serveFloor, snapshotBytes, withoutPort } from './shared.mjs';

const here = new URL('.', import.meta.url);

async function importBuilt() {
  try {
    const server = await import(new URL('../dist/index.js', here).href);
    const writer = await import('@ipintel/core/writer');
    return { server, writer };
  } catch (e) {
    console.error(`cannot load the built packages (${e.message}).\nBuild them first: (cd packages/core && npx tsup) && (cd packages/server && npx tsup)`);
    process.exit(1);
  }
}

// ---- child roles -------------------------------------------------------------
const role = process.argv[2];
if (role === '--serve-bare') {
  serveBare(process.argv[3]);
  process.on('disconnect', () => process.exit(0));
} else if (role === '--serve-ipintel') {
  const { server } = await importBuilt();
  const s = await server.startServer({ port: 0, snapshotPath: process.argv[3], store: `sqlite:${process.argv[4]}`, activationDelayMs: 0, rateLimit: false, sighup: false });
  process.send({ port: s.port });
  answerCpu();
  process.on('disconnect', () => void s.close().then(() => process.exit(0)));
} else if (role === '--serve-floor') {
  const { server } = await importBuilt();
  await serveFloor(server, process.argv[3], `sqlite:${process.argv[4]}`);
  process.on('disconnect', () => process.exit(0));
} else {
  await main();
}

/**
 * The routing core without sockets: CPU per app.handle() for GET /v1/check,
 * 10 requests at a time (one counting group each), best of 5 rounds that
 * alternate between an app logging as the standalone server does (serverLogger,
 * one write per event-loop turn, here to /dev/null) and one without an access log.
 */
async function routingCore(server, writer, dir, n = 20_000) {
  const snapshot = snapshotBytes(writer);
  const variants = {
    'with the access log': () => server.serverLogger(server.turnBuffered(openSync('/dev/null', 'w'))),
    'without the access log': () => false,
  };
  const apps = [];
  for (const [name, logger] of Object.entries(variants)) {
    const store = `sqlite:${join(dir, `core-${apps.length}.sqlite`)}`;
    const s = await server.openStore(store);
    const { key } = await server.createKey(s, { plan: 'scale', plans: server.resolvePlans(), now: 0 });
    await s.close();
    const app = server.createApp({ snapshot, store, activationDelayMs: 0, rateLimit: false, logger: logger(), watch: false });
    await app.ready;
    const req = { method: 'GET', url: '/v1/check?ip=8.8.8.8', headers: { 'x-api-key': key, host: '127.0.0.1' }, remoteAddress: '127.0.0.1', headerCount: 2 };
    apps.push({ name, app, req, best: Number.POSITIVE_INFINITY });
  }
  for (let round = 0; round < 5; round++) {
    for (const a of apps) {
      const c0 = process.cpuUsage();
      for (let i = 0; i < n; i += 10) {
        const answers = await Promise.all(Array.from({ length: 10 }, () => a.app.handle(a.req)));
        if (answers[0].status !== 200) throw new Error(`the routing core answered ${answers[0].status}: ${answers[0].body}`);
      }
      const c = process.cpuUsage(c0);
      a.best = Math.min(a.best, (c.user + c.system) / n);
    }
  }
  for (const a of apps) await a.app.close();
  return apps.map((a) => ({ name: a.name, us: a.best }));
}

// ---- driver ----------------------------------------------------------------
function startChild(args) {
  // stdout to /dev/null: the access log is written (its cost is measured) but not kept.
  const child = fork(new URL(import.meta.url).pathname, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (c) => reject(new Error(`server exited with ${c}`)));
    child.once('message', (m) => resolve({ url: `http://127.0.0.1:${m.port}`, child }));
  });
}

async function main() {
  const { values } = parseArgs({
    options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '10' }, rounds: { type: 'string', default: '3' } },
  });
  const duration = Number(values.duration);
  const roundCount = Math.floor(Number(values.rounds));
  if (!(roundCount >= 1)) throw new Error(`--rounds wants a whole number of rounds, 1 or more (got ${values.rounds})`);
  const connections = Number(values.connections);
  const { server, writer } = await importBuilt();
  const autocannon = (await import('autocannon')).default;

  const dir = mkdtempSync(join(tmpdir(), 'ipintel-bench-'));
  try {
    const snapshotPath = join(dir, 'bench.ipintel');
    writeFileSync(snapshotPath, snapshotBytes(writer));
    const storePath = join(dir, 'store.sqlite');
    const store = await server.openStore(`sqlite:${storePath}`);
    const { key, record } = await server.createKey(store, { plan: 'scale', plans: server.resolvePlans(), now: 0 });
    await store.close();

    const ours = await startChild(['--serve-ipintel', snapshotPath, storePath]);
    const path = '/v1/check?ip=8.8.8.8';
    const headers = { 'x-api-key': key };
    const sample = await fetch(ours.url + path, { headers });
    const body = await sample.text();
    if (sample.status !== 200) throw new Error(`ipintel answered ${sample.status}: ${body}`);
    const bare = await startChild(['--serve-bare', body]);
    const bareBody = await (await fetch(bare.url + path)).text();
    if (bareBody !== body) throw new Error('the contenders do not answer the same body');
    // The floor counts in a store of its own (the same key), so that ours' count below stays ours.
    const floorStorePath = join(dir, 'floor.sqlite');
    const floorStore = await server.openStore(`sqlite:${floorStorePath}`);
    await floorStore.insertKey(record);
    await floorStore.close();
    const floor = await startChild(['--serve-floor', snapshotPath, floorStorePath]);
    // The same body but for the port in the attribution link (each server's own).
    const floorBody = await (await fetch(floor.url + path, { headers })).text();
    if (withoutPort(floorBody) !== withoutPort(body)) throw new Error('the floor does not answer the same body');

    const run = (url, extra = {}) => load(autocannon, { url: url + path, connections, duration, headers, ...extra });
    const check = (r, name) => {
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
    };
    const servers = { bare, ours, floor };
    for (const s of Object.values(servers)) await run(s.url, { duration: 2 }); // warm-ups
    // Rounds in turn, each starting with the next server: a burst of the machine's other work
    // then slows one run of each rather than the one run of one server (it made a single pair of
    // runs read 43.7% and 85.9% on the same code). Each server's best round counts.
    const rounds = [];
    const names = Object.keys(servers);
    for (let r = 0; r < roundCount; r++) {
      const order = names.map((_, i) => names[(i + r) % names.length]);
      const pair = {};
      for (const who of order) {
        pair[who] = await measured(servers[who].child, () => run(servers[who].url));
        check(pair[who], who === 'ours' ? 'ipintel' : who);
      }
      rounds.push(pair);
    }
    const best = (who) => rounds.map((p) => p[who]).reduce((a, b) => (b.requests.average > a.requests.average ? b : a));
    const bareRes = best('bare');
    const oursRes = best('ours');
    const floorRes = best('floor');
    const half = Math.round(bareRes.requests.average / 2);
    const halfRes = await run(ours.url, { overallRate: half });
    check(halfRes, 'ipintel at half load');

    const ratio = oursRes.requests.average / bareRes.requests.average;
    const perRound = (who) => rounds.map((p) => `${((100 * p[who].requests.average) / p.bare.requests.average).toFixed(1)}%`).join(', ');
    const row = (name, r) => `| ${name} | ${Math.round(r.requests.average)} | ${r.latency.p50} | ${r.latency.p99} | ${r.cpuPerRequest === undefined ? '–' : r.cpuPerRequest.toFixed(1)} |`;
    console.log(
      `\nNode ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}; autocannon ${connections} connections, ${duration} s per run, ` +
        `GET ${path}; ${roundCount} rounds, each started by the next server, each server's best round below\n`,
    );
    console.log('| server | req/s | p50 ms | p99 ms | server CPU per request (us) |');
    console.log('|---|---:|---:|---:|---:|');
    console.log(row('bare node:http, fixed JSON', bareRes));
    console.log(row('ipintel /v1/check (key + quota on SQLite + access log)', oursRes));
    console.log(row('the floor: node:http with our key map, check(), SQLite count, body and headers, nothing else', floorRes));
    console.log(row(`ipintel at half the bare rate (${half} req/s offered)`, halfRes));
    console.log(`\nipintel / bare: ${(ratio * 100).toFixed(1)}% (target >= 70%; round by round: ${perRound('ours')}); p99 at half load: ${halfRes.latency.p99} ms (target < 10 ms)`);
    const floorRatio = floorRes.requests.average / bareRes.requests.average;
    console.log(`floor / bare: ${(floorRatio * 100).toFixed(1)}% (round by round: ${perRound('floor')}): our parts and nothing else, store included (its groups of counts may be smaller than ours: docs/design.md, "Twenty-fourth round")`);
    const verify = await server.openStore(`sqlite:${storePath}`);
    const k = (await verify.listKeys())[0];
    const used = await verify.usage(k.account, server.periodAt('month', Date.now()).key);
    await verify.close();
    console.log(`lookups counted in the store: ${used} (every 200 of the ipintel runs and the sample)`);
    const core = await routingCore(server, writer, dir);
    console.log(`\nThe routing core alone (app.handle in this process, no sockets; key check, SQLite group commit, result JSON), CPU per request, best of 5 rounds side by side: ${core.map((c) => `${c.name} ${c.us.toFixed(1)} us`).join(', ')}.`);
    for (const s of Object.values(servers)) s.child.disconnect();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
