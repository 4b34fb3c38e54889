/**
 * Rows 3 and 9 of issue 11, and hostile requests in general, over real
 * sockets against the standalone server:
 *  - a body that is not read (refused key, 404, 405, 413) is not read to its
 *    end either: the answer says Connection: close and the server stops
 *    reading (it read 7 GiB from one keyless client before);
 *  - a request with more header fields than the limit is refused (431), not
 *    cut short (a key after the 1,000th header was silently dropped);
 *  - random bytes, odd methods and broken framing never get a 5xx or an
 *    answer that is not problem+json, and the server keeps serving.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dribble, exchange, firstResponse } from '@ipintel/testkit';
import { createNodeHandler } from '../../src/adapters/node.js';
import { createKey } from '../../src/keys/manage.js';
import { resolvePlans } from '../../src/plans.js';
import { startServer, type RunningServer } from '../../src/standalone.js';
import { fixtureBytes, writeSnapshot } from '../support/fixtures.js';
import { TEST_PLANS, tempDir } from '../support/harness.js';

const PLANS = { ...TEST_PLANS, big: { quota: 1_000_000, period: 'day' as const, ratePerSecond: 0 } };
const tmp = tempDir();
let server: RunningServer;
let key: string;
/** Bytes each server-side socket read, by the client's port. */
const bytesRead = new Map<number, () => number>();
beforeAll(async () => {
  server = await startServer({ port: 0, snapshotPath: writeSnapshot(tmp.dir, 'a'), store: `sqlite:${join(tmp.dir, 'store.sqlite')}`, logger: false, watch: false, sighup: false, activationDelayMs: 0, plans: PLANS, drainTimeoutMs: 100 });
  server.server.on('connection', (s: Socket) => bytesRead.set(s.remotePort!, () => s.bytesRead));
  key = (await createKey(server.store, { plan: 'big', plans: resolvePlans(PLANS), now: 0 })).key;
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

/** Writes `total` bytes as fast as the connection takes them, until it closes. */
async function flood(s: Socket, closed: () => boolean, total: number): Promise<void> {
  const chunk = Buffer.alloc(65_536, 0x20);
  for (let sent = 0; sent < total && !closed(); sent += chunk.length) {
    if (!s.write(chunk)) await new Promise<void>((r) => {
      s.once('drain', r);
      s.once('close', r);
    });
  }
}

const head = (method: string, path: string, extra: string, length: number): string =>
  `${method} ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n${extra}\r\n`;

/** Runs `script` and returns the answer, whether the server cut the client short, and what the server read. */
async function probe(script: (s: Socket, closed: () => boolean) => Promise<void>) {
  let port = 0;
  const r = await exchange(server.port, async (s, closed) => {
    port = s.localPort!;
    await script(s, closed);
  });
  return { ...r, res: firstResponse(r.data), read: bytesRead.get(port)?.() ?? -1 };
}

describe('unread bodies (row 3)', () => {
  const MiB = 1024 * 1024;
  for (const [what, method, path, extra, status] of [
    ['no key', 'POST', '/v1/check/batch', '', 401],
    ['a wrong key', 'POST', '/v1/check/batch', `x-api-key: ipi_live_${'A'.repeat(32)}\r\n`, 401],
    ['a wrong method', 'PUT', '/v1/check/batch', '', 405],
    ['an unknown path', 'POST', '/v2/nothing', '', 404],
  ] as const) {
    it(`${what}: ${status} at once, the connection closed after reading little of a 64 MiB body`, async () => {
      const p = await probe(async (s, closed) => {
        s.write(head(method, path, extra, 64 * MiB));
        await flood(s, closed, 64 * MiB);
      });
      expect(p.res?.status).toBe(status);
      expect(p.res?.headers['content-type']).toBe('application/problem+json');
      expect(p.res?.headers['connection']).toBe('close');
      expect(p.closedEarly).toBe(true);
      expect(p.read).toBeGreaterThan(0);
      expect(p.read).toBeLessThan(4 * MiB);
    });
  }

  it('a valid key and a body over the limit: 413, closed, little read', async () => {
    const p = await probe(async (s, closed) => {
      s.write(head('POST', '/v1/check/batch', `x-api-key: ${key}\r\n`, 64 * MiB));
      await flood(s, closed, 64 * MiB);
    });
    expect(p.res?.status).toBe(413);
    expect(JSON.parse(p.res!.body).code).toBe('body_too_large');
    expect(p.closedEarly).toBe(true);
    expect(p.read).toBeLessThan(4 * MiB);
  });

  it('a slow body without a key is answered and closed at once, not held until it ends', async () => {
    const p = await probe(async (s, closed) => {
      s.write(head('POST', '/v1/check/batch', '', 2_000));
      await dribble(s, closed, 'x'.repeat(2_000), 1, 20);
    });
    expect(p.res?.status).toBe(401);
    expect(p.closedEarly).toBe(true);
  });

  it('Expect: 100-continue gets no 100 without a key, and a 100 then the answer with one', async () => {
    const body = '{"ips":["8.8.8.8"]}';
    const refused = await probe(async (s) => {
      s.write(head('POST', '/v1/check/batch', 'expect: 100-continue\r\n', body.length));
      await new Promise((r) => setTimeout(r, 200));
    });
    expect(refused.data.startsWith('HTTP/1.1 401')).toBe(true);
    expect(refused.data).not.toContain('100 Continue');
    const accepted = await probe(async (s) => {
      s.write(head('POST', '/v1/check/batch', `x-api-key: ${key}\r\nexpect: 100-continue\r\nconnection: close\r\n`, body.length));
      await new Promise<void>((r) => s.once('data', () => r()));
      s.write(body);
      await new Promise((r) => setTimeout(r, 50));
    });
    expect(accepted.data.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200')).toBe(true);
  });

  it('a keep-alive client whose body was read keeps its connection', async () => {
    const body = '{"ips":["8.8.8.8"]}';
    const p = await probe(async (s) => {
      s.write(head('POST', '/v1/check/batch', `x-api-key: ${key}\r\n`, body.length) + body);
      await new Promise((r) => setTimeout(r, 100));
      s.write(head('POST', '/v1/check/batch', `x-api-key: ${key}\r\n`, body.length) + body);
      await new Promise((r) => setTimeout(r, 100));
    });
    expect(p.closedEarly).toBe(false);
    expect(p.data.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
  });
});

describe('header count (row 9)', () => {
  const withHeaders = (n: number, last: string) =>
    `GET /v1/check?ip=8.8.8.8 HTTP/1.1\r\nhost: x\r\n${Array.from({ length: n }, (_, i) => `x-h${i}: ${i}\r\n`).join('')}${last}\r\n`;

  it('a key after the 1,000th header: 431, not missing_api_key', async () => {
    for (const n of [1_000, 150]) {
      const r = await exchange(server.port, (s) => void s.write(withHeaders(n, `x-api-key: ${key}\r\n`)));
      const res = firstResponse(r.data);
      expect(res?.status).toBe(431);
      expect(JSON.parse(res!.body).code).toBe('headers_too_large');
    }
  });

  it('a request within the limit is served', async () => {
    const r = await exchange(server.port, (s) => void s.write(withHeaders(97, `x-api-key: ${key}\r\nconnection: close\r\n`)));
    expect(firstResponse(r.data)?.status).toBe(200);
  });

  it('embedded in a host server with node\'s default header cap, a request at the cap is refused', async () => {
    const handler = createNodeHandler({ snapshot: fixtureBytes('a'), store: server.store, logger: false, plans: PLANS, activationDelayMs: 0, maxHeaders: 5_000 });
    await handler.ready;
    const host: Server = createServer((req, res) => handler(req, res));
    await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
    const port = (host.address() as AddressInfo).port;
    const r = await exchange(port, (s) => void s.write(withHeaders(1_000, `x-api-key: ${key}\r\n`)));
    expect(firstResponse(r.data)?.status).toBe(431);
    await new Promise<void>((r2) => host.close(() => r2()));
    await handler.close();
  });
});

describe('a client that ends its side right after its request', () => {
  // exchange() half-closes once its script has written. The answer waits for
  // its count's group commit, so without httpAllowHalfOpen node:http would
  // drop the request when the end arrives first.
  it('gets its answer, then the connection closes', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await exchange(server.port, (s) => void s.write(`GET /v1/check?ip=8.8.8.8 HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\n\r\n`));
      expect(r.timedOut).toBe(false);
      const res = firstResponse(r.data);
      expect(res?.status).toBe(200);
      expect(JSON.parse(res!.body).ip).toBe('8.8.8.8');
      expect(r.closedEarly).toBe(false);
    }
  });
});

describe('hostile requests', () => {
  it('CONNECT (a proxy tunnel) gets a 405 problem, not a silent close', async () => {
    const r = await exchange(server.port, (s) => void s.write('CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n'));
    const res = firstResponse(r.data);
    expect(res?.status).toBe(405);
    expect(res?.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(res!.body).code).toBe('method_not_allowed');
  });

  const methods = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH', 'TRACE', 'CONNECT', 'G\x00T', 'get', '');
  const paths = fc.constantFrom('/v1/check?ip=8.8.8.8', '/v1/check/batch', '/thirdparty/8.8.8.8/json', '/healthz', '*', '//', '/%', '/\x7f', '/v1/check?ip=%ZZ', `/${'a'.repeat(9_000)}`);
  const headerLines = fc.array(
    fc.oneof(
      fc.constantFrom('content-length: -1', 'content-length: 99999999999999999999', 'transfer-encoding: chunked', 'transfer-encoding: gzip, chunked', 'content-type: application/json', 'x-api-key: \x01', 'expect: 100-continue', 'expect: nonsense', 'connection: upgrade', 'upgrade: websocket', 'authorization: Bearer', 'host:'),
      fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 40 })).map(([k, v]) => `${k}: ${v}`),
    ),
    { maxLength: 6 },
  );
  const bodies = fc.oneof(fc.constant(''), fc.string({ maxLength: 200 }), fc.constant('5\r\nhello\r\n0\r\n\r\n'), fc.constant('zz\r\n'), fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1')));

  it('get a problem+json or a result, never a 5xx, and the server keeps serving', async () => {
    const seen = { answered: 0, closedSilently: 0 };
    await fc.assert(
      fc.asyncProperty(methods, paths, headerLines, bodies, async (method, path, lines, body) => {
        const raw = `${method} ${path} HTTP/1.1\r\nhost: x\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n${body}`;
        const r = await exchange(server.port, (s) => void s.write(Buffer.from(raw, 'latin1')), 5_000);
        const res = firstResponse(r.data);
        if (res === undefined) {
          seen.closedSilently++;
          return;
        }
        seen.answered++;
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400 && method !== 'HEAD') expect(res.headers['content-type'], raw.slice(0, 200)).toBe('application/problem+json');
      }),
      { numRuns: 150, seed: 3 },
    );
    expect(seen.answered).toBeGreaterThan(140);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
  });
});
