// HTTP for the reliability run: keep-alive clients (one connection each, as
// a real client library holds) and a load driver that tallies every answer.
// (Raw sockets, for requests no HTTP client would send: testkit's exchange.)
import { Agent, request } from 'node:http';
import { firstResponse } from '../../../packages/testkit/dist/index.js';

/** One keep-alive connection; `send` resolves with the answer or rejects with the socket error. */
export function client() {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return {
    send(url, { method = 'GET', headers = {}, body } = {}) {
      return new Promise((resolve, reject) => {
        const req = request(url, { method, agent, headers }, (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}

/** A new tally of answers. */
export function tally() {
  return { tried: 0, ok: 0, problem: 0, status5xx: 0, storeDown: 0, cut: 0, refused: 0, other: 0, codes: {}, slowest503: 0, errors: {} };
}

/** Counts one answer (or socket error) into `t`. */
export function count(t, res, error, ms = 0) {
  t.tried++;
  if (error !== undefined) {
    const code = error.code ?? error.message;
    // Refused: never reached a server (none listening). Cut: sent on a connection that died.
    if (code === 'ECONNREFUSED') t.refused++;
    else t.cut++;
    t.errors[code] = (t.errors[code] ?? 0) + 1;
    return;
  }
  const problem = res.headers['content-type'] === 'application/problem+json';
  if (res.status === 200) t.ok++;
  else if (problem) {
    t.problem++;
    let code = '?';
    try {
      code = JSON.parse(res.body).code;
    } catch {
      // counted under '?'
    }
    t.codes[code] = (t.codes[code] ?? 0) + 1;
    if (res.status === 503 && code === 'store_unavailable') {
      t.storeDown++;
      t.slowest503 = Math.max(t.slowest503, ms);
    } else if (res.status >= 500) t.status5xx++;
  } else {
    t.other++;
    if (res.status >= 500) t.status5xx++;
  }
}

/**
 * `clients` loops sending `next()` requests to `url` until stop() (each loop
 * ends at its first socket error if `stopOnError`). Returns the tally.
 */
export function load({ url, clients, headers, stopOnError = false, path = '/v1/check?ip=8.8.8.8' }) {
  const t = tally();
  let stopped = false;
  const loop = async () => {
    const c = client();
    while (!stopped) {
      const t0 = performance.now();
      try {
        count(t, await c.send(`${url}${path}`, { headers }), undefined, performance.now() - t0);
      } catch (e) {
        count(t, undefined, e);
        if (stopOnError) break;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    c.close();
  };
  const loops = Array.from({ length: clients }, loop);
  return {
    tally: t,
    /** Loops running on (to point at a restarted server). */
    retarget(u) {
      url = u;
    },
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      return t;
    },
  };
}

/** Waits until `check()` is true, polling; false after `ms`. */
export async function until(check, ms = 20_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

/** Status, content type and body of the first answer in raw socket `data`, or undefined. */
export function answerOf(data) {
  const r = firstResponse(data);
  return r === undefined ? undefined : { status: r.status, type: r.headers['content-type'], body: r.body };
}
