/**
 * Rows 5 and 8 of issue 11, and slowloris: the standalone server sets limits
 * on slow clients (headers and request timeouts, keep-alive, connections) with
 * safe defaults, and every answer Node itself gives (a timeout, a malformed
 * request, oversized headers) is a problem+json that closes the connection.
 * Small limits here keep the test short; it waits for events, not for times.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dribble, exchange, firstResponse } from '@ipintel/testkit';
import { createKey } from '../../src/keys/manage.js';
import { resolvePlans } from '../../src/plans.js';
import { startServer, type RunningServer } from '../../src/standalone.js';
import { writeSnapshot } from '../support/fixtures.js';
import { TEST_PLANS, tempDir } from '../support/harness.js';

const tmp = tempDir();
let server: RunningServer;
let key: string;
beforeAll(async () => {
  server = await startServer({
    port: 0,
    snapshotPath: writeSnapshot(tmp.dir, 'a'),
    store: `sqlite:${join(tmp.dir, 'store.sqlite')}`,
    logger: false,
    watch: false,
    sighup: false,
    activationDelayMs: 0,
    plans: TEST_PLANS,
    headersTimeoutMs: 400,
    requestTimeoutMs: 800,
    drainTimeoutMs: 100, // fetch's idle keep-alive connection would hold close() for its timeout
  });
  key = (await createKey(server.store, { plan: 'test', plans: resolvePlans(TEST_PLANS), now: 0 })).key;
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

function expectProblemText(data: string, status: number, code: string): void {
  const res = firstResponse(data);
  expect(res, `a response in ${JSON.stringify(data.slice(0, 200))}`).toBeDefined();
  expect(res!.status).toBe(status);
  expect(res!.headers['content-type']).toBe('application/problem+json');
  expect(res!.headers['connection']).toBe('close');
  // An IMF-fixdate, as node:http's own answers carry (RFC 9110, 6.6.1: every 4xx of an origin server with a clock).
  expect(res!.headers['date']).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/);
  expect(JSON.parse(res!.body)).toMatchObject({ status, code, type: `urn:ipintel:problem:${code}` });
}

describe('limits', () => {
  it('has safe defaults', async () => {
    const s = await startServer({ port: 0, snapshot: server.app.snapshot.current!, store: server.store, logger: false, sighup: false });
    expect(s.server.headersTimeout).toBe(10_000);
    expect(s.server.requestTimeout).toBe(30_000);
    expect(s.server.keepAliveTimeout).toBe(5_000);
    expect(s.server.maxConnections).toBe(1024);
    expect(s.server.maxHeadersCount).toBe(101);
    await s.close();
  });

  it('refuses inconsistent limits', async () => {
    await expect(startServer({ port: 0, logger: false, store: server.store, headersTimeoutMs: 5_000, requestTimeoutMs: 1_000 })).rejects.toThrow(/headersTimeoutMs/);
    await expect(startServer({ port: 0, logger: false, store: server.store, maxConnections: -1 })).rejects.toThrow(/maxConnections/);
  });
});

describe('slowloris', () => {
  it('slow headers: 408 request_timeout, connection closed', async () => {
    const r = await exchange(server.port, (s, closed) => dribble(s, closed, `GET /v1/check?ip=8.8.8.8 HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\n${'x-pad: y\r\n'.repeat(200)}`, 3, 50));
    expect(r.closedEarly).toBe(true);
    expectProblemText(r.data, 408, 'request_timeout');
  });

  it('slow body with a valid key: 408 request_timeout, connection closed', async () => {
    const body = JSON.stringify({ ips: Array.from({ length: 60 }, () => '8.8.8.8') });
    const head = `POST /v1/check/batch HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
    const r = await exchange(server.port, async (s, closed) => {
      s.write(head);
      await dribble(s, closed, body, 2, 50);
    });
    expect(r.closedEarly).toBe(true);
    expectProblemText(r.data, 408, 'request_timeout');
  });

  it('an idle connection that never sends a request is closed', async () => {
    const r = await exchange(server.port, () => new Promise((resolve) => setTimeout(resolve, 60_000)));
    expect(r.closedEarly).toBe(true);
  });

  it('a normal client is served while slow clients hold connections', async () => {
    const slow = Array.from({ length: 20 }, () => exchange(server.port, (s, closed) => dribble(s, closed, 'GET / HTTP/1.1\r\nhost: x\r\n', 1, 100)));
    const res = await fetch(`${server.url}/v1/check?ip=8.8.8.8`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    for (const r of await Promise.all(slow)) expect(r.closedEarly).toBe(true);
  });
});

describe("Node's own answers are problems (row 8)", () => {
  it('a malformed request: 400 malformed_request', async () => {
    for (const raw of ['FOO BAR\r\n\r\n', 'GET /v1/check HTTP/1.1\r\nbad header\r\n\r\n', 'GET / HTTP/1.1\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n', '\x00\x01\x02\r\n\r\n']) {
      const r = await exchange(server.port, (s) => void s.write(raw));
      expectProblemText(r.data, 400, 'malformed_request');
    }
  });

  it('an HTTP/1.1 request without Host: 400 malformed_request; HTTP/1.0 may leave it out', async () => {
    for (const raw of ['GET /healthz HTTP/1.1\r\n\r\n', 'GET /v1/check?ip=8.8.8.8 HTTP/1.1\r\nx-api-key: k\r\n\r\n']) {
      const r = await exchange(server.port, (s) => void s.write(raw));
      expectProblemText(r.data, 400, 'malformed_request');
      expect(firstResponse(r.data)!.headers['connection']).toBe('close');
    }
    const old = await exchange(server.port, (s) => void s.write('GET /healthz HTTP/1.0\r\n\r\n'));
    expect(firstResponse(old.data)!.status).toBe(200);
  });

  it('headers over the size limit: 431 headers_too_large', async () => {
    const r = await exchange(server.port, (s) => void s.write(`GET /v1/check?ip=8.8.8.8 HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expectProblemText(r.data, 431, 'headers_too_large');
  });
});
