// What server-bench.mjs and tools/bench/experiments/servers-side-by-side.mjs
// share: the snapshot (one network, 8.8.8.0/24, with geo, network and
// signals, so that a request's cost is the server's, not the lookup's), the
// CPU probe of a serving child process, the bare server, the floor (our parts
// and nothing else), and autocannon as a promise.

import { createServer } from 'node:http';

/** A small snapshot: 8.8.8.0/24 with geo, network and signals. */
export function snapshotBytes(writer) {
  const none = {
    connection_type: 'unknown', connection_evidence: 'inferred', datacenter_provider: null, relay_provider: null,
    is_relay: false, is_tor: false, is_vpn: false, is_proxy: false, is_public_resolver: false, is_drop_listed: false,
    recent_abuse: false, is_verified_bot: false, verified_bot_name: null, vpn_operator: null, is_anycast: false,
  };
  const nullGeo = { country: null, country_code: null, region: null, city: null, latitude: null, longitude: null, timezone: null };
  return writer.encodeSnapshot({
    build_date: '2026-01-01T00:00:00.000Z',
    attribution_url: 'https://example.test/attribution',
    has_rpki: false,
    sources: [],
    geo: [nullGeo, { country: 'United States', country_code: 'US', region: 'California', city: 'Mountain View', latitude: 37.4056, longitude: -122.0775, timezone: 'America/Los_Angeles' }],
    networks: [
      { asn: 0, as_org: '', is_announced: false, is_bogon: false, rpki: 'unknown', allocation_date: null, registration_country: null },
      { asn: 15169, as_org: 'Google LLC', is_announced: true, is_bogon: false, rpki: 'unknown', allocation_date: '1992-12-01', registration_country: 'US' },
    ],
    signals: [none, { ...none, connection_type: 'datacenter', connection_evidence: 'authoritative', datacenter_provider: 'Google Cloud', is_public_resolver: true }],
    leaves: [{ geo: 0, net: 0, sig: 0 }, { geo: 1, net: 1, sig: 1 }],
    v4: writer.flattenPrefixes(4, [{ start: 0x08080800n, length: 24, value: 1 }], 0),
    v6: writer.flattenPrefixes(6, [], 0),
  });
}

/**
 * Child side: the bare contender, node:http answering `body` as JSON to every
 * request on 127.0.0.1; sends the parent its port, then answers 'cpu'.
 */
export function serveBare(body) {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  answerCpu();
}

/**
 * Child side: the floor, the least a server with our features can do on node:http. It answers
 * GET /v1/check with the parts of `build` (a built @ipintel/server module) and nothing else: the
 * key from a per-process map (its hash checked once), core's check(), the count through the
 * build's real store (durable, group-committed), our body and our five headers. No router, no
 * parameter checks, no access log, no problem answers. Any other request, or another key, is not
 * handled: this is a measurement, not a server. Sends { port } when it listens.
 */
export async function serveFloor(build, snapshot, storeSpec) {
  const { open } = await import('@ipintel/core');
  const server = createServer();
  await new Promise((res) => server.listen(0, '127.0.0.1', res));
  const { port } = server.address();
  // The attribution link a started server of ours gives (its base URL, with the port).
  const intel = await open(snapshot, { preload: true, attributionUrl: `http://127.0.0.1:${port}/attribution` });
  const store = await build.openStore(storeSpec);
  const plans = build.resolvePlans();
  const keys = new Map();
  const texts = new WeakMap();
  const text = (part) => {
    let t = texts.get(part);
    if (t === undefined) texts.set(part, (t = JSON.stringify(part)));
    return t;
  };
  const bodyOf = (r) =>
    `{"ip":${JSON.stringify(r.ip)},"version":${r.version},"geo":${text(r.geo)},"network":${text(r.network)},"signals":${text(r.signals)},"evidence":${text(r.evidence)},"risk":${text(r.risk)},"attribution":${JSON.stringify(r.attribution)}}`;
  const answer = (req, res, key) => {
    const plan = plans[key.plan];
    const now = Date.now();
    const result = intel.check(req.url.slice(req.url.indexOf('=') + 1));
    const w = build.periodAt(plan.period, now);
    const count = { account: key.account, period: w.key, periodEndsAt: w.endsAt, quota: plan.quota, n: 1, ratePerSecond: 0, second: Math.floor(now / 1000), deadline: now + 1000 };
    void store.consume(count).then((c) => {
      const body = bodyOf(result);
      res.writeHead(200, {
        'ratelimit-limit': String(plan.quota),
        'ratelimit-remaining': String(plan.quota - c.used),
        'ratelimit-reset': String(Math.ceil((w.endsAt - now) / 1000)),
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
        'content-length': String(Buffer.byteLength(body)),
      });
      res.end(body);
    });
  };
  server.on('request', (req, res) => {
    const presented = req.headers['x-api-key'];
    const known = keys.get(presented);
    if (known !== undefined) return answer(req, res, known);
    void store.getKey(build.keyId(presented)).then((key) => {
      if (key?.hash !== build.hashKey(presented)) throw new Error('the floor serves only the bench key');
      keys.set(presented, key);
      answer(req, res, key);
    });
  });
  process.send({ port });
  answerCpu();
}

/** An answer's text with the port of each 127.0.0.1 link taken out: two servers of ours answer alike but for their own port in the attribution link. */
export function withoutPort(text) {
  return text.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT');
}

/** Child side: answers 'cpu' with this process's CPU time so far (us), in all and split into user and system time. */
export function answerCpu() {
  process.on('message', (m) => {
    if (m !== 'cpu') return;
    const u = process.cpuUsage();
    process.send({ cpu: u.user + u.system, user: u.user, system: u.system });
  });
}

/** Driver side: the CPU time (us) a child has used so far ({ cpu, user, system }). */
function cpuOf(child) {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m));
    child.send('cpu');
  });
}

/** A run of `load`, with the CPU the serving child spent per request (us): in all, in user and in system time. */
export async function measured(child, loadRun) {
  const c0 = await cpuOf(child);
  const r = await loadRun();
  const c1 = await cpuOf(child);
  const n = Math.max(1, r.requests.total);
  return { ...r, cpuPerRequest: (c1.cpu - c0.cpu) / n, userPerRequest: (c1.user - c0.user) / n, systemPerRequest: (c1.system - c0.system) / n };
}

/** One autocannon run (`opts` as autocannon takes them). */
export function load(autocannon, opts) {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, r) => (err ? reject(err) : resolve(r)));
  });
}
