/**
 * The SQLite store's group commit: counts that arrive within its two
 * event-loop turns share one transaction, later ones get their own. Seen
 * from outside through the write-ahead log, which every commit lengthens by
 * the pages it wrote (here the same usage page each time), so two counts in
 * one group lengthen it as much as one count alone, and in two groups twice
 * as much.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteStore } from '../src/store/sqlite.js';
import type { ConsumeRequest, Store } from '../src/store/types.js';
import { consumeRequest, tempDir } from './support/harness.js';

/** A count of `n` for one account, under a quota it never reaches here. */
const req = (n: number): ConsumeRequest => consumeRequest('a', n, { quota: 1_000 });

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('SQLite group commit', () => {
  const tmp = tempDir();
  const path = join(tmp.dir, 'store.sqlite');
  let store: Store;
  const walBytes = (): number => statSync(`${path}-wal`).size;
  /** How much the WAL grew while `counts` ran. */
  const growth = async (counts: () => Promise<unknown>): Promise<number> => {
    const before = walBytes();
    await counts();
    return walBytes() - before;
  };

  beforeAll(async () => {
    store = openSqliteStore(path);
    // The first commit creates the usage row (more pages than later ones).
    expect(await store.consume(req(1))).toEqual({ outcome: 'ok', used: 1 });
  });
  afterAll(async () => {
    await store.close();
    tmp.cleanup();
  });

  it('commits a count that arrives on the next turn with the first', async () => {
    const one = await growth(() => store.consume(req(1)));
    expect(one).toBeGreaterThan(0);
    const together = await growth(async () => {
      const first = store.consume(req(1));
      await nextTurn();
      const second = store.consume(req(1));
      expect(await Promise.all([first, second])).toEqual([
        { outcome: 'ok', used: 3 },
        { outcome: 'ok', used: 4 },
      ]);
    });
    expect(together).toBe(one);
  });

  it('commits a count made after the last one was answered on its own', async () => {
    const one = await growth(() => store.consume(req(1)));
    const apart = await growth(async () => {
      expect(await store.consume(req(1))).toEqual({ outcome: 'ok', used: 6 });
      expect(await store.consume(req(1))).toEqual({ outcome: 'ok', used: 7 });
    });
    expect(apart).toBe(2 * one);
  });
});
