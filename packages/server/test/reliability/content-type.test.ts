/**
 * Content-Type is a singleton field (RFC 9110, 8.3): one media type. A
 * request that carries two (two lines, or one line listing two) is
 * ambiguous: node:http keeps the first line, a Fetch runtime joins them
 * with ", " (and the Fetch standard's MIME extraction takes the last), so
 * two parsers on its way may read it as two different types. The routes
 * that read a body refuse it as 400 malformed_request, closing the
 * connection, and count nothing.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, firstResponse } from '@ipintel/testkit';
import { createFetchHandler } from '../../src/adapters/fetch.js';
import { bodyReader } from '../../src/http/types.js';
import { fixtureBytes } from '../support/fixtures.js';
import { harness, type Harness } from '../support/harness.js';
import { BIG_PLANS, keyedServer } from '../support/keyed-server.js';

const PLANS = BIG_PLANS;
const BODIES: Record<string, string> = { '/v1/check/batch': '{"ips":["8.8.8.8"]}', '/thirdparty/batch': '["8.8.8.8"]' };

const running = keyedServer();

/** POSTs `path` over a raw socket with the given Content-Type lines; the first answer. */
async function post(path: string, typeLines: string) {
  const body = BODIES[path]!;
  const raw = `POST ${path} HTTP/1.1\r\nhost: x\r\nx-api-key: ${running.key}\r\n${typeLines}content-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`;
  return firstResponse((await exchange(running.server.port, (s) => void s.write(raw))).data);
}

describe('two Content-Types on a POST', () => {
  for (const path of Object.keys(BODIES)) {
    for (const [what, lines] of [
      ['two different lines', 'Content-Type: application/json\r\nContent-Type: text/plain\r\n'],
      ['two equal lines', 'content-type: application/json\r\nCONTENT-TYPE: application/json\r\n'],
      ['one line listing two types', 'Content-Type: application/json, text/plain\r\n'],
    ] as const) {
      it(`${path}, ${what}: 400 malformed_request, Connection: close, nothing counted`, async () => {
        const res = await post(path, lines);
        expect(res?.status).toBe(400);
        expect(res?.headers['content-type']).toBe('application/problem+json');
        expect(res?.headers['connection']).toBe('close');
        expect(JSON.parse(res!.body)).toMatchObject({ code: 'malformed_request', type: 'urn:ipintel:problem:malformed_request' });
        expect(JSON.parse(res!.body).detail).toMatch(/Content-Type/);
        // The key was accepted (RateLimit-* present) and nothing was counted.
        const before = Number(res!.headers['ratelimit-remaining']);
        const ok = await post(path, 'Content-Type: application/json\r\n');
        expect(ok?.status).toBe(200);
        expect(Number(ok!.headers['ratelimit-remaining'])).toBe(before - 1);
      });
    }

    it(`${path}: one Content-Type whose quoted parameter holds a comma is one type`, async () => {
      expect((await post(path, 'Content-Type: application/json; x="a,b"\r\n'))?.status).toBe(200);
    });
  }
});

describe('the Fetch adapter (Headers joins the two lines)', () => {
  it('is 400 malformed_request too, not 415', async () => {
    const api = createFetchHandler({ snapshot: fixtureBytes('a'), store: running.server.store, logger: false, plans: PLANS });
    await api.ready;
    const headers = new Headers({ 'x-api-key': running.key });
    headers.append('content-type', 'application/json');
    headers.append('content-type', 'application/json');
    const res = await api(new Request('http://x/v1/check/batch', { method: 'POST', headers, body: BODIES['/v1/check/batch']! }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('malformed_request');
    await api.close();
  });
});

describe('rule (property, socket-less core)', () => {
  let h: Harness;
  let bigKey: string;
  beforeAll(async () => {
    h = await harness({ plans: PLANS });
    bigKey = await h.key('big');
  });
  afterAll(() => h.close());

  const typeArb = fc.oneof(
    fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/json; x="a,b"', 'application/json; x="a\\",b"', 'text/plain; x="', 'b"', 'text/plain', 'application/x-www-form-urlencoded', 'text/csv', 'application/json, text/plain', ',', ''),
    fc.string({ maxLength: 20 }),
  );
  /** A comma outside "quoted strings" (a backslash escapes inside them), or a quote left open. */
  const lists = (v: string): boolean => /[,"]/.test(v.replace(/"(?:[^"\\]|\\.)*"/g, ''));
  const names = fc.constantFrom('Content-Type', 'content-type', 'CONTENT-TYPE');

  const send = (path: string, headers: Record<string, string | string[]>, rawHeaders?: string[]) =>
    h.app.handle({ method: 'POST', url: path, headers: { 'x-api-key': bigKey, ...headers }, readBody: bodyReader(BODIES[path]), ...(rawHeaders === undefined ? {} : { rawHeaders }) });

  it('a batch route refuses as malformed_request exactly the requests with more than one Content-Type line or a listed one; else it answers as for that one type', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(BODIES)), fc.array(fc.tuple(names, typeArb), { minLength: 1, maxLength: 3 }), async (path, lines) => {
        const values = lines.map(([, v]) => v);
        // As node:http hands it on: the first line in headers, every line in rawHeaders.
        const node = await send(path, { 'content-type': values[0]! }, ['Host', 'x', ...lines.flat()]);
        const refused = lines.length > 1 || lists(values[0]!);
        if (refused) {
          expect(node.code).toBe('malformed_request');
          expect(node.headers['connection']).toBe('close');
        } else {
          const single = await send(path, { 'content-type': values[0]! });
          expect(single.code).not.toBe('malformed_request');
          expect(node.status).toBe(single.status);
        }
        // As a Fetch runtime hands it on: one value, the lines joined with ", ". Two lines make a
        // list unless their quotes pair up across the join (then they are one value to anyone).
        const fetched = await send(path, { 'content-type': values.join(', ') });
        expect(fetched.code === 'malformed_request').toBe(lists(values.join(', ')));
        // As a custom adapter might: an array of the lines.
        if (lines.length > 1) expect((await send(path, { 'content-type': values })).code).toBe('malformed_request');
      }),
      { numRuns: 200 },
    );
  });
});
