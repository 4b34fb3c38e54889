// 10^6 (--quick: 10^5) fuzzed address strings through the HTTP API (POST
// /v1/check/batch, 100 per request, thirdparty layout), each answer judged
// against node:net's isIP. Also: the lookups counted equal the valid elements.
import { join } from 'node:path';
import { client } from '../lib/http.mjs';
import { fuzzAddresses, judge } from '../lib/fuzz.mjs';
import { startServerProcess } from '../lib/processes.mjs';
import { mib, newKey, serverOptions } from '../lib/setup.mjs';

export async function addresses(ctx) {
  const total = ctx.quick ? 100_000 : 1_000_000;
  const spec = `sqlite:${join(ctx.work, 'addresses.sqlite')}`;
  const server = await startServerProcess(ctx.work, 'addresses', serverOptions(ctx.snapshots.a.path, spec));
  const k = await newKey(spec);
  const rssBefore = await server.rss();
  const inputs = fuzzAddresses(total, 20260101);
  const seen = { requests: 0, problem: 0, status5xx: 0, elements: 0, valid: 0, wrong: 0, untyped: 0, examples: [] };
  const worker = async () => {
    const c = client();
    for (;;) {
      const batch = [];
      for (let i = 0; i < 100; i++) {
        const n = inputs.next();
        if (n.done) break;
        batch.push(n.value);
      }
      if (batch.length === 0) break;
      const res = await c.send(`${server.url}/v1/check/batch?format=thirdparty`, { method: 'POST', headers: { ...k.headers, 'content-type': 'application/json' }, body: JSON.stringify({ ips: batch }) });
      seen.requests++;
      if (res.status >= 500) seen.status5xx++;
      if (res.status !== 200) {
        if (res.headers['content-type'] === 'application/problem+json') seen.problem++;
        seen.untyped += batch.length;
        continue;
      }
      const { results } = JSON.parse(res.body);
      batch.forEach((s, i) => {
        seen.elements++;
        const why = judge(s, results[i]);
        if (results[i]?.error === undefined) seen.valid++;
        if (why === '') return;
        if (why.startsWith('untyped')) seen.untyped++;
        else seen.wrong++;
        if (seen.examples.length < 5) seen.examples.push(`${JSON.stringify(s)}: ${why}`);
      });
    }
    c.close();
  };
  await Promise.all([worker(), worker(), worker()]);
  const counted = await k.used();
  const rssAfter = await server.rss();
  await k.close();
  await server.stop();
  return {
    phase: `${(total / 1e6).toLocaleString('en-US')}M fuzzed addresses vs node:net isIP (through HTTP)`,
    requests: seen.requests,
    problem: seen.problem,
    status5xx: seen.status5xx,
    lost: Math.max(0, seen.valid - counted),
    double: Math.max(0, counted - seen.valid),
    rssBefore: mib(rssBefore),
    rssAfter: mib(rssAfter),
    notes: `${seen.elements.toLocaleString('en-US')} strings, ${seen.wrong} wrong answers, ${seen.untyped} untyped errors${seen.examples.length > 0 ? `; e.g. ${seen.examples.join('; ')}` : ''}`,
    failed: seen.wrong > 0 || seen.untyped > 0 || seen.elements !== total,
  };
}
