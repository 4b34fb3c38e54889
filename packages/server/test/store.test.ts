/**
 * One suite, two stores: SQLite and Redis must behave the same for keys,
 * atomic counting, rate windows and persistence across a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openRedisStore } from '../src/store/redis.js';
import { openSqliteStore } from '../src/store/sqlite.js';
import type { KeyRecord, Store } from '../src/store/types.js';
import { startRedis, type RedisProcess } from '@ipintel/testkit';
import { describeRedis } from './support/redis.js';
import { consumeRequest as req, tempDir } from './support/harness.js';

interface Backend {
  /** A fresh store handle on the shared backend. */
  open(): Store;
  /** Restarts the backend itself (the Redis server; a no-op for a file). */
  restart(): Promise<void>;
}

const record = (id: string, extra: Partial<KeyRecord> = {}): KeyRecord => ({
  id,
  hash: 'ab'.repeat(32),
  prefix: 'ipi',
  plan: 'free',
  name: null,
  account: id,
  createdAt: 1_000,
  revokedAt: null,
  replacedBy: null,
  ...extra,
});

function storeSuite(backend: () => Backend): void {
  let store: Store;
  beforeAll(() => {
    store = backend().open();
  });
  afterAll(() => store.close());

  it('stores, finds, lists and refuses a duplicate id', async () => {
    expect(await store.insertKey(record('k1', { name: 'first', createdAt: 5 }))).toBe(true);
    expect(await store.insertKey(record('k1'))).toBe(false);
    expect(await store.insertKey(record('k0', { createdAt: 9 }))).toBe(true);
    expect(await store.getKey('k1')).toEqual(record('k1', { name: 'first', createdAt: 5 }));
    expect(await store.getKey('nope')).toBeNull();
    expect((await store.listKeys()).map((k) => k.id)).toEqual(['k1', 'k0']);
  });

  it('revokes, only ever moving the end earlier, and records the replacement', async () => {
    await store.insertKey(record('r1'));
    expect(await store.revokeKey('r1', 5_000, 'r2')).toBe(true);
    expect(await store.revokeKey('r1', 9_000)).toBe(true);
    expect(await store.getKey('r1')).toMatchObject({ revokedAt: 5_000, replacedBy: 'r2' });
    expect(await store.revokeKey('r1', 2_000)).toBe(true);
    expect((await store.getKey('r1'))?.revokedAt).toBe(2_000);
    expect(await store.revokeKey('missing', 1)).toBe(false);
  });

  it('records only the first replacement (the first of two racing rotations wins)', async () => {
    await store.insertKey(record('f1'));
    expect(await store.revokeKey('f1', 9_000, 'f2')).toBe(true);
    expect(await store.revokeKey('f1', 8_000, 'f3')).toBe(true);
    expect(await store.getKey('f1')).toMatchObject({ revokedAt: 8_000, replacedBy: 'f2' });
  });

  it('counts up to the quota exactly and refuses a crossing request whole', async () => {
    expect(await store.consume(req('a1', 0))).toEqual({ outcome: 'ok', used: 0 });
    expect(await store.consume(req('a1', 7))).toEqual({ outcome: 'ok', used: 7 });
    expect(await store.consume(req('a1', 4))).toEqual({ outcome: 'quota_exceeded', used: 7 });
    expect(await store.consume(req('a1', 3))).toEqual({ outcome: 'ok', used: 10 });
    expect(await store.consume(req('a1', 1))).toEqual({ outcome: 'quota_exceeded', used: 10 });
    expect(await store.consume(req('a1', 0))).toEqual({ outcome: 'ok', used: 10 });
    expect(await store.consume(req('a2', 11))).toEqual({ outcome: 'quota_exceeded', used: 0 });
    expect(await store.usage('a1', 'd2026-01-01')).toBe(10);
    expect(await store.usage('a1', 'd2026-01-02')).toBe(0);
  });

  it('admits exactly the quota under concurrent calls from several handles', async () => {
    const handles = [store, backend().open(), backend().open()];
    const results = await Promise.all(Array.from({ length: 90 }, (_, i) => handles[i % 3]!.consume(req('c1', 1, { quota: 50 }))));
    expect(results.filter((r) => r.outcome === 'ok')).toHaveLength(50);
    expect(await store.usage('c1', 'd2026-01-01')).toBe(50);
    await Promise.all(handles.slice(1).map((h) => h.close()));
  });

  it('rate-limits per second, then opens the next second', async () => {
    const r = (second: number, n = 1) => store.consume(req('rl', n, { ratePerSecond: 2, second }));
    expect((await r(50)).outcome).toBe('ok');
    expect((await r(50, 0)).outcome).toBe('ok');
    expect(await r(50)).toEqual({ outcome: 'rate_limited', used: 1 });
    expect((await r(51)).outcome).toBe('ok');
    expect(await store.usage('rl', 'd2026-01-01')).toBe(2);
  });

  it('counts a late-stamped request in the current rate window, not in a window of its own second', async () => {
    // A request whose second is earlier than the window's (a body read across a second's end, a
    // host whose clock is behind) must not find an empty window of its own: with two hosts a
    // second apart, every second would admit twice the limit.
    const r = (second: number) => store.consume(req('late', 1, { ratePerSecond: 2, second, quota: 100 }));
    expect((await r(61)).outcome).toBe('ok');
    expect((await r(61)).outcome).toBe('ok');
    expect(await r(60)).toEqual({ outcome: 'rate_limited', used: 2 });
    expect((await r(62)).outcome).toBe('ok');
    expect((await r(61)).outcome).toBe('ok');
    expect((await r(60)).outcome).toBe('rate_limited');
    expect(await store.usage('late', 'd2026-01-01')).toBe(4);
  });

  it('keeps keys and counters across a restart', async () => {
    await store.insertKey(record('p1'));
    await store.consume(req('p1', 4));
    await store.close();
    await backend().restart();
    store = backend().open();
    expect((await store.getKey('p1'))?.id).toBe('p1');
    expect(await store.usage('p1', 'd2026-01-01')).toBe(4);
    expect(await store.consume(req('p1', 7))).toEqual({ outcome: 'quota_exceeded', used: 4 });
  });

  it('answers ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });
}

describe('SQLite store', () => {
  const tmp = tempDir();
  const path = join(tmp.dir, 'store.sqlite');
  afterAll(() => tmp.cleanup());
  storeSuite(() => ({ open: () => openSqliteStore(path), restart: async () => {} }));

  it('uses WAL mode so several processes can share the file', async () => {
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });
});

describeRedis('Redis store', () => {
  const tmp = tempDir();
  let redis: RedisProcess;
  const handles: Store[] = [];
  beforeAll(async () => {
    redis = await startRedis({ dir: tmp.dir, appendonly: true });
  });
  afterAll(async () => {
    await Promise.all(handles.map((h) => h.close()));
    await redis.stop();
    tmp.cleanup();
  });
  storeSuite(() => ({
    open: () => {
      // The suite tests what the store answers, not its deadline: 30 s, so a slow disk (appendfsync always) never times a count out.
      const s = openRedisStore(redis.url, { commandTimeoutMs: 30_000 });
      handles.push(s);
      return s;
    },
    restart: async () => {
      await redis.stop();
      await redis.start();
    },
  }));
});

describe('Redis store location (logged at start, in error messages)', () => {
  it('never shows the password, also one with an unencoded @', async () => {
    const cases: [string, string][] = [
      ['redis://:secret@127.0.0.1:1/0', 'redis://***@127.0.0.1:1/0'],
      ['redis://user:se%40cret@127.0.0.1:1', 'redis://***@127.0.0.1:1'],
      // ioredis connects with the password "p@ss": its tail must not reach the logs.
      ['redis://:p@ss@127.0.0.1:1', 'redis://***@127.0.0.1:1'],
      ['rediss://127.0.0.1:1/2', 'rediss://127.0.0.1:1/2'],
    ];
    for (const [url, shown] of cases) {
      const s = openRedisStore(url, { onEvent: () => {} });
      expect(s.location).toBe(shown);
      await s.close();
    }
  });
});
