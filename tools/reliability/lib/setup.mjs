// What every phase needs: the fixture snapshot built by the builder (two
// builds that differ only in their build date, to see swaps), plans, and API
// keys made directly in a store.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSnapshot } from '../../../packages/builder/dist/index.js';
import { createKey, openStore, periodAt, resolvePlans } from '../../../packages/server/dist/index.js';

const FEEDS = fileURLToPath(new URL('../../../fixtures/feeds', import.meta.url));

/** Plans of the run: `load` never runs out; `race` is the quota the processes race for. */
export const PLANS = {
  load: { quota: 1_000_000_000, period: 'day', ratePerSecond: 0 },
  race: { quota: 200, period: 'day', ratePerSecond: 0 },
};

/** Builds the fixture snapshot twice (build dates 2026-01-01 and 2026-01-02) into `work`. */
export async function snapshots(work) {
  const out = {};
  for (const [name, date] of [['a', '2026-01-01T00:00:00.000Z'], ['b', '2026-01-02T00:00:00.000Z']]) {
    const path = join(work, `fixture-${name}.ipintel`);
    await buildSnapshot({ out: path, feeds: FEEDS, buildDate: date });
    out[name] = { path, bytes: new Uint8Array(readFileSync(path)), buildDate: date };
  }
  return out;
}

/** A new key on `plan` in the store at `spec`; `used()` reads its account's lookups today. */
export async function newKey(spec, plan = 'load') {
  const store = await openStore(spec, { waitMs: 5000 });
  const { key, record } = await createKey(store, { plan, plans: resolvePlans(PLANS), now: Date.now() - 120_000 });
  return {
    key,
    headers: { 'x-api-key': key },
    used: () => store.usage(record.account, periodAt(PLANS[plan].period, Date.now()).key),
    close: () => store.close(),
  };
}

/** Options every server of the run gets. */
export function serverOptions(snapshotPath, store, extra = {}) {
  return { snapshotPath, store, plans: PLANS, activationDelayMs: 0, logLevel: 'warn', pollIntervalMs: 200, ...extra };
}

const MiB = 1024 * 1024;
/** RSS in MiB, one decimal. */
export const mib = (bytes) => (bytes === undefined ? undefined : Math.round((bytes / MiB) * 10) / 10);
