/**
 * GET /v1/openapi.json describes the API: real answers of every route, success
 * and problem alike, validate against the schemas the document gives for that
 * path, method, status and content type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../src/app.js';
import { PROBLEMS } from '../src/http/problem.js';
import { validate } from './support/json-schema.js';
import { call, harness, type CallInit, type Harness } from './support/harness.js';

let h: Harness;
let key: string;
let doc: Record<string, any>;

beforeAll(async () => {
  // A stopped clock 10 ms into a second: the `tiny` key's third call is always past its 2 per second (on the real clock a slow machine can cross into the next second).
  const now = Math.floor(Date.now() / 1000) * 1000 + 10;
  h = await harness({ now: () => now });
  key = await h.key('tiny');
  const res = await call(h.app, '/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.json;
});
afterAll(() => h.close());

async function conforms(app: App, template: string, url: string, init: CallInit = {}): Promise<number> {
  const res = await call(app, url, init);
  const method = (init.method ?? (init.body === undefined ? 'GET' : 'POST')).toLowerCase();
  // A 405 is documented on the path's own operation (the wrong method has none).
  const op = doc['paths'][template]?.[method] ?? (res.status === 405 ? Object.values(doc['paths'][template] ?? {})[0] : undefined);
  expect(op, `${method} ${template} documented`).toBeDefined();
  const documented = op.responses[String(res.status)];
  expect(documented, `${method} ${template} documents status ${res.status}`).toBeDefined();
  const type = res.headers['content-type']!.split(';')[0]!;
  const schema = documented.content?.[type]?.schema;
  expect(schema, `${template} ${res.status} documents ${type}`).toBeDefined();
  if (type.endsWith('json')) expect(validate(doc, schema, res.json), `${url} -> ${res.status}`).toEqual([]);
  if (res.json?.code !== undefined) expect(documented.description).toContain(`\`${res.json.code}\``);
  for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'Allow', 'Accept-Post', 'Accept-Encoding']) {
    if (res.headers[name.toLowerCase()] !== undefined) expect(documented.headers ?? {}, `${url} -> ${res.status} documents ${name}`).toHaveProperty(name);
  }
  return res.status;
}

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 with every route and every problem code', () => {
    expect(doc['openapi']).toBe('3.1.0');
    expect(Object.keys(doc['paths'])).toEqual(
      expect.arrayContaining(['/v1/check', '/v1/check/batch', '/thirdparty/{ip}/json', '/thirdparty/{ip}', '/attribution', '/healthz', '/v1/openapi.json']),
    );
    expect(doc['components'].schemas.Problem.properties.code.enum).toEqual(Object.keys(PROBLEMS));
    expect(doc['components'].securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
  });

  it('validates real answers of the lookup routes', async () => {
    const k = { key };
    expect(await conforms(h.app, '/v1/check', '/v1/check?ip=8.8.8.8', k)).toBe(200);
    expect(await conforms(h.app, '/v1/check', '/v1/check?ip=10.0.0.1', k)).toBe(200);
    expect(await conforms(h.app, '/v1/check', '/v1/check?ip=2001:db8::1&format=thirdparty', k)).toBe(429);
  });

  it('validates batches, the thirdparty routes and problems', async () => {
    const k2 = await h.key('test');
    const k = { key: k2 };
    expect(await conforms(h.app, '/v1/check', '/v1/check?ip=2001:4860::1&format=thirdparty', k)).toBe(200);
    expect(await conforms(h.app, '/v1/check/batch', '/v1/check/batch', { ...k, body: { ips: ['8.8.8.8', 'nope', 7, '10.0.0.1'] } })).toBe(200);
    expect(await conforms(h.app, '/v1/check/batch', '/v1/check/batch', { ...k, body: { ips: ['1.1.1.1'], format: 'thirdparty' } })).toBe(200);
    expect(await conforms(h.app, '/thirdparty/{ip}/json', `/thirdparty/8.8.8.8/json?token=${k2}`)).toBe(200);
    expect(await conforms(h.app, '/thirdparty/{ip}', '/thirdparty/9.9.9.9', k)).toBe(200);
    expect(await conforms(h.app, '/thirdparty/json', '/thirdparty/json', { ...k, remoteAddress: '1.2.3.4' })).toBe(200);
    expect(await conforms(h.app, '/thirdparty', '/thirdparty', { ...k, remoteAddress: '1.2.3.4' })).toBe(200);
    expect(await conforms(h.app, '/thirdparty/', '/thirdparty/', { ...k, remoteAddress: '1.2.3.4' })).toBe(200);
    expect(await conforms(h.app, '/v1/check', '/v1/check', k)).toBe(400);
    expect(await conforms(h.app, '/v1/check', '/v1/check?ip=x', k)).toBe(400);
    expect(await conforms(h.app, '/v1/check', '/v1/check?ip=8.8.8.8&format=x', k)).toBe(400);
    expect(await conforms(h.app, '/v1/check', '/v1/check?ip=8.8.8.8&a=b', k)).toBe(400);
    expect(await conforms(h.app, '/v1/check', '/v1/check?ip=8.8.8.8&explain=1', k)).toBe(503);
    const pending = await h.key('test', { createdAt: h.now() + 30_000 });
    expect(await conforms(h.app, '/v1/check', '/v1/check?ip=8.8.8.8', { key: pending })).toBe(401);
    expect(await conforms(h.app, '/v1/check', '/v1/check?ip=8.8.8.8')).toBe(401);
    expect(await conforms(h.app, '/v1/check', '/v1/check?ip=8.8.8.8', { method: 'PUT' })).toBe(405);
    expect(await conforms(h.app, '/v1/check/batch', '/v1/check/batch', { ...k, body: { ips: Array(101).fill('1.1.1.1') } })).toBe(413);
    expect(await conforms(h.app, '/v1/check/batch', '/v1/check/batch', { ...k, body: 'x', headers: { 'content-type': 'text/plain' } })).toBe(415);
    expect(await conforms(h.app, '/v1/check/batch', '/v1/check/batch', { ...k, body: '{}', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } })).toBe(415);
    expect(await conforms(h.app, '/v1/check/batch', '/v1/check/batch', { ...k, body: '[', headers: { 'content-type': 'application/json' } })).toBe(400);
  });

  it('validates the /thirdparty field and batch routes', async () => {
    const k2 = await h.key('test');
    const k = { key: k2 };
    expect(await conforms(h.app, '/thirdparty/{ip}/{field}', '/thirdparty/8.8.8.8/country', k)).toBe(200);
    expect(await conforms(h.app, '/thirdparty/{ip}/{field}', '/thirdparty/8.8.8.8/privacy', k)).toBe(200);
    expect(await conforms(h.app, '/thirdparty/{ip}/{field}', '/thirdparty/x/city', k)).toBe(400);
    expect(await conforms(h.app, '/thirdparty/{field}', '/thirdparty/privacy', { ...k, remoteAddress: '8.8.8.8' })).toBe(200);
    expect(await conforms(h.app, '/thirdparty/{ip}/privacy/{key}', '/thirdparty/8.8.8.8/privacy/hosting', k)).toBe(200);
    expect(await conforms(h.app, '/thirdparty/privacy/{key}', '/thirdparty/privacy/service', { ...k, remoteAddress: '8.8.8.8' })).toBe(200);
    expect(await conforms(h.app, '/thirdparty/{ip}/{field}', '/thirdparty/8.8.8.8/hostname')).toBe(404);
    const paths = ['8.8.8.8', '8.8.8.8/country', '10.0.0.1/bogon', '8.8.8.8/privacy', 'x', '8.8.8.8/hostname', 'city'];
    expect(await conforms(h.app, '/thirdparty/batch', '/thirdparty/batch', { ...k, body: paths })).toBe(200);
    expect(await conforms(h.app, '/thirdparty/batch', '/thirdparty/batch', { ...k, body: Array(1001).fill('x') })).toBe(413);
    expect(await conforms(h.app, '/thirdparty/batch', '/thirdparty/batch', { ...k, body: '{}', headers: { 'content-type': 'application/json' } })).toBe(400);
    expect(await conforms(h.app, '/thirdparty/batch', '/thirdparty/batch', { ...k, body: 'x', headers: { 'content-type': 'image/png' } })).toBe(415);
    expect(await conforms(h.app, '/thirdparty/batch', '/thirdparty/batch', { headers: { authorization: 'Basic !' }, body: [] })).toBe(401);
  });

  it('validates the service routes', async () => {
    expect(await conforms(h.app, '/healthz', '/healthz')).toBe(200);
    expect(await conforms(h.app, '/attribution', '/attribution', { headers: { accept: 'application/json' } })).toBe(200);
    expect(await conforms(h.app, '/attribution', '/attribution')).toBe(200);
    expect(await conforms(h.app, '/v1/openapi.json', '/v1/openapi.json')).toBe(200);
  });

  it('gives no path parameter a value holding a "/" (a client sends it as %2F, which the server reads as no field)', async () => {
    const k = { key: await h.key('test') };
    for (const [template, item] of Object.entries(doc['paths'] as Record<string, Record<string, any>>)) {
      for (const p of item['get']?.parameters ?? []) {
        if (p.in === 'path') for (const v of p.schema.enum ?? []) expect(String(v), `${template} {${p.name}}`).not.toContain('/');
      }
    }
    // What such a client would send:
    expect((await call(h.app, '/thirdparty/8.8.8.8/privacy%2Fvpn', k)).status).toBe(404);
  });

  it('documents the 405 of every path, with its Allow header', async () => {
    const paths: [string, string][] = [
      ['/healthz', '/healthz'],
      ['/attribution', '/attribution'],
      ['/v1/openapi.json', '/v1/openapi.json'],
      ['/thirdparty/{ip}', '/thirdparty/8.8.8.8'],
      ['/thirdparty/{ip}/json', '/thirdparty/8.8.8.8/json'],
      ['/thirdparty/json', '/thirdparty/json'],
      ['/thirdparty', '/thirdparty'],
      ['/thirdparty/', '/thirdparty/'],
      ['/thirdparty/{ip}/{field}', '/thirdparty/8.8.8.8/country'],
      ['/thirdparty/{field}', '/thirdparty/country'],
      ['/thirdparty/{ip}/privacy/{key}', '/thirdparty/8.8.8.8/privacy/vpn'],
      ['/thirdparty/privacy/{key}', '/thirdparty/privacy/vpn'],
      ['/thirdparty/batch', '/thirdparty/batch'],
      ['/v1/check', '/v1/check'],
      ['/v1/check/batch', '/v1/check/batch'],
    ];
    for (const [template, url] of paths) {
      expect(await conforms(h.app, template, url, { method: 'DELETE' }), url).toBe(405);
      const op = Object.values(doc['paths'][template])[0] as Record<string, any>;
      expect(op['responses']['405'].headers, template).toHaveProperty('Allow');
    }
  });

  it('on a server with a demo quota, the lookup routes take no key, as they answer without one', async () => {
    const plain = (await call(h.app, '/v1/openapi.json')).json;
    expect(plain['paths']['/v1/check'].get.security).not.toContainEqual({});
    const demo = await harness({ demoQuota: 5 });
    try {
      const served = (await call(demo.app, '/v1/openapi.json')).json;
      expect(served['info'].description).toContain('5 per client address');
      for (const [url, template, method, init] of [
        ['/v1/check?ip=8.8.8.8', '/v1/check', 'get', {}],
        ['/v1/check/batch', '/v1/check/batch', 'post', { body: { ips: ['8.8.8.8'] } }],
        ['/thirdparty/8.8.8.8/country', '/thirdparty/{ip}/{field}', 'get', {}],
        ['/thirdparty/batch', '/thirdparty/batch', 'post', { body: ['8.8.8.8'] }],
      ] as const) {
        const res = await call(demo.app, url, { remoteAddress: '192.0.2.7', ...init });
        expect(res.status, url).toBe(200);
        expect(served['paths'][template][method].security, template).toContainEqual({});
      }
      // The service routes never asked for a key.
      expect(served['paths']['/healthz'].get.security).toBeUndefined();
    } finally {
      await demo.close();
    }
  });

  it("names where the API is: the public URL, else the mount path (its paths are under it)", async () => {
    for (const [options, url] of [
      [{}, '/'],
      [{ basePath: '/ipintel/' }, '/ipintel'],
      [{ baseUrl: 'https://ip.example', basePath: '/ipintel' }, 'https://ip.example/ipintel'],
    ] as const) {
      const app = await harness(options);
      try {
        expect((await call(app.app, '/v1/openapi.json')).json['servers'], JSON.stringify(options)).toEqual([{ url }]);
      } finally {
        await app.close();
      }
    }
  });

  it('the validator catches a wrong shape', () => {
    const errors = validate(doc, { $ref: '#/components/schemas/CheckResult' }, { ip: 1, extra: true });
    expect(errors).toEqual(expect.arrayContaining(['$.ip: expected string, got integer', '$: unexpected property extra', '$: missing geo']));
  });
});
