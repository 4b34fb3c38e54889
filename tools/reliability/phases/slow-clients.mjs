// Slowloris and slow bodies, with the server's timeouts set to 2 s (headers)
// and 4 s (request) to keep the phase short (defaults: 10 s and 30 s):
// 200 connections sending headers a byte at a time, 50 slow bodies with a
// key and 50 without; meanwhile normal clients must be served. Every slow
// connection is answered (408, or 401 at once for the keyless bodies) as
// problem+json and closed; the figure is how long the slowest was held.
import { join } from 'node:path';
import { dribble, exchange } from '../../../packages/testkit/dist/index.js';
import { answerOf, load } from '../lib/http.mjs';
import { startServerProcess } from '../lib/processes.mjs';
import { mib, newKey, serverOptions } from '../lib/setup.mjs';

export async function slowClients(ctx) {
  const headersTimeoutMs = 2000;
  const requestTimeoutMs = 4000;
  const spec = `sqlite:${join(ctx.work, 'slow.sqlite')}`;
  const server = await startServerProcess(ctx.work, 'slow', serverOptions(ctx.snapshots.a.path, spec, { headersTimeoutMs, requestTimeoutMs }));
  const k = await newKey(spec);
  const rssBefore = await server.rss();
  const normal = load({ url: server.url, clients: 4, headers: k.headers });
  // Long enough that dripping it takes more than twice the request timeout.
  const body = JSON.stringify({ ips: Array.from({ length: 12 }, (_, i) => `8.8.8.${i}`) });
  const post = (key) => `POST /v1/check/batch HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n${key === undefined ? '' : `x-api-key: ${key}\r\n`}\r\n`;
  const gap = ctx.quick ? 200 : 100;
  const slow = [
    ...Array.from({ length: ctx.quick ? 50 : 200 }, () => exchange(server.port, (s, closed) => dribble(s, closed, `GET /v1/check?ip=8.8.8.8 HTTP/1.1\r\nhost: x\r\nx-api-key: ${k.key}\r\n\r\n`, 1, gap), 60_000)),
    ...Array.from({ length: ctx.quick ? 10 : 50 }, () => exchange(server.port, async (s, closed) => (s.write(post(k.key)), dribble(s, closed, body, 1, gap)), 60_000)),
    ...Array.from({ length: ctx.quick ? 10 : 50 }, () => exchange(server.port, async (s, closed) => (s.write(post(undefined)), dribble(s, closed, body, 1, gap)), 60_000)),
  ];
  const answers = await Promise.all(slow);
  const t = await normal.stop();
  const rssAfter = await server.rss();
  await k.close();
  await server.stop();
  const seen = answers.map((a) => ({ a, first: answerOf(a.data) }));
  const problem = seen.filter((x) => x.first?.type === 'application/problem+json').length;
  const held = Math.max(...answers.map((a) => a.ms));
  const unanswered = seen.filter((x) => x.first === undefined || x.a.timedOut).length;
  const codes = {};
  for (const x of seen) if (x.first !== undefined) codes[x.first.status] = (codes[x.first.status] ?? 0) + 1;
  return {
    phase: `slow clients: ${slow.length} slowloris and slow-body connections (timeouts 2 s / 4 s)`,
    requests: slow.length + t.tried,
    problem: problem + t.problem,
    status5xx: t.status5xx + seen.filter((x) => (x.first?.status ?? 0) >= 500).length,
    rssBefore: mib(rssBefore),
    rssAfter: mib(rssAfter),
    notes: `answers ${Object.entries(codes).map(([c, n]) => `${n}×${c}`).join(', ')}; slowest held ${(held / 1000).toFixed(1)} s; ${unanswered} not answered and closed; ${t.ok.toLocaleString('en-US')} of ${t.tried.toLocaleString('en-US')} normal requests served meanwhile`,
    failed: unanswered > 0 || problem !== slow.length || t.ok !== t.tried || held > requestTimeoutMs + 2000,
  };
}
