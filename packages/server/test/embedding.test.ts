/**
 * Embedding: the Node handler mounted under a path prefix inside a host
 * node:http server, and the Fetch handler called with `new Request(...)`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchHandler } from '../src/adapters/fetch.js';
import { createNodeHandler } from '../src/adapters/node.js';
import { createKey } from '../src/keys/manage.js';
import { resolvePlans } from '../src/plans.js';
import { openSqliteStore } from '../src/store/sqlite.js';
import type { Store } from '../src/store/types.js';
import { CITY, fixtureBytes } from './support/fixtures.js';
import { TEST_PLANS } from './support/harness.js';

let store: Store;
let key: string;
beforeAll(async () => {
  store = openSqliteStore(':memory:');
  key = (await createKey(store, { plan: 'test', plans: resolvePlans(TEST_PLANS), now: 0 })).key;
});
afterAll(() => store.close());

describe('createNodeHandler', () => {
  let server: Server;
  let base: string;
  it('serves the API under a prefix and passes other paths to the host', async () => {
    const handler = createNodeHandler({ basePath: '/ipintel', snapshot: fixtureBytes('a'), store, logger: false, plans: TEST_PLANS, activationDelayMs: 0, baseUrl: 'https://host.example' });
    await handler.ready;
    server = createServer((req, res) =>
      handler(req, res, () => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('host page');
      }),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const res = await fetch(`${base}/ipintel/v1/check?ip=8.8.8.8`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('50');
    const body = (await res.json()) as { geo: { city: string }; attribution: string };
    expect(body.geo.city).toBe(CITY.a);
    expect(body.attribution).toBe('https://host.example/ipintel/attribution');
    expect(await (await fetch(`${base}/other`)).text()).toBe('host page');
    expect(await (await fetch(`${base}/ipintelx/v1/check`)).text()).toBe('host page');

    const batch = await fetch(`${base}/ipintel/v1/check/batch`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ ips: ['8.8.8.8', 'x'] }) });
    expect(((await batch.json()) as { results: unknown[] }).results).toHaveLength(2);

    const big = await fetch(`${base}/ipintel/v1/check/batch`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: 'x'.repeat(200_000) });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { code: string }).code).toBe('body_too_large');

    const self = await fetch(`${base}/ipintel/thirdparty/json`, { headers: { 'x-api-key': key } });
    expect(((await self.json()) as { ip: string }).ip).toBe('127.0.0.1');

    // Through node:http, a HEAD answer says the length the GET body has, and sends no body.
    const getHealth = await (await fetch(`${base}/ipintel/healthz`)).text();
    const headHealth = await fetch(`${base}/ipintel/healthz`, { method: 'HEAD' });
    expect(headHealth.status).toBe(200);
    expect(headHealth.headers.get('content-length')).toBe(String(Buffer.byteLength(getHealth)));
    expect(getHealth.length).toBeGreaterThan(0);
    expect(await headHealth.text()).toBe('');

    await new Promise<void>((r) => server.close(() => r()));
    await handler.close();
  });
});

describe('createFetchHandler', () => {
  it('answers web-standard Requests', async () => {
    const api = createFetchHandler({ snapshot: fixtureBytes('a'), store, logger: false, plans: TEST_PLANS, activationDelayMs: 0, basePath: '/api', remoteAddress: () => '8.8.8.8' });
    await api.ready;
    const res = await api(new Request('http://x/api/v1/check?ip=8.8.8.8&format=thirdparty', { headers: { 'x-api-key': key } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(((await res.json()) as { org: string }).org).toBe('AS15169 Google LLC');

    const batch = await api(new Request('http://x/api/v1/check/batch', { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{"ips":["8.8.8.8"]}' }));
    expect(batch.status).toBe(200);

    const big = await api(new Request('http://x/api/v1/check/batch', { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: 'x'.repeat(100_000) }));
    expect(big.status).toBe(413);
    expect(big.headers.get('content-type')).toBe('application/problem+json');
    // The runtime owns the connection (and HTTP/2 and 3 allow no Connection header): none on any answer.
    expect(big.headers.get('connection')).toBeNull();
    const twoTypes = await api(new Request('http://x/api/v1/check/batch', { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json, text/plain' }, body: '{"ips":[]}' }));
    expect(twoTypes.status).toBe(400);
    expect(twoTypes.headers.get('connection')).toBeNull();

    const self = await api(new Request('http://x/api/thirdparty/json', { headers: { authorization: `Bearer ${key}` } }));
    expect(((await self.json()) as { ip: string }).ip).toBe('8.8.8.8');

    expect((await api(new Request('http://x/elsewhere'))).status).toBe(404);
    const head = await api(new Request('http://x/api/healthz', { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    await api.close();
  });
});

describe('problemTypeBase reaches every answer the adapters make themselves', () => {
  const TYPE_BASE = 'https://errors.example/p/';
  const typeOf = async (res: Response | { json(): Promise<unknown> }): Promise<string> => ((await res.json()) as { type: string }).type;

  it('the Node handler: a path outside basePath (no host to pass it to), an unexpected error, and the core alike', async () => {
    const handler = createNodeHandler({ basePath: '/ipintel', snapshot: fixtureBytes('a'), store, logger: false, plans: TEST_PLANS, problemTypeBase: TYPE_BASE });
    await handler.ready;
    // The same app, whose routing core fails: the adapter answers internal_error itself.
    const failing = createNodeHandler({ app: Object.assign(Object.create(handler.app) as typeof handler.app, { handle: () => Promise.reject(new Error('boom')) }), problemTypeBase: TYPE_BASE });
    const server = createServer((req, res) => (req.url?.startsWith('/fail') === true ? failing(req, res) : handler(req, res)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(await typeOf(await fetch(`${base}/elsewhere`))).toBe(`${TYPE_BASE}not_found`);
      expect(await typeOf(await fetch(`${base}/ipintel/nope`))).toBe(`${TYPE_BASE}not_found`);
      const failed = await fetch(`${base}/fail/v1/check?ip=8.8.8.8`);
      expect(failed.status).toBe(500);
      expect(await typeOf(failed)).toBe(`${TYPE_BASE}internal_error`);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
      await handler.close();
    }
  });

  it('the Fetch handler: a path outside basePath', async () => {
    const api = createFetchHandler({ snapshot: fixtureBytes('a'), store, logger: false, plans: TEST_PLANS, basePath: '/api', problemTypeBase: TYPE_BASE });
    await api.ready;
    expect(await typeOf(await api(new Request('http://x/elsewhere')))).toBe(`${TYPE_BASE}not_found`);
    expect(await typeOf(await api(new Request('http://x/api/nope')))).toBe(`${TYPE_BASE}not_found`);
  });
});
