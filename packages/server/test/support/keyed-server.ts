/**
 * A standalone server for raw-socket tests: on a free port, over a SQLite
 * store in a temporary folder, with one active key of a plan (`big`) that no
 * test uses up. Started before the calling file's tests, closed after them.
 */
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createKey } from '../../src/keys/manage.js';
import { resolvePlans } from '../../src/plans.js';
import { startServer, type RunningServer } from '../../src/standalone.js';
import { fixtureBytes } from './fixtures.js';
import { TEST_PLANS, tempDir } from './harness.js';

/** The test plans with `big`: a million lookups a day, no rate limit. */
export const BIG_PLANS = { ...TEST_PLANS, big: { quota: 1_000_000, period: 'day' as const, ratePerSecond: 0 } };

export interface KeyedServer {
  readonly server: RunningServer;
  /** An active key of plan `big`. */
  readonly key: string;
}

/** Registers the server's start and close with the calling file; read its fields inside tests. */
export function keyedServer(): KeyedServer {
  const tmp = tempDir();
  const state: { server?: RunningServer; key?: string } = {};
  beforeAll(async () => {
    state.server = await startServer({ port: 0, snapshot: fixtureBytes('a'), store: `sqlite:${join(tmp.dir, 'store.sqlite')}`, logger: false, watch: false, sighup: false, activationDelayMs: 0, plans: BIG_PLANS, drainTimeoutMs: 100 });
    state.key = (await createKey(state.server.store, { plan: 'big', plans: resolvePlans(BIG_PLANS), now: 0 })).key;
  });
  afterAll(async () => {
    await state.server?.close();
    tmp.cleanup();
  });
  return {
    get server() {
      return state.server!;
    },
    get key() {
      return state.key!;
    },
  };
}
