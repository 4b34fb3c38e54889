/**
 * Three server processes share one store; concurrent requests with one key
 * run up to and past its quota. Exactly the quota is admitted, not one more,
 * and every admitted lookup is counted: on SQLite and on Redis.
 */
import { join } from 'node:path';
import { steadyClock } from '@ipintel/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/keys/manage.js';
import { resolvePlans } from '../src/plans.js';
import { openStore } from '../src/store/open.js';
import { periodAt } from '../src/plans.js';
import { startChild, type ChildServer } from './support/children.js';
import { writeSnapshot } from './support/fixtures.js';
import { TEST_PLANS, tempDir } from './support/harness.js';
import { describeRedis, suiteRedis } from './support/redis.js';

const QUOTA = TEST_PLANS['test']!.quota;
const REQUESTS = 90;

async function raceToQuota(spec: string, snapshotPath: string): Promise<void> {
  // One clock for the three processes and the test, from noon of a fixed day: the quota is per UTC day, and on
  // the real clock a race across midnight would admit two days' quotas and count them under two days.
  const clock = steadyClock();
  const servers: ChildServer[] = await Promise.all([0, 1, 2].map(() => startChild(snapshotPath, spec, TEST_PLANS, { options: { clockOffsetMs: clock.offsetMs } })));
  const store = await openStore(spec, { waitMs: 2000 });
  try {
    const { key, record } = await createKey(store, { plan: 'test', plans: resolvePlans(TEST_PLANS), now: clock() - 1 });
    const answers = await Promise.all(
      Array.from({ length: REQUESTS }, async (_, i) => {
        const res = await fetch(`${servers[i % 3]!.url}/v1/check?ip=8.8.8.8`, { headers: { 'x-api-key': key } });
        const body = (await res.json()) as { code?: string; geo?: unknown };
        return { status: res.status, code: body.code, served: body.geo !== undefined };
      }),
    );
    const admitted = answers.filter((a) => a.status === 200);
    expect(admitted).toHaveLength(QUOTA);
    expect(admitted.every((a) => a.served)).toBe(true);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused).toHaveLength(REQUESTS - QUOTA);
    expect(refused.every((a) => a.status === 429 && a.code === 'quota_exceeded')).toBe(true);
    expect(await store.usage(record.account, periodAt('day', clock()).key)).toBe(QUOTA);
  } finally {
    await store.close();
    await Promise.all(servers.map((s) => s.stop()));
  }
}

describe('three processes on one SQLite file', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());
  it('admit exactly the quota', async () => {
    await raceToQuota(`sqlite:${join(tmp.dir, 'shared.sqlite')}`, writeSnapshot(tmp.dir, 'a'));
  });
});

describeRedis('three processes on one Redis', () => {
  const suite = suiteRedis();
  it('admit exactly the quota', async () => {
    await raceToQuota(suite.redis.url, writeSnapshot(suite.dir, 'a'));
  });
});
