/**
 * Hot reload: the snapshot file is replaced (atomic rename) while requests
 * run; none fails, the new answers appear, a bad file is refused and logged
 * while the old snapshot keeps serving; SIGHUP reloads on demand.
 */
import { writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { createKey } from '../src/keys/manage.js';
import { resolvePlans } from '../src/plans.js';
import { startServer } from '../src/standalone.js';
import { openSqliteStore } from '../src/store/sqlite.js';
import { encodeSnapshot } from '@ipintel/core/writer';
import { damageColumn } from '@ipintel/testkit';
import { CITY, fixtureBytes, fixtureModel, writeSnapshot } from './support/fixtures.js';
import { call, captureLogger, TEST_PLANS, tempDir } from './support/harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(20);
  }
}

describe('hot reload', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('swaps snapshots under load with zero failed requests and refuses a bad file', async () => {
    const path = writeSnapshot(tmp.dir, 'a');
    const store = openSqliteStore(':memory:');
    const { logger, lines } = captureLogger();
    const app = createApp({ snapshot: path, store, logger, plans: TEST_PLANS, activationDelayMs: 0, rateLimit: false, pollIntervalMs: 100 });
    await app.ready;
    const { key } = await createKey(store, { plan: 'scale', plans: resolvePlans(TEST_PLANS), now: 0 });
    const city = async () => (await call(app, '/v1/check?ip=8.8.8.8', { key })).json.geo.city as string;
    expect(await city()).toBe(CITY.a);

    let stop = false;
    const seen = new Set<string>();
    let ok = 0;
    const failures: string[] = [];
    const worker = async () => {
      while (!stop) {
        const res = await call(app, '/v1/check?ip=8.8.8.8', { key });
        if (res.status === 200) {
          ok++;
          seen.add(res.json.geo.city);
        } else failures.push(res.body);
        await new Promise((r) => setImmediate(r));
      }
    };
    const workers = Array.from({ length: 8 }, worker);
    const started = Date.now();
    let variant: 'a' | 'b' = 'a';
    while (Date.now() - started < 1_500) {
      await sleep(120);
      variant = variant === 'a' ? 'b' : 'a';
      writeSnapshot(tmp.dir, variant);
    }
    stop = true;
    await Promise.all(workers);
    expect(failures).toEqual([]);
    expect(ok).toBeGreaterThan(100);
    expect(seen).toEqual(new Set([CITY.a, CITY.b]));

    // b in service as the file on disk: reloadSnapshot() resolves after a check that began after the write. Waiting
    // for b's city was not enough: an earlier b still answered while a late check of an 'a' written in the loop
    // loaded, and that check then put a in service (a loaded machine, 2 runs in 10).
    writeSnapshot(tmp.dir, 'b');
    await app.reloadSnapshot();
    expect(await city()).toBe(CITY.b);

    // A truncated file is refused and logged; the old snapshot keeps answering.
    const refusals = () => lines.filter((l) => l.includes('snapshot refused')).length;
    let before = refusals();
    const bad = fixtureBytes('a').slice(0, 200);
    writeFileSync(`${path}.bad`, bad);
    renameSync(`${path}.bad`, path);
    await until(async () => refusals() > before);
    expect(await city()).toBe(CITY.b);
    expect((await call(app, '/healthz')).json.snapshot.build_date).toBe('2026-01-02T00:00:00.000Z');

    // So is a file whose checksums hold but whose IPv6 index breaks an invariant: the server preloads, so such a
    // file is refused at reload rather than by the first IPv6 request after the swap.
    before = refusals();
    const bad6 = damageColumn(encodeSnapshot(fixtureModel('a'), { compress: false }), 'v6.leaf', (col) => col.setUint8(2, 0x7f));
    writeFileSync(`${path}.bad`, bad6);
    renameSync(`${path}.bad`, path);
    await until(async () => refusals() > before);
    expect(lines.at(-1)).toMatch(/IPv6 leaf id is out of range/);
    expect(await city()).toBe(CITY.b);
    expect((await call(app, '/v1/check?ip=2001:4860::1', { key })).status).toBe(200);

    // A good file after the bad one is picked up again.
    writeSnapshot(tmp.dir, 'a');
    await until(async () => (await city()) === CITY.a);
    await app.close();
    await store.close();
  });

  it('loads a snapshot that appears after start (503 until then)', async () => {
    const dir = join(tmp.dir, 'later');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir);
    const store = openSqliteStore(':memory:');
    const app = createApp({ snapshot: join(dir, 'snapshot.ipintel'), store, logger: false, plans: TEST_PLANS, activationDelayMs: 0, pollIntervalMs: 100 });
    await app.ready;
    const { key } = await createKey(store, { plan: 'scale', plans: resolvePlans(TEST_PLANS), now: 0 });
    expect((await call(app, '/v1/check?ip=8.8.8.8', { key })).status).toBe(503);
    writeSnapshot(dir, 'a');
    await until(async () => (await call(app, '/v1/check?ip=8.8.8.8', { key })).status === 200);
    await app.close();
    await store.close();
  });

  it('SIGHUP reloads the file in the standalone server', async () => {
    const dir = join(tmp.dir, 'hup');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir);
    const snapshotPath = writeSnapshot(dir, 'a');
    const server = await startServer({ port: 0, snapshotPath, store: `sqlite:${join(dir, 's.sqlite')}`, logger: false, watch: false, activationDelayMs: 0, drainTimeoutMs: 100 }); // a short drain: fetch's idle keep-alive connection would hold close() for its timeout
    const { key } = await createKey(server.store, { plan: 'scale', plans: resolvePlans(), now: 0 });
    const city = async () => ((await (await fetch(`${server.url}/v1/check?ip=8.8.8.8`, { headers: { 'x-api-key': key } })).json()) as { geo: { city: string } }).geo.city;
    expect(await city()).toBe(CITY.a);
    writeSnapshot(dir, 'b');
    await sleep(150);
    expect(await city()).toBe(CITY.a);
    process.emit('SIGHUP' as 'exit', 0);
    await until(async () => (await city()) === CITY.b);
    await server.close();
  });
});
