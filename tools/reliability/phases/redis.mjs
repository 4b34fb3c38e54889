// Redis stalled and down under load. Stalled: redis-server paused with
// SIGSTOP for 2 s, 3 times (--quick: once, 1 s). Down: killed (SIGKILL, then
// SIGTERM) and restarted after 1 s. Every request gets an answer: 200, or 503
// store_unavailable while Redis cannot count; a lookup is counted iff it was
// answered 200 (counts cut by an outage are checked and undone afterwards,
// which the phase waits for).
import { load, until } from '../lib/http.mjs';
import { startRedis } from '../../../packages/testkit/dist/index.js';
import { sleep, startServerProcess } from '../lib/processes.mjs';
import { mib, newKey, serverOptions } from '../lib/setup.mjs';

async function underLoad(ctx, name, disturb) {
  const redis = await startRedis({ dir: ctx.work, appendonly: true });
  const server = await startServerProcess(ctx.work, name, serverOptions(ctx.snapshots.a.path, redis.url));
  const k = await newKey(redis.url);
  const rssBefore = await server.rss();
  const run = load({ url: server.url, clients: 8, headers: k.headers });
  await sleep(500);
  await disturb(redis);
  await sleep(800);
  const t = await run.stop();
  // Counts cut by an outage are undone once checked: wait until the store settles on the 200s.
  await until(async () => (await k.used()) === t.ok, 10_000);
  const counted = await k.used();
  const rssAfter = await server.rss();
  await k.close();
  await server.stop();
  await redis.stop();
  return { t, counted, rssBefore, rssAfter };
}

function row(phase, { t, counted, rssBefore, rssAfter }, notes) {
  return {
    phase,
    requests: t.tried,
    problem: t.problem,
    status5xx: t.status5xx,
    storeDown: t.storeDown,
    lost: Math.max(0, t.ok - counted),
    double: Math.max(0, counted - t.ok),
    rssBefore: mib(rssBefore),
    rssAfter: mib(rssAfter),
    notes: `${t.ok.toLocaleString('en-US')} answered 200, ${counted.toLocaleString('en-US')} counted; ${notes(t)}`,
    failed: t.cut + t.refused + t.other > 0 || t.ok === 0,
  };
}

export async function redisStalled(ctx) {
  const stalls = ctx.quick ? 1 : 3;
  const ms = ctx.quick ? 1000 : 2000;
  if (!ctx.redis) return { phase: 'Redis stalled', requests: 0, problem: 0, status5xx: 0, crashes: 0, notes: 'skipped: no redis-server on PATH', failed: false };
  const r = await underLoad(ctx, 'redis-stalled', async (redis) => {
    for (let i = 0; i < stalls; i++) {
      redis.pause();
      await sleep(ms);
      redis.resume();
      await sleep(500);
    }
  });
  return row(`Redis stalled (SIGSTOP ${ms / 1000} s) ×${stalls} under load (8 clients)`, r, (t) => `${t.storeDown.toLocaleString('en-US')} answered 503 while stalled, none counted; slowest 503 ${Math.round(t.slowest503)} ms`);
}

export async function redisDown(ctx) {
  if (!ctx.redis) return { phase: 'Redis down', requests: 0, problem: 0, status5xx: 0, crashes: 0, notes: 'skipped: no redis-server on PATH', failed: false };
  const r = await underLoad(ctx, 'redis-down', async (redis) => {
    for (const signal of ctx.quick ? ['SIGKILL'] : ['SIGKILL', 'SIGTERM', 'SIGKILL']) {
      await redis.stop(signal);
      await sleep(1000);
      await redis.start();
      await sleep(500);
    }
  });
  return row(`Redis down (${ctx.quick ? 'SIGKILL' : 'SIGKILL, SIGTERM, SIGKILL'}; 1 s each) under load`, r, (t) => `${t.storeDown.toLocaleString('en-US')} answered 503 while down, none left counted`);
}
