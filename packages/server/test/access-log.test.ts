/**
 * The access log's direct line (access-log.ts) must be exactly what pino
 * writes for the same fields: the server's log readers parse either.
 */
import fc from 'fast-check';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@ipintel/testkit';
import { accessLine, accessLog, serverLogger } from '../src/access-log.js';
import { turnBuffered } from '../src/log.js';
import { call, harness } from './support/harness.js';

/** A destination that keeps what it is given. */
function captured(): { dest: { write(s: string): void }; lines: string[] } {
  const lines: string[] = [];
  return { dest: { write: (s: string) => void lines.push(s) }, lines };
}

afterEach(() => vi.restoreAllMocks());

describe('accessLine', () => {
  it("is pino's line for the same fields, whatever they hold", () => {
    const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 150 }), fc.string({ unit: 'binary-ascii', maxLength: 150 }));
    const maybe = (a: fc.Arbitrary<string>) => fc.option(a, { nil: undefined });
    const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -0, 0.1, 1e21, 1e-7));
    fc.assert(
      fc.property(fc.nat(), text, text, number, maybe(text), maybe(text), number, maybe(text), number, (time, method, url, status, code, keyId, lookups, client, ms) => {
        vi.spyOn(Date, 'now').mockReturnValue(time);
        const { dest, lines } = captured();
        serverLogger(dest).info({ method, url, status, code, key_id: keyId, lookups, client, ms }, 'request');
        expect(accessLine(time, method, url, status, code, keyId, lookups, client, ms)).toBe(lines[0]);
      }),
      { numRuns: 3000, seed: 11 },
    );
  });
});

describe('accessLog', () => {
  it('writes the line to the destination of a serverLogger, and nothing once its level is above info', () => {
    vi.spyOn(Date, 'now').mockReturnValue(5);
    const { dest, lines } = captured();
    const logger = serverLogger(dest);
    const log = accessLog(logger);
    log('GET', '/healthz', 200, undefined, undefined, 0, '127.0.0.1', 0.25);
    expect(lines).toEqual(['{"level":30,"time":5,"service":"ipintel","method":"GET","url":"/healthz","status":200,"lookups":0,"client":"127.0.0.1","ms":0.25,"msg":"request"}\n']);
    logger.level = 'warn';
    log('GET', '/healthz', 200, undefined, undefined, 0, '127.0.0.1', 0.25);
    expect(lines.length).toBe(1);
  });

  it('holds its lines in a turnBuffered destination and writes them, in order with the logger\'s other lines, as accessLine makes them', () => {
    const tmp = tempDir('ipintel-access-held-');
    const path = join(tmp.dir, 'out.log');
    const fd = openSync(path, 'w');
    const out = turnBuffered(fd, { delayMs: 60_000 });
    try {
      const logger = serverLogger(out);
      const log = accessLog(logger);
      const now = vi.spyOn(Date, 'now');
      now.mockReturnValueOnce(7);
      log('GET', '/v1/check?ip=8.8.8.8', 200, undefined, 'AbCdEfGhIj', 1, '127.0.0.1', 0.5);
      logger.warn('between'); // pino's own line, written directly to the destination
      now.mockReturnValueOnce(9);
      log('POST', '/v1/check/batch', 429, 'quota_exceeded', 'AbCdEfGhIj', 0, '::1', 1.25);
      now.mockReturnValue(11); // the write's time, which the lines must not take
      logger.level = 'warn';
      log('GET', '/healthz', 200, undefined, undefined, 0, '::1', 0.1); // above the level: nothing
      expect(readFileSync(path, 'utf8')).toBe(''); // held
      out.flush();
      const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
      expect(lines).toHaveLength(3);
      expect(lines[0]! + '\n').toBe(accessLine(7, 'GET', '/v1/check?ip=8.8.8.8', 200, undefined, 'AbCdEfGhIj', 1, '127.0.0.1', 0.5));
      expect(JSON.parse(lines[1]!)).toMatchObject({ level: 40, msg: 'between' });
      // The time is the request's (taken when logged), not the write's.
      expect(lines[2]! + '\n').toBe(accessLine(9, 'POST', '/v1/check/batch', 429, 'quota_exceeded', 'AbCdEfGhIj', 0, '::1', 1.25));
    } finally {
      out.end();
      closeSync(fd);
      tmp.cleanup();
    }
  });

  it('logs through pino for any other logger (its own serialisers and hooks apply)', () => {
    const { dest, lines } = captured();
    const logger = pino({ level: 'info', base: null, timestamp: false, formatters: { log: (o) => ({ ...o, tagged: true }) } }, dest);
    accessLog(logger)('GET', '/healthz', 200, 'x', 'k', 1, undefined, 1);
    expect(JSON.parse(lines[0]!)).toEqual({ level: 30, method: 'GET', url: '/healthz', status: 200, code: 'x', key_id: 'k', lookups: 1, ms: 1, tagged: true, msg: 'request' });
  });

  it('is what an app logging through a serverLogger writes per request', async () => {
    const { dest, lines } = captured();
    const h = await harness({ logger: serverLogger(dest) });
    await call(h.app, '/healthz');
    await call(h.app, '/nope');
    await h.close();
    const access = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['msg'] === 'request');
    expect(access.map((l) => [l['url'], l['status'], l['code']])).toEqual([['/healthz', 200, undefined], ['/nope', 404, 'not_found']]);
  });
});
