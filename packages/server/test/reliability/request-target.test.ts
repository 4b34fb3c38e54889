/**
 * The absolute-form request target (RFC 9112, 3.2.2: a server MUST accept it).
 * node:http passes `GET http://host/v1/check?ip=8.8.8.8` on with the target as
 * sent, and the router answered it 404 "no such endpoint: http://host/v1/check".
 * It is now read as its path and query, on the standalone server and behind
 * a basePath; nothing else about the path is normalised.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { exchange, firstResponse } from '@ipintel/testkit';
import { createNodeHandler } from '../../src/adapters/node.js';
import { originForm } from '../../src/http/request-target.js';
import { fixtureBytes } from '../support/fixtures.js';
import { keyedServer } from '../support/keyed-server.js';
import { TEST_PLANS } from '../support/harness.js';

const running = keyedServer();

/** One request over a raw socket with this target and header lines; the first answer. */
async function send(port: number, method: string, target: string, lines = '') {
  const raw = `${method} ${target} HTTP/1.1\r\nhost: x\r\n${lines}connection: close\r\n\r\n`;
  return firstResponse((await exchange(port, (s) => void s.write(raw))).data);
}

describe('originForm', () => {
  it('keeps every origin-form target as it is, and reads an http(s) absolute-form as its path and query', () => {
    const origin = fc.tuple(fc.webPath(), fc.option(fc.webQueryParameters(), { nil: undefined })).map(([p, q]) => `/${p.replace(/^\/+/, '')}${q === undefined ? '' : `?${q}`}`);
    fc.assert(
      fc.property(origin, fc.webAuthority({ withPort: true, withIPv4: true, withIPv6: true }), fc.constantFrom('http', 'https', 'HTTP', 'Https'), (target, authority, scheme) => {
        expect(originForm(target)).toBe(target);
        expect(originForm(`${scheme}://${authority}${target}`)).toBe(target);
      }),
    );
  });

  it('an absolute-form with no path is the root; a target of another form is left to route to a 404', () => {
    expect(originForm('http://x')).toBe('/');
    expect(originForm('http://x?ip=8.8.8.8')).toBe('/?ip=8.8.8.8');
    expect(originForm('*')).toBe('*');
    expect(originForm('ftp://x/v1/check')).toBe('ftp://x/v1/check');
  });
});

describe('an absolute-form target on the standalone server', () => {
  it('GET http://host/v1/check?ip=... is answered and counted as /v1/check?ip=...', async () => {
    const port = running.server.port;
    const before = await send(port, 'GET', '/v1/check?ip=8.8.8.8', `x-api-key: ${running.key}\r\n`);
    expect(before?.status).toBe(200);
    const res = await send(port, 'GET', 'http://ip.example:8080/v1/check?ip=8.8.8.8&format=thirdparty', `x-api-key: ${running.key}\r\n`);
    expect(res?.status).toBe(200);
    expect(JSON.parse(res!.body)).toMatchObject({ ip: '8.8.8.8', country: 'US' });
    expect(Number(res!.headers['ratelimit-remaining'])).toBe(Number(before!.headers['ratelimit-remaining']) - 1);
  });

  it('the key-less routes and errors read the same path: /healthz is 200, an unknown path names its path only', async () => {
    const port = running.server.port;
    expect((await send(port, 'GET', 'HTTPS://IP.EXAMPLE/healthz'))?.status).toBe(200);
    const missing = await send(port, 'GET', 'http://ip.example/v2/nothing');
    expect(missing?.status).toBe(404);
    expect(JSON.parse(missing!.body).detail).toBe('no such endpoint: /v2/nothing; see /v1/openapi.json');
  });
});

describe('an absolute-form target behind a basePath (Node adapter)', () => {
  let server: Server | undefined;
  const handler = createNodeHandler({ basePath: '/ipintel', snapshot: fixtureBytes('a'), store: 'sqlite::memory:', logger: false, plans: TEST_PLANS });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    await handler.close();
  });

  it('is served under the basePath, and passed to next() outside it', async () => {
    await handler.ready;
    server = createServer((req, res) => handler(req, res, () => res.writeHead(418).end('next')));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    expect((await send(port, 'GET', 'http://ip.example/ipintel/healthz'))?.status).toBe(200);
    expect((await send(port, 'GET', 'http://ip.example/elsewhere'))?.status).toBe(418);
  });
});
