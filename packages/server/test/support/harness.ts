/**
 * Socket-less test harness: an app over a fixture snapshot and a store, keys
 * made directly in the store, a `call` helper that builds ApiRequests, and
 * `consumeRequest`, which builds the stores' count requests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { expect } from 'vitest';
import { steadyClock } from '@ipintel/testkit';
import { createApp, type App, type AppOptions } from '../../src/app.js';
import { bodyReader, type ApiResponse } from '../../src/http/types.js';
import { createKey } from '../../src/keys/manage.js';
import { resolvePlans, type Plan } from '../../src/plans.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { ConsumeRequest, Store } from '../../src/store/types.js';
import { fixtureBytes } from './fixtures.js';

/** Small plans for tests: `test` (quota 50/day, no rate limit) and `tiny` (3/day, 2 per second). */
export const TEST_PLANS: Record<string, Plan> = {
  test: { quota: 50, period: 'day', ratePerSecond: 0 },
  tiny: { quota: 3, period: 'day', ratePerSecond: 2 },
};

/** A count of `n` for `account` on 2026-01-01 (quota 10, no rate limit), with `extra` over it. */
export const consumeRequest = (account: string, n: number, extra: Partial<ConsumeRequest> = {}): ConsumeRequest => ({
  account,
  period: 'd2026-01-01',
  periodEndsAt: Date.UTC(2026, 0, 2),
  quota: 10,
  n,
  ratePerSecond: 0,
  second: 1_000,
  ...extra,
});

export function tempDir(prefix = 'ipintel-server-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A logger that keeps every line in `lines`. */
export function captureLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
      cb();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

export interface Harness {
  app: App;
  store: Store;
  /** The app's clock. */
  now: () => number;
  /** A new active key on `plan` (default `test`), made a millisecond before the app's clock reads. */
  key(plan?: string, options?: { createdAt?: number }): Promise<string>;
  close(): Promise<void>;
}

/**
 * An app over the fixture snapshot (variant a) and an in-memory SQLite store unless given. Its clock,
 * unless given, runs from noon UTC of a fixed day (testkit's steadyClock): quotas count per UTC day,
 * so on the real clock a run across midnight would see its counts start again between two requests.
 */
export async function harness(options: AppOptions = {}): Promise<Harness> {
  const store = typeof options.store === 'object' ? options.store : openSqliteStore(':memory:');
  const now = options.now ?? steadyClock();
  const app = createApp({ snapshot: fixtureBytes('a'), logger: false, activationDelayMs: 0, keyCacheMs: 0, ...options, now, plans: { ...TEST_PLANS, ...options.plans }, store });
  await app.ready;
  return {
    app,
    store,
    now,
    key: async (plan = 'test', o = {}) =>
      (await createKey(store, { plan, plans: resolvePlans({ ...TEST_PLANS, ...options.plans }), now: o.createdAt ?? now() - 1 })).key,
    close: async () => {
      await app.close();
      if (typeof options.store !== 'object') await store.close();
    },
  };
}

export interface CallInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | object;
  key?: string;
  remoteAddress?: string;
}

/** Sends one request through the socket-less core and parses a JSON answer. */
export async function call(app: App, url: string, init: CallInit = {}): Promise<ApiResponse & { json: any }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key !== undefined) headers['x-api-key'] = init.key;
  let body = init.body;
  if (body !== undefined && typeof body === 'object' && !(body instanceof Uint8Array)) {
    body = JSON.stringify(body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await app.handle({
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    url,
    headers,
    readBody: bodyReader(body),
    remoteAddress: init.remoteAddress,
  });
  let json: unknown;
  try {
    json = res.body === '' ? undefined : JSON.parse(res.body);
  } catch {
    json = undefined;
  }
  return { ...res, json };
}

/** Asserts an RFC 9457 problem answer with its status and stable code. */
export function expectProblem(res: { status: number; headers: Record<string, string>; json: any }, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/problem+json');
  expect(res.json).toMatchObject({ status, code, type: `urn:ipintel:problem:${code}` });
  expect(typeof res.json.title).toBe('string');
  expect(typeof res.json.detail).toBe('string');
}
