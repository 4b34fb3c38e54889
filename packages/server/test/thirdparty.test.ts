/**
 * The /thirdparty alias, socket-less: single-field routes, the batch route and
 * its counting, Basic auth, and the thirdparty shape (bogon, anycast, a VPN
 * exit's datacenter in privacy.service) on every route that answers in it.
 */
import { open, type IpIntel, type ThirdPartyResult } from '@ipintel/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_NAMES, fieldText, fieldValue, parseThirdpartyPath } from '../src/routes/thirdparty-fields.js';
import { call, expectProblem, harness, type Harness } from './support/harness.js';
import { ANYCAST_IP, BOGON_IP, thirdpartyFixtureBytes, VPN_EXIT, VPN_EXIT_SERVICE } from './support/thirdparty-fixture.js';

const PLANS = { big: { quota: 1_000_000, period: 'day' as const, ratePerSecond: 0 }, five: { quota: 5, period: 'day' as const, ratePerSecond: 0 } };
const ADDRESSES = ['8.8.8.8', BOGON_IP, VPN_EXIT, ANYCAST_IP, '2001:4860::1', '9.9.9.9'];

let h: Harness;
let intel: IpIntel;
let key: string;

beforeAll(async () => {
  h = await harness({ snapshot: thirdpartyFixtureBytes(), plans: PLANS });
  intel = await open(thirdpartyFixtureBytes());
  key = await h.key('big');
});
afterAll(() => h.close());

const expected = (ip: string): ThirdPartyResult => intel.check(ip, { format: 'thirdparty' });
const remaining = (res: { headers: Record<string, string> }): number => Number(res.headers['ratelimit-remaining']);
const basic = (user: string, password = ''): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('the thirdparty shape on every route', () => {
  it('bogon: true for a non-public address, anycast: true, and the datacenter, not the VPN operator, in privacy.service', async () => {
    expect(expected(BOGON_IP).bogon).toBe(true);
    expect(expected(ANYCAST_IP).anycast).toBe(true);
    expect(expected(VPN_EXIT).privacy).toMatchObject({ vpn: true, hosting: true, service: VPN_EXIT_SERVICE });
    for (const ip of [BOGON_IP, ANYCAST_IP, VPN_EXIT]) {
      const want = expected(ip);
      expect((await call(h.app, `/thirdparty/${ip}/json`, { key })).json).toEqual(want);
      expect((await call(h.app, `/thirdparty/${ip}`, { key })).json).toEqual(want);
      expect((await call(h.app, `/v1/check?ip=${ip}&format=thirdparty`, { key })).json).toEqual(want);
      expect((await call(h.app, '/v1/check/batch', { key, body: { ips: [ip], format: 'thirdparty' } })).json.results[0]).toEqual(want);
      expect((await call(h.app, '/thirdparty/batch', { key, body: [ip] })).json[ip]).toEqual(want);
    }
  });
});

describe('single-field routes', () => {
  it('answer every field of every address as the whole result holds it, one lookup each', async () => {
    for (const ip of ADDRESSES) {
      const whole = expected(ip) as unknown as Record<string, unknown>;
      for (const field of FIELD_NAMES) {
        const res = await call(h.app, `/thirdparty/${encodeURIComponent(ip)}/${field}`, { key });
        expect(res.status, `${ip}/${field}`).toBe(200);
        if (field === 'privacy') {
          expect(res.headers['content-type']).toMatch(/^application\/json/);
          expect(res.json).toEqual(whole['privacy']);
          continue;
        }
        expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
        // Independent of fieldValue: read the field off the whole result.
        const [top, sub] = field.split('/') as [string, string | undefined];
        const v = (sub === undefined ? whole[top] : (whole[top] as Record<string, unknown>)[sub]) as string | boolean | undefined;
        const text = v === undefined ? (top === 'bogon' || top === 'anycast' ? 'false' : '') : String(v);
        expect(res.body, `${ip}/${field}`).toBe(`${text}\n`);
      }
    }
    expect((await call(h.app, '/thirdparty/8.8.8.8/country', { key })).body).toBe('US\n');
    expect((await call(h.app, `/thirdparty/${VPN_EXIT}/privacy/service`, { key })).body).toBe(`${VPN_EXIT_SERVICE}\n`);
    expect((await call(h.app, `/thirdparty/${BOGON_IP}/bogon`, { key })).body).toBe('true\n');
  });

  it('count one lookup per answer', async () => {
    const a = await call(h.app, '/thirdparty/8.8.8.8/city', { key });
    const b = await call(h.app, '/thirdparty/8.8.8.8/org', { key });
    expect(remaining(a) - remaining(b)).toBe(1);
  });

  it("/thirdparty/{field} answers for the caller's own address", async () => {
    expect((await call(h.app, '/thirdparty/country', { key, remoteAddress: '::ffff:8.8.8.8' })).body).toBe('US\n');
    expect((await call(h.app, '/thirdparty/ip', { key, remoteAddress: VPN_EXIT })).body).toBe(`${VPN_EXIT}\n`);
    expectProblem(await call(h.app, '/thirdparty/city', { key }), 400, 'missing_ip');
  });

  it('an unknown field is a 404 problem naming the fields, before the key is read', async () => {
    for (const path of ['/thirdparty/8.8.8.8/hostname', '/thirdparty/8.8.8.8/privacy/x', '/thirdparty/8.8.8.8/city/x', '/thirdparty/8.8.8.8/']) {
      const res = await call(h.app, path);
      expectProblem(res, 404, 'not_found');
      expect(res.json.detail).toContain('country');
    }
    expectProblem(await call(h.app, '/thirdparty/nope/country', { key }), 400, 'invalid_ip');
    expectProblem(await call(h.app, '/thirdparty/8.8.8.8/country?x=1', { key }), 400, 'invalid_query');
  });

  it('rule: a path names a field only if the field is one of FIELD_NAMES (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), fc.constantFrom('8.8.8.8', '::1', 'x'), (field, ip) => {
        const t = parseThirdpartyPath(`/${ip}/${field}`);
        if (t === undefined) return !FIELD_NAMES.includes(field) && field !== 'json';
        return t.ip === ip && (t.field === undefined ? field === 'json' : FIELD_NAMES.includes(t.field) && t.field === field);
      }),
    );
  });

  it('rule: fieldText of a field is one line holding its value (property over addresses)', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.constantFrom(...FIELD_NAMES.filter((f) => f !== 'privacy')), (ip, field) => {
        const text = fieldText(fieldValue(expected(ip), field));
        return text.endsWith('\n') && !text.slice(0, -1).includes('\n');
      }),
    );
  });
});

describe('HTTP Basic auth (curl -u KEY:)', () => {
  it('takes the key as the user name with an empty password on the /thirdparty routes', async () => {
    const res = await call(h.app, '/thirdparty/8.8.8.8/json', { headers: { authorization: basic(key) } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual(expected('8.8.8.8'));
    expect((await call(h.app, '/thirdparty/batch', { headers: { authorization: basic(key) }, body: ['8.8.8.8'] })).status).toBe(200);
    // Elsewhere Basic is no key, as ?token= is not.
    expectProblem(await call(h.app, '/v1/check?ip=8.8.8.8', { headers: { authorization: basic(key) } }), 401, 'missing_api_key');
  });

  it('malformed Basic credentials are a 401 problem, never a 500', async () => {
    const bad = ['Basic', 'Basic ', 'Basic !!!!', 'Basic a', `Basic ${'QUFB'.repeat(400)}`, basic('nocolon').replace(/Og==$/, ''), basic(''), basic(key, 'pw'), basic('ipi_live_short'),
      `Basic ${Buffer.from([0xff, 0xfe, 0x3a]).toString('base64')}`, `Basicx${Buffer.from(`${key}:`).toString('base64')}`];
    for (const authorization of bad) {
      const res = await call(h.app, '/thirdparty/8.8.8.8/json', { headers: { authorization } });
      expectProblem(res, 401, 'invalid_api_key');
      expect(res.headers['www-authenticate']).toBeDefined();
    }
  });

  it('rule: any Basic header answers 401 or (with the key) 200, never anything else (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 80 }), fc.base64String({ maxLength: 80 })), async (creds) => {
        const res = await h.app.handle({ method: 'GET', url: '/thirdparty/8.8.8.8', headers: { authorization: `Basic ${creds}` } });
        return res.status === 401 && res.headers['content-type'] === 'application/problem+json';
      }),
      { numRuns: 200 },
    );
  });
});

describe('POST /thirdparty/batch', () => {
  it('answers each path by key: whole results, field values, errors in place; one lookup per key holding a result', async () => {
    const paths = ['8.8.8.8', '8.8.8.8/country', `${BOGON_IP}/city`, 'nope', 'nope/country', '8.8.8.8/hostname', '8.8.8.8', '2001:4860::1/json', `/${VPN_EXIT}/privacy/service`, 'country'];
    const before = remaining(await call(h.app, '/thirdparty/8.8.8.8/ip', { key }));
    const res = await call(h.app, '/thirdparty/batch', { key, body: paths });
    expect(res.status).toBe(200);
    const body = res.json as Record<string, any>;
    expect(Object.keys(body)).toEqual([...new Set(paths)]);
    expect(body['8.8.8.8']).toEqual(expected('8.8.8.8'));
    expect(body['8.8.8.8/country']).toBe('US');
    expect(body[`${BOGON_IP}/city`]).toBe('');
    expect(body['2001:4860::1/json']).toEqual(expected('2001:4860::1'));
    expect(body[`/${VPN_EXIT}/privacy/service`]).toBe(VPN_EXIT_SERVICE);
    expect(body['nope'].error.code).toBe('invalid_ip');
    expect(body['nope/country'].error.code).toBe('invalid_ip');
    expect(body['8.8.8.8/hostname'].error.code).toBe('not_found');
    expect(body['country'].error.code).toBe('missing_ip');
    // Results: 8.8.8.8 (once), /country, bogon /city, 2001:4860::1/json, privacy/service.
    expect(before - remaining(res)).toBe(5);
  });

  it('?filter=1 drops keys without an answer, and does not count them', async () => {
    const before = remaining(await call(h.app, '/thirdparty/8.8.8.8/ip', { key }));
    const res = await call(h.app, '/thirdparty/batch?filter=1', { key, body: ['8.8.8.8/city', `${BOGON_IP}/city`, 'nope'] });
    expect(res.json).toEqual({ '8.8.8.8/city': 'Mountain View' });
    expect(before - remaining(res)).toBe(1);
    expectProblem(await call(h.app, '/thirdparty/batch?filter=2', { key, body: [] }), 400, 'invalid_query');
  });

  it('rule: the lookups counted are the keys of the answer that hold a result (property)', async () => {
    const pool = ['8.8.8.8', '8.8.8.8/country', '8.8.8.8/json', `${BOGON_IP}/bogon`, `${VPN_EXIT}/privacy`, 'x', 'x/city', '1.1.1.1/hostname', '2001:4860::1/loc', 'org', ''];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...pool), { maxLength: 30 }), fc.boolean(), async (paths, filter) => {
        const before = remaining(await call(h.app, '/thirdparty/8.8.8.8/ip', { key }));
        const res = await call(h.app, `/thirdparty/batch${filter ? '?filter=1' : ''}`, { key, body: paths });
        const values = Object.values(res.json as Record<string, unknown>);
        const results = values.filter((v) => !(typeof v === 'object' && v !== null && 'error' in v)).length;
        return res.status === 200 && before - remaining(res) === results && values.length <= new Set(paths).size;
      }),
      { numRuns: 40 },
    );
  });

  it('all or nothing against the quota, exact at the limit', async () => {
    const k = await h.key('five');
    expectProblem(await call(h.app, '/thirdparty/batch', { key: k, body: ['1.1.1.1', '1.1.1.2', '1.1.1.3', '1.1.1.4', '1.1.1.5', '1.1.1.6'] }), 429, 'quota_exceeded');
    const ok = await call(h.app, '/thirdparty/batch', { key: k, body: ['1.1.1.1', '1.1.1.2', '1.1.1.3', '1.1.1.4/city', 'nope', '1.1.1.5'] });
    expect(ok.status).toBe(200);
    expect(remaining(ok)).toBe(0);
    expectProblem(await call(h.app, '/thirdparty/batch', { key: k, body: ['8.8.8.8'] }), 429, 'quota_exceeded');
    // A batch with no result counts nothing, so it is still answered.
    expect((await call(h.app, '/thirdparty/batch', { key: k, body: ['nope'] })).status).toBe(200);
  });

  it('takes a JSON array or one path a line; refuses what is not a list of paths', async () => {
    const lines = await call(h.app, '/thirdparty/batch', { key, body: '8.8.8.8/country\r\n\n1.1.1.1/anycast\n', headers: { 'content-type': 'text/plain' } });
    expect(lines.json).toEqual({ '8.8.8.8/country': 'US', '1.1.1.1/anycast': true });
    const form = await call(h.app, '/thirdparty/batch', { key, body: '["8.8.8.8/country"]', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.json).toEqual({ '8.8.8.8/country': 'US' });
    expect((await call(h.app, '/thirdparty/batch', { key, body: [] })).json).toEqual({});
    expectProblem(await call(h.app, '/thirdparty/batch', { key, body: { ips: ['8.8.8.8'] } }), 400, 'invalid_body');
    expectProblem(await call(h.app, '/thirdparty/batch', { key, body: ['8.8.8.8', 7] }), 400, 'invalid_body');
    expectProblem(await call(h.app, '/thirdparty/batch', { key, body: '', headers: { 'content-type': 'text/plain' } }), 400, 'invalid_body');
    expectProblem(await call(h.app, '/thirdparty/batch', { key, body: '8.8.8.8', headers: { 'content-type': 'application/json' } }), 400, 'invalid_body');
    expectProblem(await call(h.app, '/thirdparty/batch', { key, body: 'x', headers: { 'content-type': 'image/png' } }), 415, 'unsupported_media_type');
    expectProblem(await call(h.app, '/thirdparty/batch', { key, body: Array(1001).fill('8.8.8.8') }), 413, 'batch_too_large');
    expect((await call(h.app, '/thirdparty/batch', { key, body: Array(1000).fill('8.8.8.8') })).status).toBe(200);
    expectProblem(await call(h.app, '/thirdparty/batch', { body: ['8.8.8.8'] }), 401, 'missing_api_key');
    const get = await call(h.app, '/thirdparty/batch', { key });
    expectProblem(get, 405, 'method_not_allowed');
    expect(get.headers['allow']).toBe('POST');
  });
});
