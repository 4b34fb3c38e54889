/**
 * Hot reload under load with every kind of replacement an operator may make:
 * an atomic rename of a valid file, a truncated file, a bit-flipped file, and
 * a non-atomic copy written in place in pieces (as `cp` does). No request
 * fails, no answer comes from a damaged file (every answer is one of the two
 * valid snapshots), a damaged file is refused and logged, and the complete
 * copy is picked up once written.
 */
import { overwriteInPlace } from '@ipintel/testkit';
import { afterAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createKey } from '../../src/keys/manage.js';
import { resolvePlans } from '../../src/plans.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { until } from '../support/children.js';
import { CITY, fixtureBytes, writeSnapshot } from '../support/fixtures.js';
import { call, captureLogger, TEST_PLANS, tempDir } from '../support/harness.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

it('serves through valid, truncated, bit-flipped and non-atomic replacements with no failed request', async () => {
  const path = writeSnapshot(tmp.dir, 'a');
  const store = openSqliteStore(':memory:');
  const log = captureLogger();
  const app = createApp({ snapshot: path, store, logger: log.logger, plans: TEST_PLANS, activationDelayMs: 0, rateLimit: false, pollIntervalMs: 50 });
  await app.ready;
  const { key } = await createKey(store, { plan: 'scale', plans: resolvePlans(TEST_PLANS), now: 0 });
  const city = async (): Promise<string> => (await call(app, '/v1/check?ip=8.8.8.8', { key })).json.geo.city as string;

  const tally = { ok: 0, failures: [] as string[], cities: new Set<string>() };
  let stop = false;
  const worker = async (): Promise<void> => {
    while (!stop) {
      const res = await call(app, '/v1/check?ip=8.8.8.8', { key });
      if (res.status === 200) {
        tally.ok++;
        tally.cities.add(res.json.geo.city);
      } else tally.failures.push(res.body);
      await new Promise((r) => setImmediate(r));
    }
  };
  const workers = Array.from({ length: 6 }, worker);
  const refusals = () => log.lines.filter((l) => l.includes('snapshot refused')).length;

  const b = fixtureBytes('b');
  writeSnapshot(tmp.dir, b);
  await until(async () => (await city()) === CITY.b, 'the valid replacement served');

  let before = refusals();
  writeSnapshot(tmp.dir, b.slice(0, Math.floor(b.length / 2)));
  await until(() => refusals() > before, 'the truncated file refused');
  expect(await city()).toBe(CITY.b);

  before = refusals();
  const flipped = new Uint8Array(fixtureBytes('a'));
  flipped[Math.floor(flipped.length * 0.6)]! ^= 0x10;
  writeSnapshot(tmp.dir, flipped);
  await until(() => refusals() > before, 'the bit-flipped file refused');
  expect(await city()).toBe(CITY.b);

  // In place, in 12 pieces: the watcher sees partial files on the way and must not serve one.
  await overwriteInPlace(path, fixtureBytes('a'), 12, 15);
  await until(async () => (await city()) === CITY.a, 'the complete copy served');

  stop = true;
  await Promise.all(workers);
  expect(tally.failures).toEqual([]);
  expect(tally.ok).toBeGreaterThan(100);
  expect(tally.cities).toEqual(new Set([CITY.a, CITY.b]));
  await app.close();
  await store.close();
});
