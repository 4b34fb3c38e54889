/**
 * GET /healthz reports the snapshot's age and the sources older than their
 * refresh interval, at the server's clock; stale data does not make the
 * server unhealthy.
 */
import { describe, expect, it } from 'vitest';
import { modelFromPrefixes, sourceRow as source } from '@ipintel/testkit';
import { encodeSnapshot } from '@ipintel/core/writer';
import { createApp } from '../src/app.js';
import { openSqliteStore } from '../src/store/sqlite.js';
import { call, TEST_PLANS } from './support/harness.js';

const snapshot = encodeSnapshot({
  ...modelFromPrefixes([], [], 1),
  build_date: '2026-08-22T00:00:00.000Z',
  sources: [source('tor-exits', '2026-08-22T16:18:35Z', '1d'), source('aws', '2026-08-21T07:37:05Z', '7d'), source('geo', null, '30d')],
});

describe('GET /healthz: freshness', () => {
  it('gives the age in seconds and the stale sources, and stays 200', async () => {
    const now = Date.parse('2026-08-25T00:00:00Z');
    const app = createApp({ snapshot, store: openSqliteStore(':memory:'), logger: false, plans: TEST_PLANS, activationDelayMs: 0, now: () => now });
    await app.ready;
    const res = await call(app, '/healthz');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'ok', snapshot: { loaded: true, build_date: '2026-08-22T00:00:00.000Z', age_s: 3 * 86_400, stale_sources: ['tor-exits'] } });
    await app.close();
  });
});
