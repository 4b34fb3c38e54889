/**
 * The routing core without sockets, part 1: GET /v1/check, authentication and
 * routing, with their status and problem codes and the RateLimit headers.
 * Part 2 (api-batch.test.ts): batches, quotas, 503s, aliases, attribution.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../src/store/sqlite.js';
import { createApp } from '../src/app.js';
import { call, expectProblem, harness, TEST_PLANS, type Harness } from './support/harness.js';
import { CITY } from './support/fixtures.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await harness();
  key = await h.key('test');
});
afterAll(() => h.close());

describe('GET /v1/check', () => {
  it('answers 200 with the native result and RateLimit headers', async () => {
    const res = await call(h.app, '/v1/check?ip=8.8.8.8', { key });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json).toMatchObject({ ip: '8.8.8.8', version: 4, geo: { city: CITY.a, country_code: 'US' }, network: { asn: 15169 } });
    expect(res.json.signals.is_datacenter).toBe(true);
    expect(res.headers['ratelimit-limit']).toBe('50');
    expect(Number(res.headers['ratelimit-remaining'])).toBeLessThan(50);
    expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect(Number(res.headers['ratelimit-reset'])).toBeLessThanOrEqual(86_400);
  });

  it('answers format=thirdparty in the compatibility layout', async () => {
    const res = await call(h.app, '/v1/check?ip=8.8.8.8&format=thirdparty', { key });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      ip: '8.8.8.8',
      city: CITY.a,
      region: 'California',
      country: 'US',
      loc: '37.4056,-122.0775',
      org: 'AS15169 Google LLC',
      timezone: 'America/Los_Angeles',
      privacy: { vpn: false, proxy: false, tor: false, relay: false, hosting: true, service: 'Google Cloud' },
    });
  });

  it('accepts IPv6, IPv4-mapped IPv6 and answers a bogon without error', async () => {
    expect((await call(h.app, '/v1/check?ip=2001:4860::8888', { key })).json).toMatchObject({ version: 6, network: { asn: 15169 } });
    expect((await call(h.app, '/v1/check?ip=%3A%3Affff%3A8.8.8.8', { key })).json).toMatchObject({ ip: '8.8.8.8', version: 4 });
    const bogon = await call(h.app, '/v1/check?ip=10.1.2.3', { key });
    expect(bogon.status).toBe(200);
    expect(bogon.json.network.is_bogon).toBe(true);
  });

  it('400 missing_ip (absent or empty), invalid_ip, invalid_format, invalid_query', async () => {
    expectProblem(await call(h.app, '/v1/check', { key }), 400, 'missing_ip');
    expectProblem(await call(h.app, '/v1/check?ip=', { key }), 400, 'missing_ip');
    expectProblem(await call(h.app, '/v1/check?ip=1.2.3', { key }), 400, 'invalid_ip');
    expectProblem(await call(h.app, '/v1/check?ip=010.1.1.1', { key }), 400, 'invalid_ip');
    expectProblem(await call(h.app, `/v1/check?ip=${'9'.repeat(5000)}`, { key }), 400, 'invalid_ip');
    expectProblem(await call(h.app, '/v1/check?ip=8.8.8.8&format=xml', { key }), 400, 'invalid_format');
    expectProblem(await call(h.app, '/v1/check?ip=8.8.8.8&format=', { key }), 400, 'invalid_format');
    const unknown = await call(h.app, '/v1/check?ip=8.8.8.8&fields=geo', { key });
    expectProblem(unknown, 400, 'invalid_query');
    expect(unknown.json.detail).toContain('fields');
    const twice = await call(h.app, '/v1/check?ip=8.8.8.8&ip=1.1.1.1', { key });
    expectProblem(twice, 400, 'invalid_query');
    expect(twice.json.detail).toContain('more than once');
    // Error answers to a valid key still carry the quota headers.
    expect(twice.headers['ratelimit-limit']).toBe('50');
  });

  it("network.allocation_age_days is counted to the app clock's UTC day: it moves at 00:00:00.000 UTC, not before", async () => {
    const clock = { now: Date.parse('2026-03-31T23:59:59.999Z') };
    const app = createApp({ snapshot: (await import('./support/fixtures.js')).fixtureBytes('a'), store: h.store, logger: false, plans: TEST_PLANS, activationDelayMs: 0, now: () => clock.now });
    await app.ready;
    const k = await h.key('test', { createdAt: 0 });
    const age = async () => {
      const one = (await call(app, '/v1/check?ip=8.8.8.8', { key: k })).json.network;
      const inBatch = (await call(app, '/v1/check/batch', { key: k, body: { ips: ['8.8.8.8'] } })).json.results[0].network;
      expect(inBatch.allocation_age_days).toBe(one.allocation_age_days);
      return [one.allocation_date, one.allocation_age_days];
    };
    // 8.8.8.8's network is dated 1992-12-01 in the fixture.
    const before = (Date.UTC(2026, 2, 31) - Date.UTC(1992, 11, 1)) / 86_400_000;
    expect(await age()).toEqual(['1992-12-01', before]);
    clock.now += 1;
    expect(await age()).toEqual(['1992-12-01', before + 1]);
    clock.now += 86_400_000 - 1;
    expect(await age()).toEqual(['1992-12-01', before + 1]);
    await app.close();
  });

  it('an error answer counts nothing', async () => {
    const k = await h.key('test');
    await call(h.app, '/v1/check?ip=nope', { key: k });
    const res = await call(h.app, '/v1/check?ip=8.8.8.8', { key: k });
    expect(res.headers['ratelimit-remaining']).toBe('49');
  });
});

describe('authentication', () => {
  it('401 missing_api_key, invalid_api_key (malformed, unknown, wrong secret)', async () => {
    const missing = await call(h.app, '/v1/check?ip=8.8.8.8');
    expectProblem(missing, 401, 'missing_api_key');
    expect(missing.headers['www-authenticate']).toContain('Bearer');
    expect(missing.headers['ratelimit-limit']).toBeUndefined();
    expectProblem(await call(h.app, '/v1/check?ip=8.8.8.8', { key: 'hello' }), 401, 'invalid_api_key');
    expectProblem(await call(h.app, '/v1/check?ip=8.8.8.8', { key: `ipi_live_${'A'.repeat(32)}` }), 401, 'invalid_api_key');
    const wrongSecret = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a');
    expectProblem(await call(h.app, '/v1/check?ip=8.8.8.8', { key: wrongSecret }), 401, 'invalid_api_key');
  });

  it('accepts Authorization: Bearer on /v1 routes', async () => {
    const res = await call(h.app, '/v1/check?ip=8.8.8.8', { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
  });

  it('401 key_not_active before the activation delay, then 200', async () => {
    let now = Date.now();
    const store = openSqliteStore(':memory:');
    const app = createApp({ snapshot: (await import('./support/fixtures.js')).fixtureBytes('a'), store, logger: false, plans: TEST_PLANS, activationDelayMs: 60_000, now: () => now });
    await app.ready;
    const { createKey } = await import('../src/keys/manage.js');
    const { resolvePlans } = await import('../src/plans.js');
    const { key: k } = await createKey(store, { plan: 'test', plans: resolvePlans(TEST_PLANS), now });
    const early = await call(app, '/v1/check?ip=8.8.8.8', { key: k });
    expectProblem(early, 401, 'key_not_active');
    expect(early.headers['retry-after']).toBe('60');
    now += 59_000;
    expectProblem(await call(app, '/v1/check?ip=8.8.8.8', { key: k }), 401, 'key_not_active');
    now += 1_000;
    expect((await call(app, '/v1/check?ip=8.8.8.8', { key: k })).status).toBe(200);
    await app.close();
    await store.close();
  });

  it('403 key_revoked', async () => {
    const { revokeKey } = await import('../src/keys/manage.js');
    const { keyId } = await import('../src/keys/secret.js');
    const k = await h.key('test');
    expect((await call(h.app, '/v1/check?ip=8.8.8.8', { key: k })).status).toBe(200);
    await revokeKey(h.store, keyId(k)!, h.now()); // at the app's clock (the harness's runs from a fixed day)
    expectProblem(await call(h.app, '/v1/check?ip=8.8.8.8', { key: k }), 403, 'key_revoked');
  });

  it('a key whose plan the server does not offer is refused, not a 500', async () => {
    const { createKey } = await import('../src/keys/manage.js');
    const { key: k } = await createKey(h.store, { plan: 'gold', plans: { gold: { quota: 1, period: 'day', ratePerSecond: 0 } }, now: 0 });
    expectProblem(await call(h.app, '/v1/check?ip=8.8.8.8', { key: k }), 401, 'invalid_api_key');
  });
});

describe('routing', () => {
  it('404 for unknown paths, 405 with Allow for wrong methods', async () => {
    expectProblem(await call(h.app, '/v2/check?ip=8.8.8.8', { key }), 404, 'not_found');
    expectProblem(await call(h.app, '/thirdparty/8.8.8.8/hostname', { key }), 404, 'not_found');
    const post = await call(h.app, '/v1/check?ip=8.8.8.8', { key, method: 'POST' });
    expectProblem(post, 405, 'method_not_allowed');
    expect(post.headers['allow']).toBe('GET');
    const get = await call(h.app, '/v1/check/batch', { key, method: 'GET' });
    expectProblem(get, 405, 'method_not_allowed');
    expect(get.headers['allow']).toBe('POST');
    expect((await call(h.app, '/healthz', { method: 'DELETE' })).headers['allow']).toBe('GET, HEAD');
  });

  it('HEAD answers without a body, with the length of the GET answer\'s body', async () => {
    for (const path of ['/healthz', '/v1/openapi.json', '/attribution', '/']) {
      const get = await call(h.app, path);
      const head = await call(h.app, path, { method: 'HEAD' });
      expect(head.status).toBe(get.status);
      expect(head.body).toBe('');
      expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.body)));
      expect(head.headers['content-type']).toBe(get.headers['content-type']);
    }
  });
});

