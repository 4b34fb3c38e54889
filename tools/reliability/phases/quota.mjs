// Quota exactness across processes: three server processes on one store
// (SQLite file, then Redis) race one key of quota 200 with 600 concurrent
// requests. Exactly 200 are admitted, the rest are 429 quota_exceeded, and
// the store holds exactly 200.
import { join } from 'node:path';
import { client, count, tally } from '../lib/http.mjs';
import { startRedis } from '../../../packages/testkit/dist/index.js';
import { startServerProcess } from '../lib/processes.mjs';
import { mib, newKey, PLANS, serverOptions } from '../lib/setup.mjs';

async function race(ctx, name, spec) {
  const servers = await Promise.all([0, 1, 2].map((i) => startServerProcess(ctx.work, `${name}-${i}`, serverOptions(ctx.snapshots.a.path, spec))));
  const k = await newKey(spec, 'race');
  const rssBefore = await servers[0].rss();
  const t = tally();
  const clients = Array.from({ length: 30 }, () => client());
  await Promise.all(
    clients.map(async (c, i) => {
      for (let j = 0; j < 20; j++) {
        try {
          count(t, await c.send(`${servers[(i + j) % 3].url}/v1/check?ip=8.8.8.8`, { headers: k.headers }));
        } catch (e) {
          count(t, undefined, e);
        }
      }
      c.close();
    }),
  );
  const counted = await k.used();
  const rssAfter = await servers[0].rss();
  await k.close();
  await Promise.all(servers.map((s) => s.stop()));
  return { t, counted, rssBefore, rssAfter };
}

export async function quota(ctx) {
  const runs = [['sqlite', `sqlite:${join(ctx.work, 'quota.sqlite')}`]];
  let redis;
  if (ctx.redis) {
    redis = await startRedis({ dir: ctx.work, appendonly: true });
    runs.push(['redis', redis.url]);
  }
  const quotaOf = PLANS.race.quota;
  const rows = [];
  for (const [name, spec] of runs) rows.push({ name, ...(await race(ctx, `quota-${name}`, spec)) });
  await redis?.stop();
  const sum = (f) => rows.reduce((a, r) => a + f(r), 0);
  const exact = rows.every((r) => r.t.ok === quotaOf && r.counted === quotaOf && r.t.codes['quota_exceeded'] === r.t.tried - quotaOf);
  return {
    phase: `quota race: 3 processes, 600 requests for a quota of ${quotaOf}, on ${rows.map((r) => r.name).join(' and ')}`,
    requests: sum((r) => r.t.tried),
    problem: sum((r) => r.t.problem),
    status5xx: sum((r) => r.t.status5xx),
    lost: sum((r) => Math.max(0, r.t.ok - r.counted)),
    double: sum((r) => Math.max(0, r.counted - r.t.ok)),
    rssBefore: mib(rows[0].rssBefore),
    rssAfter: mib(rows[0].rssAfter),
    notes: `${rows.map((r) => `${r.name}: ${r.t.ok} admitted, ${r.counted} counted`).join('; ')}${ctx.redis ? '' : '; Redis skipped: no redis-server on PATH'}`,
    failed: !exact,
  };
}
