/**
 * The routing core without sockets, part 2: POST /v1/check/batch, quota and
 * rate limits, 503s, the thirdparty alias routes, /attribution and /healthz.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError, type Store } from '../src/store/types.js';
import { createApp } from '../src/app.js';
import { call, expectProblem, harness, TEST_PLANS, type Harness } from './support/harness.js';
import { loadSnapshot, type SnapshotInfo } from '@ipintel/core';
import { encodeSnapshot } from '@ipintel/core/writer';
import { damageColumn } from '@ipintel/testkit';
import { fixtureModel } from './support/fixtures.js';
import { attributionEntries } from '../src/routes/attribution.js';

let h: Harness;
let key: string;

beforeAll(async () => {
  h = await harness();
  key = await h.key('test');
});
afterAll(() => h.close());

describe('POST /v1/check/batch', () => {
  const batch = (body: unknown, k = key, headers?: Record<string, string>) =>
    call(h.app, '/v1/check/batch', { key: k, method: 'POST', body: body as object, ...(headers ? { headers } : {}) });

  it('answers in request order, errors in place, counting only successes', async () => {
    const k = await h.key('test');
    const res = await batch({ ips: ['8.8.8.8', 'bad', '2001:4860::1', 42, null, '8.8.8.8'] }, k);
    expect(res.status).toBe(200);
    const r = res.json.results;
    expect(r).toHaveLength(6);
    expect(r[0].ip).toBe('8.8.8.8');
    expect(r[1]).toEqual({ ip: 'bad', error: { code: 'invalid_ip', message: expect.any(String) } });
    expect(r[2].version).toBe(6);
    expect(r[3]).toEqual({ ip: '42', error: { code: 'invalid_ip', message: 'ips[3] is a number, not a string' } });
    expect(r[4].error.code).toBe('invalid_ip');
    expect(r[5].ip).toBe('8.8.8.8');
    expect(res.headers['ratelimit-remaining']).toBe('47');
  });

  it('a non-string element is named by its JSON kind with its article: an object, an array, a number (never "a object")', async () => {
    const k = await h.key('test');
    const res = await batch({ ips: [{ a: 1 }, [1], true, 'x'] }, k);
    expect(res.json.results.map((r: { error: { message: string } }) => r.error.message)).toEqual([
      'ips[0] is an object, not a string',
      'ips[1] is an array, not a string',
      'ips[2] is a boolean, not a string',
      expect.stringContaining('"x" is not a valid IP address'),
    ]);
    const tp = await call(h.app, '/thirdparty/batch', { key: k, body: ['8.8.8.8', { ip: '8.8.8.8' }] });
    expectProblem(tp, 400, 'invalid_body');
    expect(tp.json.detail).toBe('element 1 is an object, not a path string; nothing was counted');
  });

  it('format=thirdparty in the body or the query', async () => {
    expect((await batch({ ips: ['8.8.8.8'], format: 'thirdparty' })).json.results[0].privacy.hosting).toBe(true);
    const q = await call(h.app, '/v1/check/batch?format=thirdparty', { key, body: { ips: ['8.8.8.8'] } });
    expect(q.json.results[0].org).toBe('AS15169 Google LLC');
    expectProblem(await call(h.app, '/v1/check/batch?format=native', { key, body: { ips: [], format: 'thirdparty' } }), 400, 'invalid_format');
    expectProblem(await batch({ ips: ['8.8.8.8'], format: 'csv' }), 400, 'invalid_format');
    expectProblem(await batch({ ips: ['8.8.8.8'], format: 1 }), 400, 'invalid_format');
  });

  it('400 invalid_body for non-JSON, wrong shapes, unknown fields', async () => {
    expectProblem(await batch('{"ips": [', key, { 'content-type': 'application/json' }), 400, 'invalid_body');
    expectProblem(await batch('', key, { 'content-type': 'application/json' }), 400, 'invalid_body');
    expectProblem(await batch(new Uint8Array([0x7b, 0xff, 0x7d]), key, { 'content-type': 'application/json' }), 400, 'invalid_body');
    expectProblem(await batch([]), 400, 'invalid_body');
    expectProblem(await batch({ ip: '8.8.8.8' }), 400, 'invalid_body');
    expectProblem(await batch({ ips: '8.8.8.8' }), 400, 'invalid_body');
    expectProblem(await batch({ ips: ['8.8.8.8'], extra: 1 }), 400, 'invalid_body');
    expectProblem(await call(h.app, '/v1/check/batch?ips=1', { key, body: { ips: [] } }), 400, 'invalid_query');
  });

  it('an empty batch answers an empty list', async () => {
    expect((await batch({ ips: [] })).json).toEqual({ results: [] });
  });

  it('413 batch_too_large over 100 IPs, nothing counted', async () => {
    const k = await h.key('test');
    const res = await batch({ ips: Array.from({ length: 101 }, () => '8.8.8.8') }, k);
    expectProblem(res, 413, 'batch_too_large');
    expect(res.headers['ratelimit-remaining']).toBe('50');
    expect((await batch({ ips: Array.from({ length: 100 }, () => 'x') }, k)).status).toBe(200);
  });

  it('413 body_too_large over the size limit, closing the connection', async () => {
    const res = await batch(JSON.stringify({ ips: ['8.8.8.8'], pad: 'x'.repeat(70_000) }), key, { 'content-type': 'application/json' });
    expectProblem(res, 413, 'body_too_large');
    expect(res.close).toBe(true);
    const declared = await batch('{}', key, { 'content-type': 'application/json', 'content-length': '10000000' });
    expectProblem(declared, 413, 'body_too_large');
  });

  it('415 for other content types', async () => {
    const res = await batch('ips=8.8.8.8', key, { 'content-type': 'application/x-www-form-urlencoded' });
    expectProblem(res, 415, 'unsupported_media_type');
    expect(res.headers['accept-post']).toBe('application/json');
    expectProblem(await batch('{"ips":[]}', key, {}), 415, 'unsupported_media_type');
    expectProblem(await batch('{"ips":[]}', key, { 'content-type': 'application/json; charset=latin1' }), 415, 'unsupported_media_type');
    expect((await batch('{"ips":[]}', key, { 'content-type': 'application/json; charset=UTF-8' })).status).toBe(200);
  });

  it('415 for a compressed body (Content-Encoding), on both batch routes; identity is the body as sent', async () => {
    for (const path of ['/v1/check/batch', '/thirdparty/batch']) {
      const coded = await call(h.app, path, { key, method: 'POST', body: new Uint8Array([0x1f, 0x8b, 0x08, 0]), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
      expectProblem(coded, 415, 'unsupported_media_type');
      expect(coded.headers['accept-encoding']).toBe('identity');
      expect(coded.json.detail).toMatch(/Content-Encoding "gzip"/);
    }
    expect((await batch('{"ips":[]}', key, { 'content-type': 'application/json', 'content-encoding': 'identity' })).status).toBe(200);
  });
});

describe('quota and rate limits', () => {
  it('429 quota_exceeded with Retry-After; a batch that would cross the quota is refused whole', async () => {
    const k = await h.key('tiny', { createdAt: 0 }); // 3 per day, 2 per second
    // Noon UTC today: the test moves the clock 3 s on, which must stay inside one UTC day whenever it runs.
    const clock = { now: Math.floor(Date.now() / 86_400_000) * 86_400_000 + 43_200_000 };
    const app = createApp({ snapshot: (await import('./support/fixtures.js')).fixtureBytes('a'), store: h.store, logger: false, plans: TEST_PLANS, activationDelayMs: 0, now: () => clock.now });
    await app.ready;
    expect((await call(app, '/v1/check/batch', { key: k, body: { ips: ['8.8.8.8', '8.8.8.8'] } })).headers['ratelimit-remaining']).toBe('1');
    clock.now += 1000;
    const whole = await call(app, '/v1/check/batch', { key: k, body: { ips: ['8.8.8.8', '8.8.8.8'] } });
    expectProblem(whole, 429, 'quota_exceeded');
    expect(whole.headers['ratelimit-remaining']).toBe('1');
    expect(Number(whole.headers['retry-after'])).toBe(Number(whole.headers['ratelimit-reset']));
    clock.now += 1000;
    expect((await call(app, '/v1/check?ip=8.8.8.8', { key: k })).headers['ratelimit-remaining']).toBe('0');
    clock.now += 1000;
    const over = await call(app, '/v1/check?ip=8.8.8.8', { key: k });
    expectProblem(over, 429, 'quota_exceeded');
    expect(over.headers['ratelimit-remaining']).toBe('0');
    // The next UTC day has a fresh quota.
    clock.now += 86_400_000;
    expect((await call(app, '/v1/check?ip=8.8.8.8', { key: k })).status).toBe(200);
    await app.close();
  });

  it("a count at 23:59:59.999 UTC is its day's and month's, one at 00:00:00.000 the next one's; a day does not renew a month", async () => {
    const plans = { day2: { quota: 2, period: 'day' as const, ratePerSecond: 0 }, month2: { quota: 2, period: 'month' as const, ratePerSecond: 0 } };
    const clock = { now: Date.parse('2026-03-31T23:59:59.999Z') };
    const app = createApp({ snapshot: (await import('./support/fixtures.js')).fixtureBytes('a'), store: h.store, logger: false, plans, activationDelayMs: 0, now: () => clock.now });
    await app.ready;
    const { createKey } = await import('../src/keys/manage.js');
    const { resolvePlans } = await import('../src/plans.js');
    const made = (plan: string) => createKey(h.store, { plan, plans: resolvePlans(plans), now: 0 });
    const [day, month] = [await made('day2'), await made('month2')];
    const lookUp = (k: string) => call(app, '/v1/check?ip=8.8.8.8', { key: k });
    for (const { key: k } of [day, month]) {
      expect((await lookUp(k)).headers['ratelimit-remaining']).toBe('1');
      const last = await lookUp(k);
      expect([last.status, last.headers['ratelimit-remaining'], last.headers['ratelimit-reset']]).toEqual([200, '0', '1']);
      const over = await lookUp(k);
      expectProblem(over, 429, 'quota_exceeded');
      expect(over.headers['retry-after']).toBe('1');
      expect(over.json.detail).toContain('the quota resets at 2026-04-01T00:00:00.000Z');
    }
    clock.now += 1;
    const nextDay = await lookUp(day.key);
    expect([nextDay.status, nextDay.headers['ratelimit-remaining'], nextDay.headers['ratelimit-reset']]).toEqual([200, '1', '86400']);
    const nextMonth = await lookUp(month.key);
    expect([nextMonth.status, nextMonth.headers['ratelimit-remaining'], nextMonth.headers['ratelimit-reset']]).toEqual([200, '1', String(30 * 86_400)]);
    expect([await h.store.usage(day.record.account, 'd2026-03-31'), await h.store.usage(day.record.account, 'd2026-04-01')]).toEqual([2, 1]);
    expect([await h.store.usage(month.record.account, 'm2026-03'), await h.store.usage(month.record.account, 'm2026-04')]).toEqual([2, 1]);
    // The next day boundary inside April: the day's quota starts again, the month's goes on.
    clock.now = Date.parse('2026-04-01T23:59:59.999Z');
    expect((await lookUp(month.key)).headers['ratelimit-remaining']).toBe('0');
    clock.now += 1;
    expectProblem(await lookUp(month.key), 429, 'quota_exceeded');
    expect((await lookUp(day.key)).headers['ratelimit-remaining']).toBe('1');
    expect(await h.store.usage(day.record.account, 'd2026-04-02')).toBe(1);
    await app.close();
  });

  it('429 rate_limited with Retry-After: 1 past the per-second limit', async () => {
    const k = await h.key('tiny', { createdAt: 0 });
    const now = Math.floor(Date.now() / 1000) * 1000 + 10;
    const app = createApp({ snapshot: (await import('./support/fixtures.js')).fixtureBytes('a'), store: h.store, logger: false, plans: TEST_PLANS, activationDelayMs: 0, now: () => now });
    await app.ready;
    expect((await call(app, '/v1/check?ip=nope', { key: k })).status).toBe(400);
    expect((await call(app, '/v1/check?ip=8.8.8.8', { key: k })).status).toBe(200);
    const limited = await call(app, '/v1/check?ip=8.8.8.8', { key: k });
    expectProblem(limited, 429, 'rate_limited');
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.headers['ratelimit-remaining']).toBe('2');
    // A wrong request past the limit is refused for the limit (docs/api.md, "Order of checks"): it needs a token too.
    expectProblem(await call(app, '/v1/check?ip=nope', { key: k }), 429, 'rate_limited');
    await app.close();
  });

  it('rate limits can be turned off', async () => {
    const k = await h.key('tiny');
    const app = createApp({ snapshot: (await import('./support/fixtures.js')).fixtureBytes('a'), store: h.store, logger: false, plans: TEST_PLANS, activationDelayMs: 0, rateLimit: false });
    await app.ready;
    for (let i = 0; i < 3; i++) expect((await call(app, '/v1/check?ip=8.8.8.8', { key: k })).status).toBe(200);
    await app.close();
  });
});

describe('503', () => {
  it('snapshot_unavailable while no snapshot is loaded', async () => {
    const app = createApp({ snapshot: '/nonexistent/dir/snap.ipintel', store: h.store, logger: false, plans: TEST_PLANS, activationDelayMs: 0, watch: false });
    await app.ready;
    const res = await call(app, '/v1/check?ip=8.8.8.8', { key });
    expectProblem(res, 503, 'snapshot_unavailable');
    expect(res.headers['retry-after']).toBeDefined();
    expectProblem(await call(app, '/attribution'), 503, 'snapshot_unavailable');
    const health = await call(app, '/healthz');
    expect(health.status).toBe(503);
    expect(health.json.snapshot.loaded).toBe(false);
    await app.close();
  });

  it('a snapshot at fault fails the whole batch as it fails /v1/check (500), never as an element error, and counts nothing', async () => {
    // Checksums right, the IPv6 index broken (a leaf id out of range): a snapshot loaded without
    // preload (an embedder's IpIntel) refuses every IPv6 call with snapshot_corrupt, and IPv4 answers.
    const file = damageColumn(encodeSnapshot(fixtureModel('a'), { compress: false }), 'v6.leaf', (col) => col.setUint8(2, 0x7f));
    const hx = await harness({ snapshot: loadSnapshot(file) });
    const k = await hx.key('test');
    expectProblem(await call(hx.app, '/v1/check?ip=2001:4860::1', { key: k }), 500, 'internal_error');
    const res = await call(hx.app, '/v1/check/batch', { key: k, body: { ips: ['8.8.8.8', '2001:4860::1'] } });
    expectProblem(res, 500, 'internal_error');
    expect(res.body).not.toContain('snapshot_corrupt');
    // Nothing was counted: the key's whole quota is left.
    expect((await call(hx.app, '/v1/check?ip=8.8.8.8', { key: k })).headers['ratelimit-remaining']).toBe('49');
    await hx.close();
  });

  it('store_unavailable when the store fails, serving nothing uncounted', async () => {
    const broken: Store = {
      kind: 'broken',
      location: 'nowhere',
      getKey: () => Promise.reject(new StoreUnavailableError('down')),
      insertKey: () => Promise.reject(new StoreUnavailableError('down')),
      listKeys: () => Promise.reject(new StoreUnavailableError('down')),
      revokeKey: () => Promise.reject(new StoreUnavailableError('down')),
      consume: () => Promise.reject(new StoreUnavailableError('down')),
      usage: () => Promise.reject(new StoreUnavailableError('down')),
      ping: () => Promise.reject(new StoreUnavailableError('down')),
      close: () => Promise.resolve(),
    };
    const app = createApp({ snapshot: (await import('./support/fixtures.js')).fixtureBytes('a'), store: broken, logger: false });
    await app.ready;
    expectProblem(await call(app, '/v1/check?ip=8.8.8.8', { key }), 503, 'store_unavailable');
    const health = await call(app, '/healthz');
    expect(health.status).toBe(503);
    expect(health.json.store).toEqual({ kind: 'broken', status: 'unavailable' });
    // Key found but counting fails: the looked-up result is not served.
    const countFails: Store = { ...h.store, consume: () => Promise.reject(new StoreUnavailableError('down')) };
    const app2 = createApp({ snapshot: (await import('./support/fixtures.js')).fixtureBytes('a'), store: countFails, logger: false, plans: TEST_PLANS, activationDelayMs: 0 });
    await app2.ready;
    const res = await call(app2, '/v1/check?ip=8.8.8.8', { key });
    expectProblem(res, 503, 'store_unavailable');
    expect(res.body).not.toContain('Mountain View');
    await app.close();
    await app2.close();
  });

  it('500 internal_error for a bug, never a crash', async () => {
    const buggy: Store = { ...h.store, getKey: () => Promise.reject(new TypeError('boom')) };
    const app = createApp({ snapshot: (await import('./support/fixtures.js')).fixtureBytes('a'), store: buggy, logger: false });
    await app.ready;
    expectProblem(await call(app, '/v1/check?ip=8.8.8.8', { key }), 500, 'internal_error');
    await app.close();
  });
});

describe('thirdparty alias routes', () => {
  it('/thirdparty/{ip}/json and /thirdparty/{ip} with Bearer or ?token=', async () => {
    const a = await call(h.app, '/thirdparty/8.8.8.8/json', { headers: { authorization: `Bearer ${key}` } });
    expect(a.status).toBe(200);
    expect(a.json.org).toBe('AS15169 Google LLC');
    expect(a.json.risk).toBeUndefined();
    const b = await call(h.app, `/thirdparty/8.8.8.8?token=${key}`);
    expect(b.status).toBe(200);
    expect(b.json).toEqual(a.json);
    expect((await call(h.app, '/thirdparty/2001%3A4860%3A%3A1/json', { key })).json.org).toBe('AS15169 Google LLC');
    expectProblem(await call(h.app, '/thirdparty/8.8.8.8/json'), 401, 'missing_api_key');
    expectProblem(await call(h.app, `/thirdparty/nope/json?token=${key}`), 400, 'invalid_ip');
    expectProblem(await call(h.app, `/thirdparty/%E0%A4%A/json?token=${key}`), 400, 'invalid_ip');
    expectProblem(await call(h.app, `/thirdparty/8.8.8.8?token=${key}&x=1`), 400, 'invalid_query');
  });

  it("/thirdparty/json answers for the caller's own address", async () => {
    const res = await call(h.app, '/thirdparty/json', { key, remoteAddress: '::ffff:8.8.8.8' });
    expect(res.json.ip).toBe('8.8.8.8');
    expectProblem(await call(h.app, '/thirdparty/json', { key }), 400, 'missing_ip');
  });
});

describe('GET /attribution and /healthz', () => {
  it('lists the sources as HTML by default and JSON on request', async () => {
    const html = await call(h.app, '/attribution', { headers: { accept: 'text/html,*/*' } });
    expect(html.status).toBe(200);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.body).toContain('<a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>');
    expect(html.body).toContain('RouteViews &#60;Oregon&#62;');
    const json = await call(h.app, '/attribution', { headers: { accept: 'application/json' } });
    expect(json.json.sources[0]).toMatchObject({ id: 'dbip-city-lite', attribution_required: true, licence: 'CC BY 4.0' });
    expect(json.json.sources[1].attribution_required).toBe(false);
  });

  it('links the licence of a source whose licence text carries its attribution notice (as the builder writes DB-IP\'s)', () => {
    const source = (id: string, licence: string) => ({ id, publisher: 'p', url: 'https://example.com/', licence, attribution_required: true, data_date: null, entries: 1 });
    const info = { sources: [
      source('a-dbip', 'CC BY 4.0 (IP Geolocation by DB-IP, https://db-ip.com)'),
      source('b-asn', 'CC BY 4.0 (RouteViews, NRO, DB-IP: attribution with a link to https://db-ip.com)'),
      source('c-plain', 'CC0-1.0'),
      source('d-other', 'Vultr public geofeed; column 1 extracted by lord-alfred/ipranges (CC0)'),
      source('e-proto', 'constructor'),
    ] } as unknown as SnapshotInfo;
    expect(attributionEntries(info).map((e) => [e.id, e.licence_url])).toEqual([
      ['a-dbip', 'https://creativecommons.org/licenses/by/4.0/'],
      ['b-asn', 'https://creativecommons.org/licenses/by/4.0/'],
      ['c-plain', 'https://creativecommons.org/publicdomain/zero/1.0/'],
      ['d-other', null],
      ['e-proto', null],
    ]);
  });

  it('healthz needs no key and reports the snapshot and store', async () => {
    const res = await call(h.app, '/healthz');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'ok', snapshot: { loaded: true, build_date: '2026-01-01T00:00:00.000Z' }, store: { kind: 'sqlite', status: 'ok' } });
  });
});
