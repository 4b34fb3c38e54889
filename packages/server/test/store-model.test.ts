/**
 * Property: for any sequence of consume requests, the SQLite store and the
 * Redis store answer exactly what a plain in-memory model of the counting
 * rule (store/count-group.ts) answers, request by request, and leave the
 * same counters. The rule is the product's; a store that answers otherwise
 * counts differently depending on where an operator keeps the counters.
 * And under concurrent counts from several handles, the counter holds exactly
 * what was admitted, never more than the quota.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openRedisStore } from '../src/store/redis.js';
import { openSqliteStore } from '../src/store/sqlite.js';
import type { ConsumeRequest, ConsumeResult, Store } from '../src/store/types.js';
import { describeRedis, suiteRedis } from './support/redis.js';
import { tempDir } from './support/harness.js';

/** The rule written plainly, one request at a time, over two maps. */
function model(): (r: ConsumeRequest) => ConsumeResult {
  const used = new Map<string, number>();
  const windows = new Map<string, { sec: number; count: number }>();
  return (r) => {
    const uk = `${r.account}/${r.period}`;
    const u = used.get(uk) ?? 0;
    if (r.ratePerSecond > 0) {
      const w = windows.get(r.account);
      // A later second starts a new window; an earlier (late-stamped) one counts in the current window.
      const fresh = w === undefined || r.second > w.sec;
      const count = fresh ? 0 : w.count;
      if (count >= r.ratePerSecond) return { outcome: 'rate_limited', used: u };
      windows.set(r.account, { sec: fresh ? r.second : w.sec, count: count + 1 });
    }
    if (r.n === 0) return { outcome: 'ok', used: u };
    if (u + r.n > r.quota) return { outcome: 'quota_exceeded', used: u };
    used.set(uk, u + r.n);
    return { outcome: 'ok', used: u + r.n };
  };
}

/** Requests over two accounts, two periods and a few adjacent seconds, in any order. */
const requests = fc.array(
  fc.record({
    account: fc.constantFrom('a', 'b'),
    period: fc.constantFrom('d2026-01-01', 'd2026-01-02'),
    quota: fc.integer({ min: 0, max: 12 }),
    n: fc.integer({ min: 0, max: 5 }),
    ratePerSecond: fc.constantFrom(0, 1, 2, 3),
    second: fc.integer({ min: 1_000, max: 1_003 }),
  }),
  { minLength: 1, maxLength: 40 },
);

let run = 0;

/** Checks the property on `store`, each run on accounts of its own (the store is shared across runs). */
async function agreesWithModel(store: Store, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(requests, async (reqs) => {
      const tag = `m${run++}-`;
      const decide = model();
      for (const r of reqs) {
        const req: ConsumeRequest = { ...r, account: tag + r.account, periodEndsAt: Date.UTC(2026, 0, 3) };
        // Redis: a far deadline, so a slow machine never turns a count into a 503.
        const got = await store.consume({ ...req, deadline: Date.now() + 30_000 });
        expect(got).toEqual(decide(req));
      }
      for (const account of ['a', 'b']) {
        for (const period of ['d2026-01-01', 'd2026-01-02']) {
          const want = reqs.filter((r) => r.account === account && r.period === period);
          // The counter equals the model's: replay the model and read its last answer for the pair.
          const replay = model();
          let last = 0;
          for (const r of reqs) {
            const res = replay({ ...r, account: tag + r.account, periodEndsAt: 0 });
            if (r.account === account && r.period === period) last = res.used;
          }
          expect(await store.usage(tag + account, period)).toBe(want.length === 0 ? 0 : last);
        }
      }
    }),
    { numRuns },
  );
}

/**
 * Concurrent counts from several handles (as from several processes): whatever their
 * interleaving, the counter is the sum of the admitted counts, never over the quota, and every
 * refusal saw a counter that the count would have crossed.
 */
async function exactUnderConcurrency(handles: readonly Store[], numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: 30 }), fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 40 }), async (quota, sizes) => {
      const account = `c${run++}`;
      const base: Omit<ConsumeRequest, 'n'> = { account, period: 'd2026-01-01', periodEndsAt: Date.UTC(2026, 0, 2), quota, ratePerSecond: 0, second: 1 };
      const got = await Promise.all(sizes.map((n, i) => handles[i % handles.length]!.consume({ ...base, n, deadline: Date.now() + 30_000 })));
      const admitted = sizes.reduce((sum, n, i) => sum + (got[i]!.outcome === 'ok' ? n : 0), 0);
      const used = await handles[0]!.usage(account, base.period);
      expect(used).toBe(admitted);
      expect(used).toBeLessThanOrEqual(quota);
      got.forEach((g, i) => {
        if (g.outcome === 'quota_exceeded') expect(g.used + sizes[i]!).toBeGreaterThan(quota);
        else expect(g.outcome).toBe('ok');
      });
    }),
    { numRuns },
  );
}

describe('SQLite store against the counting model', () => {
  const tmp = tempDir();
  let store: Store;
  beforeAll(() => {
    store = openSqliteStore(join(tmp.dir, 'model.sqlite'));
  });
  afterAll(async () => {
    await store.close();
    tmp.cleanup();
  });
  it('property: every answer and counter equals the model', async () => {
    await agreesWithModel(store, 100);
  });
  it('property: concurrent counts from three handles on one file admit exactly what the counter holds', async () => {
    const others = [openSqliteStore(join(tmp.dir, 'model.sqlite')), openSqliteStore(join(tmp.dir, 'model.sqlite'))];
    await exactUnderConcurrency([store, ...others], 50);
    await Promise.all(others.map((h) => h.close()));
  });
});

describeRedis('Redis store against the counting model', () => {
  const suite = suiteRedis();
  let store: Store;
  beforeAll(() => {
    store = openRedisStore(suite.redis.url, { commandTimeoutMs: 30_000 });
  });
  afterAll(() => store.close());
  it('property: every answer and counter equals the model', async () => {
    await agreesWithModel(store, 100);
  });
  it('property: concurrent counts from three handles on one Redis admit exactly what the counter holds', async () => {
    const others = [openRedisStore(suite.redis.url, { commandTimeoutMs: 30_000 }), openRedisStore(suite.redis.url, { commandTimeoutMs: 30_000 })];
    await exactUnderConcurrency([store, ...others], 50);
    await Promise.all(others.map((h) => h.close()));
  });
});
