// SQLite durability under kill -9: a server on a SQLite file is killed
// mid-load and started again, 5 times (--quick: 2). No 200 may be lost (its
// count is committed before the answer is written) and nothing counted twice.
// Requests cut by the kill got no answer at all; those whose count had
// committed are reported, not hidden: counted, answer never delivered.
import { join } from 'node:path';
import { load } from '../lib/http.mjs';
import { sleep, startServerProcess } from '../lib/processes.mjs';
import { mib, newKey, serverOptions } from '../lib/setup.mjs';

export async function kill9(ctx) {
  const kills = ctx.quick ? 2 : 5;
  const spec = `sqlite:${join(ctx.work, 'kill9.sqlite')}`;
  const k = await newKey(spec);
  let server = await startServerProcess(ctx.work, 'kill9-0', serverOptions(ctx.snapshots.a.path, spec));
  const rssBefore = await server.rss();
  let rssAfter;
  const run = load({ url: server.url, clients: 8, headers: k.headers });
  for (let i = 1; i <= kills; i++) {
    await sleep(400 + ((i * 137) % 400));
    rssAfter = await server.rss();
    await server.kill();
    server = await startServerProcess(ctx.work, `kill9-${i}`, serverOptions(ctx.snapshots.a.path, spec));
    run.retarget(server.url);
  }
  await sleep(300);
  const t = await run.stop();
  await server.stop();
  const counted = await k.used();
  await k.close();
  const undelivered = Math.max(0, counted - t.ok);
  return {
    phase: `SQLite, kill -9 mid-load ×${kills} (8 keep-alive clients)`,
    requests: t.tried,
    problem: t.problem,
    status5xx: t.status5xx,
    lost: Math.max(0, t.ok - counted),
    double: Math.max(0, counted - t.ok - t.cut),
    rssBefore: mib(rssBefore),
    rssAfter: mib(rssAfter),
    notes: `${t.ok.toLocaleString('en-US')} answered 200, ${counted.toLocaleString('en-US')} counted; ${t.cut} requests cut by the kills (no answer), ${undelivered} of them counted (committed, answer never delivered)`,
    failed: t.ok === 0,
  };
}
