// Hostile requests over raw sockets: 2,000 (--quick: 300) seeded random
// requests (odd methods and paths, broken framing, bad lengths, random
// headers and bodies), plus the cases of issue 11: a 64 MiB body without a
// key, batch elements nested 5,000 and 20,000 deep, a key after 1,000
// headers, a 20 KB header, and a key sent as `?%74oken=` (which must not
// reach the access log). Every answer must be < 500, and every error answer
// problem+json; the server must keep serving.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from '../../bench/common.mjs';
import { exchange } from '../../../packages/testkit/dist/index.js';
import { answerOf } from '../lib/http.mjs';
import { startServerProcess } from '../lib/processes.mjs';
import { mib, newKey, serverOptions } from '../lib/setup.mjs';

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH', 'TRACE', 'CONNECT', 'G\u0000T', 'get', '', 'BREW'];
const PATHS = ['/v1/check?ip=8.8.8.8', '/v1/check/batch', '/thirdparty/8.8.8.8/json', '/healthz', '*', '//', '/%', '/\u007f', '/v1/check?ip=%ZZ', '/v1/check?ip=8.8.8.8&ip=1.1.1.1', `/${'a'.repeat(9000)}`, '/attribution'];
const LINES = ['content-length: -1', 'content-length: 99999999999999999999', 'content-length: 5', 'transfer-encoding: chunked', 'transfer-encoding: gzip, chunked', 'content-type: application/json', 'x-api-key: \u0001', 'expect: 100-continue', 'expect: nonsense', 'connection: upgrade', 'upgrade: websocket', 'authorization: Bearer', 'host:', 'x-forwarded-for: 1.2.3.4', 'origin: https://x.test'];
const BODIES = ['', '{"ips":["8.8.8.8"]}', '{"ips":', '5\r\nhello\r\n0\r\n\r\n', 'zz\r\n', '\u0000\u0001\u0002'];

function randomRequest(next, key) {
  const int = (n) => next() % n;
  const pick = (a) => a[int(a.length)];
  const lines = Array.from({ length: int(6) }, () => (int(3) === 0 ? `${String.fromCharCode(33 + int(90)).repeat(1 + int(8))}: ${String.fromCharCode(int(256)).repeat(int(20))}` : pick(LINES)));
  if (int(2) === 0) lines.push(`x-api-key: ${key}`);
  const body = int(5) === 0 ? Buffer.from(Array.from({ length: int(300) }, () => int(256))).toString('latin1') : pick(BODIES);
  return `${pick(METHODS)} ${pick(PATHS)} HTTP/1.1\r\nhost: x\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n${body}`;
}

export async function hostile(ctx) {
  const spec = `sqlite:${join(ctx.work, 'hostile.sqlite')}`;
  const server = await startServerProcess(ctx.work, 'hostile', serverOptions(ctx.snapshots.a.path, spec, { logLevel: 'info' }));
  const k = await newKey(spec);
  const rssBefore = await server.rss();
  const tally = { tried: 0, answered: 0, problem: 0, status5xx: 0, notProblem: [], silent: 0 };
  const send = async (text, expect) => {
    // Written, then half-closed, as a client that has nothing more to send.
    const a = await exchange(server.port, (s) => void s.end(Buffer.from(text, 'latin1')), 10_000);
    tally.tried++;
    const first = answerOf(a.data);
    if (first === undefined) {
      tally.silent++;
      if (process.env['RELIABILITY_DEBUG']) process.stderr.write(`silent: ${JSON.stringify(text.slice(0, 120))}\n`);
      return undefined;
    }
    tally.answered++;
    if (first.type === 'application/problem+json') tally.problem++;
    else if (first.status >= 400 && !text.startsWith('HEAD')) tally.notProblem.push(`${first.status} for ${JSON.stringify(text.slice(0, 60))}`);
    if (first.status >= 500) tally.status5xx++;
    if (expect !== undefined && first.status !== expect) tally.notProblem.push(`${first.status}, not ${expect}, for ${JSON.stringify(text.slice(0, 60))}`);
    return first;
  };
  const next = mulberry32(11);
  const n = ctx.quick ? 300 : 2000;
  for (let i = 0; i < n; i += 10) await Promise.all(Array.from({ length: Math.min(10, n - i) }, () => send(randomRequest(next, k.key))));

  const batch = (json) => `POST /v1/check/batch HTTP/1.1\r\nhost: x\r\nx-api-key: ${k.key}\r\ncontent-type: application/json\r\ncontent-length: ${json.length}\r\nconnection: close\r\n\r\n${json}`;
  const nest = (d) => '['.repeat(d) + ']'.repeat(d);
  await send(batch(`{"ips":["8.8.8.8",${nest(5000)}]}`), 200);
  await send(batch(`{"ips":["8.8.8.8",${nest(20000)}]}`), 200);
  await send(`GET /v1/check?ip=8.8.8.8 HTTP/1.1\r\nhost: x\r\n${Array.from({ length: 1000 }, (_, i) => `x-h${i}: ${i}\r\n`).join('')}x-api-key: ${k.key}\r\n\r\n`, 431);
  await send(`GET /v1/check?ip=8.8.8.8 HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`, 431);
  await send(`GET /thirdparty/8.8.8.8/json?%74oken=${k.key.replaceAll('_', '%5F')} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`, 200);
  // 64 MiB streamed without a key: answered at once, the connection closed long before the end.
  const MiB = 1024 * 1024;
  let sent = 0;
  const flood = await exchange(server.port, async (s) => {
    s.write(`POST /v1/check/batch HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${64 * MiB}\r\n\r\n`);
    const chunk = Buffer.alloc(65536, 32);
    while (sent < 64 * MiB && !s.destroyed) {
      if (!s.write(chunk)) await new Promise((r) => (s.once('drain', r), s.once('close', r)));
      sent += chunk.length;
    }
  });
  tally.tried++;
  // A client still sending into the closed connection may get a reset before it reads the 401.
  const floodAnswer = answerOf(flood.data);
  if (floodAnswer !== undefined) tally.answered++;
  if (floodAnswer?.type === 'application/problem+json') tally.problem++;
  if (floodAnswer !== undefined && floodAnswer.status !== 401) tally.notProblem.push(`64 MiB keyless body: ${floodAnswer.status}`);
  const floodFate = floodAnswer === undefined ? 'its 401 lost to the reset' : `answered ${floodAnswer.status}`;

  const healthy = (await exchange(server.port, (s) => void s.write('GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'))).data.startsWith('HTTP/1.1 200');
  const rssAfter = await server.rss();
  await k.close();
  await server.stop();
  const log = readFileSync(join(ctx.work, 'hostile.log'), 'latin1');
  const secret = k.key.slice(-22);
  const leaks = log.split(secret).length - 1 + (decodeURIComponent(log.replace(/%(?![0-9a-f]{2})/gi, '%25')).split(secret).length - 1);
  return {
    phase: `hostile requests: ${n.toLocaleString('en-US')} random + issue 11 cases, raw sockets`,
    requests: tally.tried,
    problem: tally.problem,
    status5xx: tally.status5xx,
    rssBefore: mib(rssBefore),
    rssAfter: mib(rssAfter),
    notes: `${tally.answered.toLocaleString('en-US')} answered, ${tally.silent} closed without an answer (every case half-closes after writing); ${tally.notProblem.length} error answers not problem+json${tally.notProblem.length > 0 ? ` (${tally.notProblem.slice(0, 3).join('; ')})` : ''}; 64 MiB keyless body cut after ${(sent / MiB).toFixed(1)} MiB sent (${floodFate}); key in the access log: ${leaks} times`,
    failed: tally.notProblem.length > 0 || leaks > 0 || !healthy || sent >= 64 * MiB,
  };
}
