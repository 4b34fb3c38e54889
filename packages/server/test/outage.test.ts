/**
 * Store outage: redis-server is stopped (SIGTERM, then SIGKILL) and restarted
 * during a run of requests. While it is down the server fails closed (503
 * store_unavailable, no lookup served), it recovers by itself, and once the
 * counts cut by the outage are checked, exactly the 200s are counted.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { createKey } from '../src/keys/manage.js';
import { periodAt, resolvePlans } from '../src/plans.js';
import { openRedisStore } from '../src/store/redis.js';
import type { Store } from '../src/store/types.js';
import { fixtureBytes } from './support/fixtures.js';
import { call, captureLogger, TEST_PLANS, tempDir } from './support/harness.js';
import { freePort, startRedis, steadyClock, type RedisProcess } from '@ipintel/testkit';
import { describeRedis } from './support/redis.js';
import { until } from './support/children.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeRedis('Redis outage', () => {
  const tmp = tempDir();
  let redis: RedisProcess;
  let store: Store;
  let app: App;
  const log = captureLogger();
  // The key's plan counts per UTC month: a clock from a fixed mid-month day, which the usage read below shares.
  const clock = steadyClock();
  beforeAll(async () => {
    redis = await startRedis({ dir: tmp.dir, appendonly: true });
    store = openRedisStore(redis.url, { onEvent: () => {} });
    app = createApp({ snapshot: fixtureBytes('a'), store, logger: log.logger, plans: TEST_PLANS, activationDelayMs: 0, rateLimit: false, now: clock });
    await app.ready;
  });
  afterAll(async () => {
    await app.close();
    await store.close();
    await redis.stop();
    tmp.cleanup();
  });

  it.each(['SIGTERM', 'SIGKILL'] as const)('fails closed while Redis is down (%s) and recovers when it returns', async (signal) => {
    const { key, record } = await createKey(store, { plan: 'scale', plans: resolvePlans(TEST_PLANS), now: 0 });
    const counts = { ok: 0, unavailable: 0, other: [] as string[] };
    let phase: 'up' | 'down' | 'back' = 'up';
    const okIn = { up: 0, down: 0, back: 0 };
    let stop = false;
    const loop = async () => {
      while (!stop) {
        const res = await call(app, '/v1/check?ip=8.8.8.8', { key });
        if (res.status === 200) {
          counts.ok++;
          okIn[phase]++;
        } else if (res.json?.code === 'store_unavailable') counts.unavailable++;
        else counts.other.push(res.body);
        await sleep(2);
      }
    };
    const loops = [loop(), loop(), loop()];
    await sleep(300);
    await redis.stop(signal);
    phase = 'down';
    await sleep(100);
    const downOk = okIn.down;
    await sleep(400);
    expect((await call(app, '/healthz')).json.store.status).toBe('unavailable');
    // Nothing was served while Redis was down (the only 200s in 'down' are in flight at the stop).
    expect(okIn.down).toBe(downOk);
    await redis.start();
    phase = 'back';
    const end = Date.now() + 5_000;
    while (okIn.back < 20 && Date.now() < end) await sleep(50);
    stop = true;
    await Promise.all(loops);

    expect(counts.other).toEqual([]);
    expect(counts.unavailable).toBeGreaterThan(0);
    expect(okIn.up).toBeGreaterThan(0);
    expect(okIn.back).toBeGreaterThanOrEqual(20);
    // Every 200 was counted, and nothing else: a count whose reply was lost as Redis went
    // down was answered 503 and is undone once checked (store/redis-reconcile.ts).
    const used = () => store.usage(record.account, periodAt('month', clock()).key);
    await until(async () => (await used()) <= counts.ok, 'the counts cut by the outage undone');
    expect(await used()).toBe(counts.ok);
    expect((await call(app, '/healthz')).json.store.status).toBe('ok');
  });
});

it('a server whose Redis has never been reachable answers 503 within storeTimeoutMs, not after the 2 s first-connection wait', async () => {
  // Nothing listens on the port: the store keeps trying to connect. A request without a key
  // (the demo quota: no key read, only a count) must still get its 503 within its deadline.
  const store = openRedisStore(`redis://127.0.0.1:${await freePort()}`, { onEvent: () => {} });
  const app = createApp({ snapshot: fixtureBytes('a'), store, logger: false, demoQuota: 100, storeTimeoutMs: 200 });
  try {
    await app.ready;
    const t0 = Date.now();
    const res = await call(app, '/v1/check?ip=8.8.8.8', { remoteAddress: '192.0.2.7' });
    const ms = Date.now() - t0;
    expect(res.json?.code).toBe('store_unavailable');
    // The count's own wait: the deadline, the unmeasured clock's uncertainty (250 ms) and 100 ms.
    expect(ms).toBeLessThan(200 + 250 + 100 + 300);
    const t1 = Date.now();
    await expect(store.consume({ account: 'x', period: 'd2026-01-01', periodEndsAt: Date.UTC(2026, 0, 2), quota: 5, n: 1, ratePerSecond: 0, second: 1, deadline: Date.now() + 100 })).rejects.toThrow(/Redis store/);
    expect(Date.now() - t1).toBeLessThan(100 + 250 + 100 + 300);
  } finally {
    await app.close();
    await store.close();
  }
});
