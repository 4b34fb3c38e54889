// SIGTERM under keep-alive load, 3 times (--quick: once): 8 clients, each on
// its own keep-alive connection, run until an answer says Connection: close.
// No client may see its connection reset, every answer must be complete, and
// the process must exit 0.
import { join } from 'node:path';
import { client, count, tally } from '../lib/http.mjs';
import { sleep, startServerProcess } from '../lib/processes.mjs';
import { mib, newKey, serverOptions } from '../lib/setup.mjs';

export async function drain(ctx) {
  const rounds = ctx.quick ? 1 : 3;
  const spec = `sqlite:${join(ctx.work, 'drain.sqlite')}`;
  const k = await newKey(spec);
  const t = tally();
  const exits = [];
  let told = 0;
  let rssBefore;
  let rssAfter;
  for (let r = 0; r < rounds; r++) {
    const server = await startServerProcess(ctx.work, `drain-${r}`, serverOptions(ctx.snapshots.a.path, spec));
    rssBefore ??= await server.rss();
    const clients = Array.from({ length: 8 }, async () => {
      const c = client();
      for (;;) {
        try {
          const res = await c.send(`${server.url}/v1/check?ip=8.8.8.8`, { headers: k.headers });
          count(t, res);
          if (res.headers['connection'] === 'close') {
            told++;
            break;
          }
        } catch (e) {
          count(t, undefined, e);
          break;
        }
      }
      c.close();
    });
    await sleep(700);
    rssAfter = await server.rss();
    exits.push(await server.stop());
    await Promise.all(clients);
  }
  const counted = await k.used();
  await k.close();
  return {
    phase: `SIGTERM under keep-alive load ×${rounds} (8 clients)`,
    requests: t.tried,
    problem: t.problem,
    status5xx: t.status5xx,
    lost: Math.max(0, t.ok - counted),
    double: Math.max(0, counted - t.ok),
    rssBefore: mib(rssBefore),
    rssAfter: mib(rssAfter),
    notes: `${t.cut} connections reset, ${t.refused} refused; ${told} of ${rounds * 8} clients told Connection: close; exit codes ${exits.join(', ')}`,
    failed: t.cut + t.refused > 0 || told !== rounds * 8 || exits.some((e) => e !== 0),
  };
}
