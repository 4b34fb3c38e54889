/**
 * SQLite durability under kill -9: a server process on a SQLite file is
 * killed mid-load and started again, twice. No lookup answered 200 is lost
 * (the count is committed before the answer is written), and no lookup is
 * counted twice; the only counts without a 200 are requests whose connection
 * died with the process (the count committed, the answer never delivered).
 */
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { steadyClock } from '@ipintel/testkit';
import { afterAll, expect, it } from 'vitest';
import { createKey } from '../../src/keys/manage.js';
import { periodAt, resolvePlans } from '../../src/plans.js';
import { openStore } from '../../src/store/open.js';
import { exited, startChild, until, type ChildServer } from '../support/children.js';
import { writeSnapshot } from '../support/fixtures.js';
import { TEST_PLANS, tempDir } from '../support/harness.js';

const PLANS = { ...TEST_PLANS, big: { quota: 1_000_000, period: 'day' as const, ratePerSecond: 0 } };
const tmp = tempDir();
afterAll(() => tmp.cleanup());

function get(url: string, agent: Agent, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { agent, headers: { 'x-api-key': key } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

it('kill -9 mid-load loses no counted lookup and counts none twice', async () => {
  const spec = `sqlite:${join(tmp.dir, 'store.sqlite')}`;
  const snapshot = writeSnapshot(tmp.dir, 'a');
  const store = await openStore(spec);
  const { key, record } = await createKey(store, { plan: 'big', plans: resolvePlans(PLANS), now: 0 });
  // The children's clock, from noon of a fixed day: their counts are per UTC day, and the usage read below
  // must be the day they counted in (on the real clock a run across midnight counts under two).
  const clock = steadyClock();
  const tally = { ok: 0, other: 0, lost: 0 };
  for (let round = 0; round < 2; round++) {
    const child: ChildServer = await startChild(snapshot, spec, PLANS, { options: { clockOffsetMs: clock.offsetMs } });
    let dead = false;
    const client = async (): Promise<void> => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      while (!dead) {
        try {
          const status = await get(`${child.url}/v1/check?ip=8.8.8.8`, agent, key);
          if (status === 200) tally.ok++;
          else tally.other++;
        } catch {
          tally.lost++; // in flight when the process died: the answer never came
          break;
        }
      }
      agent.destroy();
    };
    const clients = Array.from({ length: 4 }, client);
    const start = tally.ok;
    await until(() => tally.ok >= start + 150, '150 answers before the kill');
    child.process.kill('SIGKILL');
    dead = true;
    await exited(child.process);
    await Promise.all(clients);
  }
  const used = await store.usage(record.account, periodAt('day', clock()).key);
  await store.close();
  expect(tally.other).toBe(0);
  expect(used).toBeGreaterThanOrEqual(tally.ok);
  expect(used).toBeLessThanOrEqual(tally.ok + tally.lost);
});
