/**
 * Row 17 of issue 11: options for deployments behind a proxy or called from
 * a browser, and serving without the per-second limit:
 *  - rateLimit: false (startServer) serves past a plan's per-second limit;
 *  - corsOrigins: preflights answered without a key, CORS headers on every
 *    answer (errors too) for allowed origins only;
 *  - trustProxy: the client address comes from X-Forwarded-For only through
 *    trusted peers (property against a plain model of the rule).
 */
import fc from 'fast-check';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clientAddressResolver } from '../../src/http/client-address.js';
import { corsPolicy } from '../../src/http/cors.js';
import { createKey } from '../../src/keys/manage.js';
import { resolvePlans } from '../../src/plans.js';
import { methodsOf } from '../../src/routes/router.js';
import { startServer } from '../../src/standalone.js';
import { fixtureBytes } from '../support/fixtures.js';
import { call, captureLogger, expectProblem, harness, TEST_PLANS, tempDir } from '../support/harness.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('rateLimit: false', () => {
  it('serves past the per-second limit through startServer', async () => {
    const now = Math.floor(Date.now() / 1000) * 1000 + 5;
    const s = await startServer({ port: 0, snapshot: fixtureBytes('a'), store: `sqlite:${join(tmp.dir, 'rate.sqlite')}`, logger: false, sighup: false, plans: TEST_PLANS, activationDelayMs: 0, rateLimit: false, now: () => now, drainTimeoutMs: 100 });
    const { key } = await createKey(s.store, { plan: 'tiny', plans: resolvePlans(TEST_PLANS), now: 0 }); // 2 per second, 3 per day
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${s.url}/v1/check?ip=8.8.8.8`, { headers: { 'x-api-key': key } })).status);
    expect(statuses).toEqual([200, 200, 200]);
    await s.close();
  });
});

describe('corsOrigins', () => {
  const origin = 'https://app.example.com';
  const preflight = (headers: Record<string, string>, url = '/v1/check/batch') => ({ method: 'OPTIONS', headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key, content-type', ...headers }, url });

  it('answers preflights from allowed origins with 204, without a key, counting nothing', async () => {
    const h = await harness({ corsOrigins: [origin, 'http://localhost:3000'] });
    const p = preflight({ origin });
    const res = await call(h.app, p.url, { method: p.method, headers: p.headers });
    expect(res.status).toBe(204);
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'x-api-key, authorization, content-type',
      'access-control-max-age': '600',
    });
    expect(res.headers['vary']).toContain('Origin');
    expect((await call(h.app, '/healthz', { method: 'OPTIONS', headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'GET' } })).headers['access-control-allow-methods']).toBe('GET, HEAD');
    expectProblem(await call(h.app, p.url, { method: p.method, headers: { ...p.headers, origin: 'https://evil.example' } }), 403, 'origin_not_allowed');
    expectProblem(await call(h.app, '/nowhere', { method: 'OPTIONS', headers: { ...p.headers, origin } }), 404, 'not_found');
    await h.close();
  });

  it('a preflight for a method the path does not take is 405 method_not_allowed with Allow, so the browser fails it', async () => {
    const h = await harness({ corsOrigins: [origin] });
    for (const [url, method, allow] of [
      ['/v1/check', 'POST', 'GET'],
      ['/v1/check/batch', 'GET', 'POST'],
      ['/v1/check/batch', 'post', 'POST'], // methods are case-sensitive (RFC 9110, 9.1)
      ['/healthz', 'DELETE', 'GET, HEAD'],
      ['/thirdparty/8.8.8.8', 'PUT', 'GET'],
    ] as const) {
      const res = await call(h.app, url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method } });
      expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers['allow']).toBe(allow);
      expect(res.headers['access-control-allow-methods']).toBeUndefined();
    }
    await h.close();
  });

  it('rule: a browser passes a preflight exactly when the path takes the method (property, Fetch standard CORS-preflight fetch)', async () => {
    const h = await harness({ corsOrigins: [origin] });
    const SAFELISTED = ['GET', 'HEAD', 'POST'];
    /** The Fetch standard's checks of a preflight answer (no credentials): ok status, the origin allowed, the method allowed or safelisted. */
    const passes = (res: { status: number; headers: Record<string, string> }, method: string): boolean => {
      if (res.status < 200 || res.status > 299) return false;
      const allowOrigin = res.headers['access-control-allow-origin'];
      if (allowOrigin !== '*' && allowOrigin !== origin) return false;
      const methods = (res.headers['access-control-allow-methods'] ?? '').split(',').map((m) => m.trim()).filter((m) => m !== '');
      return methods.includes(method) || methods.includes('*') || SAFELISTED.includes(method);
    };
    const paths = fc.constantFrom('/v1/check', '/v1/check/batch', '/thirdparty/batch', '/healthz', '/attribution', '/v1/openapi.json', '/', '/thirdparty/8.8.8.8', '/thirdparty/8.8.8.8/country');
    const methods = fc.oneof(fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'get', 'post'), fc.stringMatching(/^[A-Za-z]{1,8}$/));
    await fc.assert(
      fc.asyncProperty(paths, methods, async (path, method) => {
        const res = await call(h.app, path, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method } });
        const taken = methodsOf(path)!.split(', ');
        expect(passes(res, method)).toBe(taken.includes(method));
        if (!taken.includes(method)) {
          expectProblem(res, 405, 'method_not_allowed');
          expect(res.headers['allow']).toBe(methodsOf(path));
        }
      }),
      { numRuns: 300 },
    );
    await h.close();
  });

  it('adds CORS headers to every answer for an allowed origin, errors included, and none for others', async () => {
    const h = await harness({ corsOrigins: [origin] });
    const key = await h.key('test');
    const ok = await call(h.app, '/v1/check?ip=8.8.8.8', { key, headers: { origin } });
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(origin);
    expect(ok.headers['access-control-expose-headers']).toContain('RateLimit-Remaining');
    const refused = await call(h.app, '/v1/check?ip=8.8.8.8', { headers: { origin } });
    expectProblem(refused, 401, 'missing_api_key');
    expect(refused.headers['access-control-allow-origin']).toBe(origin);
    const other = await call(h.app, '/v1/check?ip=8.8.8.8', { key, headers: { origin: 'https://evil.example' } });
    expect(other.status).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers['vary']).toBe('Origin');
    await h.close();
  });

  it('configured origins are normalised as browsers serialise them; a request Origin matches exactly and is echoed as sent', async () => {
    const h = await harness({ corsOrigins: ['HTTPS://App.Example.COM/', 'https://api.example.com:443', 'http://LocalHost:3000'] });
    const allowed = async (origin: string) => (await call(h.app, '/healthz', { headers: { origin } })).headers['access-control-allow-origin'];
    expect(await allowed('https://app.example.com')).toBe('https://app.example.com');
    expect(await allowed('https://api.example.com')).toBe('https://api.example.com');
    expect(await allowed('http://localhost:3000')).toBe('http://localhost:3000');
    // No browser sends these: they are not the serialisation of an allowed origin.
    for (const other of ['HTTPS://APP.EXAMPLE.COM', 'https://app.example.com/', 'https://App.Example.COM/', 'https://api.example.com:443', 'http://localhost:3000/', 'https://app.example.com:8443', 'http://app.example.com', 'null', 'https://app.example.com, https://evil.example']) {
      expect(await allowed(other), other).toBeUndefined();
    }
    expectProblem(await call(h.app, '/healthz', { method: 'OPTIONS', headers: { origin: 'HTTPS://APP.EXAMPLE.COM', 'access-control-request-method': 'GET' } }), 403, 'origin_not_allowed');
    await h.close();
  });

  it('an entry that is not an origin (a path, a query, a user, another scheme, a bad port) is refused at start-up, saying why', async () => {
    for (const [entry, why] of [
      ['app.example.com', /does not start with http:\/\/ or https:\/\//],
      ['ftp://app.example.com', /does not start with http:\/\/ or https:\/\//],
      ['null', /does not start/],
      ['https://app.example.com/api', /has a path \("\/api"\)/],
      ['https://app.example.com//', /has a path/],
      ['https://app.example.com/?x=1', /has a path|query/],
      ['https://app.example.com?x=1', /query/],
      ['https://app.example.com#top', /fragment/],
      ['https://user@app.example.com', /user/],
      ['https://app.example.com:99999', /host or port/],
      ['https://', /host or port/],
      ['https://app example.com', /host or port/],
    ] as const) {
      expect(() => corsPolicy([entry], 'urn:x:'), entry).toThrow(TypeError);
      expect(() => corsPolicy([entry], 'urn:x:'), entry).toThrow(new RegExp(`^corsOrigins: ${JSON.stringify(entry).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not an origin: `));
      expect(() => corsPolicy([entry], 'urn:x:'), entry).toThrow(why);
    }
  });

  it('rule: for any origin configured in any case, with or without a default port or a trailing slash, exactly its browser serialisation matches (property)', () => {
    const scheme = fc.constantFrom('http', 'https');
    const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined });
    fc.assert(
      fc.property(scheme, fc.domain(), port, fc.boolean(), fc.integer(), fc.string({ maxLength: 30 }), (sch, host, p, slash, seed, noise) => {
        const defaultPort = sch === 'https' ? 443 : 80;
        // What a browser sends: lower case, no default port, no slash (written out here, not by the URL parser).
        const serialised = `${sch}://${host}${p === undefined || p === defaultPort ? '' : `:${p}`}`;
        const written = `${sch}://${host}${p === undefined ? '' : `:${p}`}${slash ? '/' : ''}`;
        // Any mix of case in the configured entry.
        const configured = [...written].map((c, i) => ((seed >> i % 31) & 1 ? c.toUpperCase() : c)).join('');
        const cors = corsPolicy([configured], 'urn:x:')!;
        const acao = (origin: string) => cors.decorate({ method: 'GET', url: '/healthz', headers: { origin } }, { status: 200, headers: {}, body: '' }).headers['access-control-allow-origin'];
        expect(acao(serialised)).toBe(serialised);
        // Nothing else matches: the entry as written (when it is not the serialisation), other cases, a slash, the default port, another scheme or port, a longer host, noise.
        const others = [
          written,
          configured,
          serialised.toUpperCase(),
          `${serialised}/`,
          `${sch}://${host}:${p ?? defaultPort}`,
          `${sch === 'https' ? 'http' : 'https'}://${host}${p === undefined ? '' : `:${p}`}`,
          `${serialised}0`,
          `${sch}://x${host}`,
          `${serialised}.evil.example`,
          noise,
        ];
        for (const o of others) if (o !== serialised) expect(acao(o), o).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('* allows any origin; without the option there is no CORS and OPTIONS is a 405', async () => {
    const any = await harness({ corsOrigins: ['*'] });
    expect((await call(any.app, '/healthz', { headers: { origin: 'https://x.test' } })).headers['access-control-allow-origin']).toBe('*');
    await any.close();
    const off = await harness();
    const res = await call(off.app, '/v1/check/batch', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    await off.close();
    await expect(harness({ corsOrigins: ['app.example.com'] })).rejects.toThrow(/corsOrigins/);
  });
});

describe('trustProxy', () => {
  const v4 = fc.ipV4();
  const entry = fc.oneof({ weight: 5, arbitrary: v4 }, { weight: 1, arbitrary: fc.constantFrom('unknown', '', ' 10.0.0.1 ', '[::1]:80', '1.2.3.4:8080') });

  /** The rule, written plainly: walk left from the peer while the current address is trusted. */
  function model(peer: string, chain: string[], trusted: (a: string, hop: number) => boolean): string {
    const plain = (t: string): string | undefined => {
      const s = t.trim().replace(/^\[(.*)\](:\d+)?$/, '$1').replace(/^(\d+\.\d+\.\d+\.\d+):\d+$/, '$1');
      return /^\d+\.\d+\.\d+\.\d+$/.test(s) || s === '::1' ? s : undefined;
    };
    let client = peer;
    for (let hop = 0; hop < chain.length && trusted(client, hop); hop++) {
      const left = plain(chain[chain.length - 1 - hop]!);
      if (left === undefined) break;
      client = left;
    }
    return client;
  }

  it('follows X-Forwarded-For only through trusted addresses (property)', () => {
    fc.assert(
      fc.property(v4, fc.array(entry, { maxLength: 6 }), fc.subarray(['10.0.0.1', '10.0.0.2', '127.0.0.1']), fc.nat({ max: 4 }), (peer, chain, proxies, hops) => {
        const byList = clientAddressResolver(proxies)!;
        const byHops = clientAddressResolver(hops)!;
        const header = chain.join(',');
        if (proxies.length > 0) expect(byList(peer, header)).toBe(model(peer, chain, (a) => proxies.includes(a)));
        if (hops > 0) expect(byHops(peer, header)).toBe(model(peer, chain, (_a, hop) => hop < hops));
        // An untrusted peer's header is never read.
        if (proxies.length > 0 && !proxies.includes(peer)) expect(byList(peer, header)).toBe(peer);
      }),
      { numRuns: 3000, seed: 17 },
    );
  });

  it('takes CIDR blocks and names, unmaps IPv4-mapped peers, refuses bad entries', () => {
    const r = clientAddressResolver(['private', '2001:db8::/32'])!;
    expect(r('::ffff:10.1.2.3', '8.8.8.8')).toBe('8.8.8.8');
    expect(r('2001:db8::5', '203.0.113.7, 10.9.9.9')).toBe('203.0.113.7');
    expect(r('203.0.113.9', '8.8.8.8')).toBe('203.0.113.9');
    expect(r('10.0.0.1', ['1.1.1.1', '8.8.8.8'])).toBe('8.8.8.8');
    expect(clientAddressResolver(['loopback'])!('::1', '9.9.9.9')).toBe('9.9.9.9');
    for (const bad of [['10.0.0.0/33'], ['nope'], ['10.0.0.0/x']]) expect(() => clientAddressResolver(bad)).toThrow(/trustProxy/);
    expect(() => clientAddressResolver(-1)).toThrow(/trustProxy/);
  });

  it("/thirdparty/json answers for the forwarded client only behind a trusted proxy, and the log shows who", async () => {
    const log = captureLogger();
    const h = await harness({ trustProxy: ['loopback'], logger: log.logger });
    const key = await h.key('test');
    const via = await call(h.app, '/thirdparty/json', { key, remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '8.8.8.8' } });
    expect(via.json.ip).toBe('8.8.8.8');
    const direct = await call(h.app, '/thirdparty/json', { key, remoteAddress: '10.1.2.3', headers: { 'x-forwarded-for': '8.8.8.8' } });
    expect(direct.json.ip).toBe('10.1.2.3');
    expect(log.lines.map((l) => JSON.parse(l).client)).toEqual(['8.8.8.8', '10.1.2.3']);
    await h.close();
    const plain = await harness();
    expect((await call(plain.app, '/thirdparty/json', { key: await plain.key('test'), remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '8.8.8.8' } })).json.ip).toBe('127.0.0.1');
    await plain.close();
  });
});
