/**
 * The Host field (RFC 9112, section 3.2): a server MUST answer 400 to an
 * HTTP/1.1 request without Host, and to any request with more than one Host
 * field line or an invalid Host value. node:http keeps the first of two Host
 * lines and drops the rest; a Fetch runtime's Headers joins them with ", ".
 * Either way the request was answered as if for one host while whatever
 * routed it may have read the other. Refused here like a missing Host: 400
 * malformed_request, Connection: close, one `client error` log line.
 */
import fc from 'fast-check';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, firstResponse } from '@ipintel/testkit';
import { createFetchHandler } from '../../src/adapters/fetch.js';
import { fieldLines } from '../../src/http/field-lines.js';
import { hostFault } from '../../src/http/host-field.js';
import { startServer, type RunningServer } from '../../src/standalone.js';
import { fixtureBytes } from '../support/fixtures.js';
import { captureLogger, TEST_PLANS, tempDir } from '../support/harness.js';

const tmp = tempDir();
const log = captureLogger();
let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ port: 0, snapshot: fixtureBytes('a'), store: `sqlite:${join(tmp.dir, 'store.sqlite')}`, logger: log.logger, watch: false, sighup: false, plans: TEST_PLANS, drainTimeoutMs: 100 });
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

/** The `client error` lines logged since `from`. */
const clientErrors = (from: number): Record<string, unknown>[] =>
  log.lines
    .slice(from)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l['msg'] === 'client error');

/** Sends `raw` on a new connection; the first answer, and the `client error` lines it caused. */
async function send(raw: string) {
  const from = log.lines.length;
  const r = await exchange(server.port, (s) => void s.write(raw));
  // The log line is written before the answer; a turn for the logger's stream.
  await new Promise((resolve) => setImmediate(resolve));
  return { res: firstResponse(r.data), errors: clientErrors(from) };
}

describe('the Node adapter (standalone server)', () => {
  for (const [what, lines, version] of [
    ['two equal Host lines', 'Host: x\r\nHost: x\r\n', '1.1'],
    ['two different Host lines', 'Host: a.example\r\nhost: b.example\r\n', '1.1'],
    ['an empty Host line and another', 'Host:\r\nHOST: x\r\n', '1.1'],
    ['three Host lines around other fields', 'host: x\r\naccept: */*\r\nhost: x\r\nuser-agent: t\r\nhost: y\r\n', '1.1'],
    ['two Host lines in HTTP/1.0', 'Host: a\r\nHost: b\r\n', '1.0'],
    ['one Host line listing two hosts', 'Host: a.example, b.example\r\n', '1.1'],
  ] as const) {
    it(`${what}: 400 malformed_request, Connection: close, one client error line`, async () => {
      const { res, errors } = await send(`GET /healthz HTTP/${version}\r\n${lines}\r\n`);
      expect(res?.status).toBe(400);
      expect(res?.headers['content-type']).toBe('application/problem+json');
      expect(res?.headers['connection']).toBe('close');
      expect(JSON.parse(res!.body)).toMatchObject({ status: 400, code: 'malformed_request', type: 'urn:ipintel:problem:malformed_request' });
      expect(JSON.parse(res!.body).detail).toMatch(/Host/);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ status: 400, code: 'malformed_request' });
      expect(errors[0]!['cause']).toMatch(/Host/);
    });
  }

  it('a missing Host (HTTP/1.1) is answered and logged the same way', async () => {
    const { res, errors } = await send('GET /healthz HTTP/1.1\r\n\r\n');
    expect(res?.status).toBe(400);
    expect(res?.headers['connection']).toBe('close');
    expect(errors).toEqual([expect.objectContaining({ code: 'malformed_request', cause: 'missing Host' })]);
  });

  it('one Host line (any case, with a port) is served; no client error is logged', async () => {
    for (const line of ['Host: x', 'host: 127.0.0.1:8080', 'HOST: [::1]:80']) {
      const { res, errors } = await send(`GET /healthz HTTP/1.1\r\n${line}\r\nconnection: close\r\n\r\n`);
      expect(res?.status).toBe(200);
      expect(errors).toEqual([]);
    }
  });

  it('a field whose name only resembles Host is not one', async () => {
    const { res } = await send('GET /healthz HTTP/1.1\r\nHost: x\r\nHosts: y\r\nX-Host: z\r\nHostx: w\r\nconnection: close\r\n\r\n');
    expect(res?.status).toBe(200);
  });
});

describe('the Fetch adapter', () => {
  it('a Host value with a comma (what Headers makes of two Host fields) is 400 malformed_request, logged once', async () => {
    const captured = captureLogger();
    const api = createFetchHandler({ snapshot: fixtureBytes('a'), store: server.store, logger: captured.logger, plans: TEST_PLANS });
    await api.ready;
    const from = captured.lines.length;
    const headers = new Headers();
    headers.append('host', 'a.example');
    headers.append('host', 'b.example');
    const res = await api(new Request('http://a.example/healthz', { headers }));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ code: 'malformed_request' });
    const lines = captured.lines.slice(from).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l['msg'] === 'client error')).toHaveLength(1);
    expect((await api(new Request('http://a.example/healthz', { headers: { host: 'a.example:8080' } }))).status).toBe(200);
    // A Fetch request need not carry Host (HTTP/2 and 3 send :authority; the URL has the host).
    expect((await api(new Request('http://a.example/healthz'))).status).toBe(200);
    await api.close();
  });
});

describe('rules (properties)', () => {
  /** Field names: Host in any case, and names near it (other lengths, one letter off). */
  const nameArb = fc.oneof(
    fc.constantFrom('host', 'Host', 'HOST', 'hOsT', 'hosts', 'hos', 'xost', 'h-st', 'ho\rt', 'accept', 'x-api-key', 'content-type'),
    fc.string({ minLength: 1, maxLength: 8 }),
  );
  const rawArb = fc.array(fc.tuple(nameArb, fc.string({ maxLength: 12 })), { maxLength: 12 });
  const isHost = (name: string): boolean => name.toLowerCase() === 'host';

  it('fieldLines counts exactly the lines whose name is the field name in any case', () => {
    fc.assert(
      fc.property(rawArb, fc.integer({ min: 1, max: 4 }), (pairs, atMost) => {
        const raw = pairs.flat();
        const n = pairs.filter(([k]) => isHost(k)).length;
        expect(fieldLines(raw, 'host')).toBe(n);
        expect(fieldLines(raw, 'host', atMost)).toBe(Math.min(n, atMost));
      }),
      { numRuns: 500 },
    );
  });

  it('hostFault: a request is refused iff its Host is missing (when required), given twice or holds a comma', () => {
    fc.assert(
      fc.property(rawArb, fc.boolean(), (pairs, required) => {
        const hosts = pairs.filter(([k]) => isHost(k)).map(([, v]) => v);
        // What node:http hands on: the first Host line's value.
        const fault = hostFault(hosts[0], required, pairs.flat());
        const expected = hosts.length === 0 ? (required ? 'missing Host' : undefined) : hosts[0]!.includes(',') ? 'listed Host' : hosts.length > 1 ? 'repeated Host' : undefined;
        expect(fault).toBe(expected);
        // What a Fetch runtime hands on: every line joined with ", ".
        if (hosts.length > 1) expect(hostFault(hosts.join(', '), false)).toBe('listed Host');
      }),
      { numRuns: 500 },
    );
  });
});
