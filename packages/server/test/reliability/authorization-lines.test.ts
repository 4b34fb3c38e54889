/**
 * Two Authorization lines: node:http keeps the first and drops the second,
 * so the request was authenticated by whichever line came first, while a
 * proxy or filter on the way may have read the other. The key a request
 * presents must be one: two lines are 400 malformed_request, closing the
 * connection, and nothing is counted. (A Fetch runtime joins them into one
 * value, which no key matches: 401 there already.)
 */
import { describe, expect, it } from 'vitest';
import { exchange, firstResponse } from '@ipintel/testkit';
import { keyedServer } from '../support/keyed-server.js';

const running = keyedServer();

/** GET /v1/check over a raw socket with these header lines; the first answer. */
async function get(lines: string) {
  const raw = `GET /v1/check?ip=8.8.8.8 HTTP/1.1\r\nhost: x\r\n${lines}connection: close\r\n\r\n`;
  return firstResponse((await exchange(running.server.port, (s) => void s.write(raw))).data);
}

describe('two Authorization lines', () => {
  for (const [what, lines] of [
    ['the valid key first', () => `Authorization: Bearer ${running.key}\r\nAuthorization: Bearer not-the-key\r\n`],
    ['the valid key second', () => `authorization: Bearer not-the-key\r\nAUTHORIZATION: Bearer ${running.key}\r\n`],
    ['the same key twice', () => `Authorization: Bearer ${running.key}\r\nAuthorization: Bearer ${running.key}\r\n`],
    ['beside an x-api-key with the same key', () => `x-api-key: ${running.key}\r\nAuthorization: Bearer ${running.key}\r\nAuthorization: Bearer not-the-key\r\n`],
  ] as const) {
    it(`${what}: 400 malformed_request, Connection: close, nothing counted`, async () => {
      const before = await get(`Authorization: Bearer ${running.key}\r\n`);
      expect(before?.status).toBe(200);
      const res = await get(lines());
      expect(res?.status).toBe(400);
      expect(res?.headers['connection']).toBe('close');
      expect(JSON.parse(res!.body)).toMatchObject({ code: 'malformed_request' });
      expect(JSON.parse(res!.body).detail).toMatch(/Authorization/);
      const after = await get(`Authorization: Bearer ${running.key}\r\n`);
      expect(Number(after!.headers['ratelimit-remaining'])).toBe(Number(before!.headers['ratelimit-remaining']) - 1);
    });
  }

  it('one Authorization line, or an x-api-key beside it, is served as before', async () => {
    expect((await get(`Authorization: Bearer ${running.key}\r\n`))?.status).toBe(200);
    expect((await get(`x-api-key: ${running.key}\r\n`))?.status).toBe(200);
  });
});

describe('two different keys in x-api-key and Authorization', () => {
  for (const [what, lines] of [
    ['the valid key in x-api-key', () => `x-api-key: ${running.key}\r\nAuthorization: Bearer not-the-key\r\n`],
    ['the valid key in Authorization', () => `x-api-key: not-the-key\r\nAuthorization: Bearer ${running.key}\r\n`],
  ] as const) {
    it(`${what}: 401 invalid_api_key, nothing counted (a proxy may have checked the other)`, async () => {
      const before = await get(`x-api-key: ${running.key}\r\n`);
      expect(before?.status).toBe(200);
      const res = await get(lines());
      expect(res?.status).toBe(401);
      expect(res?.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(JSON.parse(res!.body)).toMatchObject({ code: 'invalid_api_key' });
      expect(JSON.parse(res!.body).detail).toMatch(/two different API keys/);
      const after = await get(`x-api-key: ${running.key}\r\n`);
      expect(Number(after!.headers['ratelimit-remaining'])).toBe(Number(before!.headers['ratelimit-remaining']) - 1);
    });
  }

  it('the same key in both, or a Basic line on a route that takes no Basic, is served', async () => {
    expect((await get(`x-api-key: ${running.key}\r\nAuthorization: Bearer ${running.key}\r\n`))?.status).toBe(200);
    expect((await get(`x-api-key: ${running.key}\r\nAuthorization: Basic ${Buffer.from('someone:pw').toString('base64')}\r\n`))?.status).toBe(200);
  });
});
