// Hot reload under load: while 8 clients check 8.8.8.8, the served file is
// replaced again and again by a valid build (atomic rename), a truncated
// copy, a bit-flipped copy, and a copy written in place in pieces (not
// atomic, as `cp` does). No request may fail, and every answer must be the
// valid one (nothing is served from a damaged file).
import { copyFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { overwriteInPlace } from '../../../packages/testkit/dist/index.js';
import { client, load } from '../lib/http.mjs';
import { sleep, startServerProcess } from '../lib/processes.mjs';
import { mib, newKey, serverOptions } from '../lib/setup.mjs';

function atomically(path, bytes) {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, path);
}

export async function reload(ctx) {
  const seconds = ctx.quick ? 5 : 20;
  const path = join(ctx.work, 'served.ipintel');
  copyFileSync(ctx.snapshots.a.path, path);
  const spec = `sqlite:${join(ctx.work, 'reload.sqlite')}`;
  const server = await startServerProcess(ctx.work, 'reload', serverOptions(path, spec, { pollIntervalMs: 100, logLevel: 'info' }));
  const k = await newKey(spec);
  const probe = client();
  const expected = (await probe.send(`${server.url}/v1/check?ip=8.8.8.8`, { headers: k.headers })).body;
  const rssBefore = await server.rss();
  // Every answer must be the valid one: a wrapped load that also compares bodies.
  const run = load({ url: server.url, clients: 8, headers: k.headers });
  const swaps = { valid: 0, truncated: 0, flipped: 0, inPlace: 0 };
  // Alongside the load: compares answers with the valid one, and sees which build is served.
  const check = { stop: false, ok: 0, wrong: 0, dates: new Set() };
  const checker = (async () => {
    const c = client();
    while (!check.stop) {
      const res = await c.send(`${server.url}/v1/check?ip=8.8.8.8`, { headers: k.headers });
      if (res.status === 200) check.ok++;
      if (res.status !== 200 || res.body !== expected) check.wrong++;
      check.dates.add(JSON.parse((await c.send(`${server.url}/healthz`)).body).snapshot.build_date);
      await sleep(5);
    }
    c.close();
  })();
  const end = Date.now() + seconds * 1000;
  for (let i = 0; Date.now() < end; i++) {
    const good = i % 2 === 0 ? ctx.snapshots.b.bytes : ctx.snapshots.a.bytes;
    switch (i % 4) {
      case 0:
        atomically(path, good);
        swaps.valid++;
        break;
      case 1:
        atomically(path, good.slice(0, Math.floor(good.length * (0.2 + ((i * 37) % 60) / 100))));
        swaps.truncated++;
        break;
      case 2: {
        const flipped = new Uint8Array(good);
        flipped[(i * 7919) % flipped.length] ^= 1 << i % 8;
        atomically(path, flipped);
        swaps.flipped++;
        break;
      }
      default:
        await overwriteInPlace(path, good, 8, 20);
        swaps.inPlace++;
    }
    await sleep(250);
  }
  check.stop = true;
  const t = await run.stop();
  await checker;
  probe.close();
  const rssAfter = await server.rss();
  const counted = await k.used();
  const served = t.ok + check.ok + 1;
  await k.close();
  await server.stop();
  return {
    phase: `hot reload under load, ${seconds} s of swaps`,
    requests: t.tried,
    problem: t.problem,
    status5xx: t.status5xx,
    lost: Math.max(0, served - counted),
    double: Math.max(0, counted - served),
    swapFailures: t.tried - t.ok + check.wrong,
    rssBefore: mib(rssBefore),
    rssAfter: mib(rssAfter),
    notes: `${swaps.valid} valid, ${swaps.truncated} truncated, ${swaps.flipped} bit-flipped, ${swaps.inPlace} in-place copies; ${check.dates.size} builds seen served; ${check.wrong} answers not the valid one`,
    failed: check.dates.size < 2,
  };
}
