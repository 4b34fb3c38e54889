/**
 * The SQLite store while another connection holds the file's write lock (a
 * CLI key command, a long transaction, another process): a count waits
 * without stopping the event loop, is counted once the lock is free, and is
 * refused (nothing counted) once its deadline has passed. Key writes wait in
 * place, as the CLI expects.
 */
import Database from 'better-sqlite3';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../src/store/sqlite.js';
import { StoreUnavailableError, type ConsumeRequest, type Store } from '../src/store/types.js';
import { consumeRequest, tempDir } from './support/harness.js';

const req = (extra: Partial<ConsumeRequest> = {}): ConsumeRequest => consumeRequest('a', 1, { quota: 1_000, ...extra });
const PERIOD = req().period;

describe('SQLite store: the write lock held by another connection', () => {
  const tmp = tempDir();
  const path = join(tmp.dir, 'store.sqlite');
  let store: Store;
  let other: Database.Database;

  beforeAll(async () => {
    store = openSqliteStore(path, { busyTimeoutMs: 150 });
    expect(await store.consume(req())).toEqual({ outcome: 'ok', used: 1 });
    other = new Database(path);
  });
  afterEach(() => {
    if (other.inTransaction) other.exec('ROLLBACK');
  });
  afterAll(async () => {
    other.close();
    await store.close();
    tmp.cleanup();
  });

  it('refuses a count at its deadline, counting nothing, while the event loop keeps turning', async () => {
    const before = await store.usage('a', PERIOD);
    other.exec('BEGIN IMMEDIATE');
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 5);
    const outcome = await store.consume(req({ deadline: Date.now() + 80 })).then(
      () => 'counted',
      (e: unknown) => (e instanceof StoreUnavailableError ? 'refused' : `other: ${String(e)}`),
    );
    clearInterval(ticking);
    expect(outcome).toBe('refused');
    // A store that waited for the lock on the event loop would have let no timer run meanwhile.
    expect(ticks).toBeGreaterThan(0);
    other.exec('ROLLBACK');
    expect(await store.usage('a', PERIOD)).toBe(before);
  });

  it('counts once the lock is released, before the deadline; counts that arrive meanwhile follow in order', async () => {
    const before = await store.usage('a', PERIOD);
    other.exec('BEGIN IMMEDIATE');
    const first = store.consume(req({ deadline: Date.now() + 5_000 }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = store.consume(req({ n: 2, deadline: Date.now() + 5_000 }));
    setTimeout(() => other.exec('COMMIT'), 20);
    expect(await Promise.all([first, second])).toEqual([
      { outcome: 'ok', used: before + 1 },
      { outcome: 'ok', used: before + 3 },
    ]);
    expect(await store.usage('a', PERIOD)).toBe(before + 3);
  });

  it('gives up on a count without a deadline after busyTimeoutMs', async () => {
    const before = await store.usage('a', PERIOD);
    other.exec('BEGIN IMMEDIATE');
    await expect(store.consume(req())).rejects.toThrow(/locked/);
    other.exec('ROLLBACK');
    expect(await store.usage('a', PERIOD)).toBe(before);
  });

  it('a key write waits in place for a lock another thread holds for less than busyTimeoutMs', async () => {
    // A store of its own with the default busyTimeoutMs (5 s): with the suite's 150 ms, the write failed whenever the
    // other thread ran its COMMIT more than 90 ms after its 60 ms hold ended (a loaded machine's scheduling delay),
    // and the test measured the machine, not the wait in place.
    const waiting = openSqliteStore(path);
    // Another thread (its own connection) takes the lock, says so, holds it 60 ms, commits.
    const holder = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const Database = require(workerData.module);
       const db = new Database(workerData.path);
       db.exec('BEGIN IMMEDIATE');
       parentPort.postMessage('locked');
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60);
       db.exec('COMMIT');
       db.close();`,
      { eval: true, workerData: { path, module: createRequire(import.meta.url).resolve('better-sqlite3') } },
    );
    await new Promise((resolve) => holder.once('message', resolve));
    const record = { id: 'busykey001', hash: 'h', prefix: 'ipi', plan: 'free', name: null, account: 'busy', createdAt: 0, revokedAt: null, replacedBy: null };
    try {
      expect(await waiting.insertKey(record)).toBe(true);
      expect(await waiting.getKey('busykey001')).toEqual(record);
    } finally {
      await waiting.close();
    }
    await new Promise((resolve) => holder.once('exit', resolve));
  });
});
