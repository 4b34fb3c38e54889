import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
const requireS = createRequire(new URL('../../../packages/server/package.json', import.meta.url));
const body = JSON.stringify({ a: 'x'.repeat(1100) });
if (process.env.CHILD) {
  const mode = process.env.CHILD;
  const server = createServer((req, res) => {
    if (mode === 'plain') res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    else if (mode === 'ours') res.writeHead(200, { 'ratelimit-limit': '10000000', 'ratelimit-remaining': String(9999999 - (++globalThis.n || 0)), 'ratelimit-reset': '2352524', 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': String(Buffer.byteLength(body)) });
    else res.writeHead(200, ['ratelimit-limit', '10000000', 'ratelimit-remaining', String(9999999 - (++globalThis.n || 0)), 'ratelimit-reset', '2352524', 'content-type', 'application/json; charset=utf-8', 'cache-control', 'no-store', 'content-length', String(Buffer.byteLength(body))]);
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('message', (m) => { const u = process.cpuUsage(); process.send({ cpu: u.user + u.system }); });
  process.on('disconnect', () => process.exit(0));
} else {
  const autocannon = requireS('autocannon');
  const modes = ['plain', 'ours', 'oursArray'];
  const kids = [];
  for (const m of modes) {
    const child = fork(new URL(import.meta.url).pathname, [], { env: { ...process.env, CHILD: m }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const port = await new Promise((r) => child.once('message', (x) => r(x.port)));
    kids.push({ m, child, port, res: [] });
  }
  const cpu = (c) => new Promise((r) => { c.once('message', (x) => r(x.cpu)); c.send('cpu'); });
  const run = (port, d) => new Promise((r, j) => autocannon({ url: `http://127.0.0.1:${port}/v1/check?ip=8.8.8.8`, connections: 10, duration: d, headers: { 'x-api-key': 'ipk_abcdefghijklmnopqrstuvwxyz0123456789' } }, (e, x) => (e ? j(e) : r(x))));
  for (const k of kids) await run(k.port, 1);
  for (let round = 0; round < Number(process.argv[2] ?? 5); round++) {
    for (const k of round % 2 ? [...kids].reverse() : kids) {
      const c0 = await cpu(k.child); const r = await run(k.port, 3); const c1 = await cpu(k.child);
      k.res.push([r.requests.average, (c1 - c0) / r.requests.total]);
    }
  }
  for (const k of kids) { console.log(k.m, k.res.map(([a, b]) => `${Math.round(a)} ${b.toFixed(1)}us`).join(' | ')); k.child.disconnect(); }
}
