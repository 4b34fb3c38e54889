/**
 * Row 11 of issue 11: `?token=` is a key only on the /thirdparty alias routes
 * (as docs/api.md says). On /v1 routes it authenticates nothing, so such a
 * request cannot take a rate token or count a lookup and then fail.
 */
import { expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { periodAt } from '../../src/plans.js';
import { fixtureBytes } from '../support/fixtures.js';
import { call, expectProblem, harness, TEST_PLANS } from '../support/harness.js';
import { keyId } from '../../src/keys/secret.js';

it('?token= on /v1 routes answers 401 and takes no rate token; on /thirdparty it is the key', async () => {
  const h = await harness();
  const key = await h.key('tiny', { createdAt: 0 }); // 2 requests per second, 3 lookups per day
  const now = Math.floor(Date.now() / 1000) * 1000 + 10;
  const app = createApp({ snapshot: fixtureBytes('a'), store: h.store, logger: false, plans: TEST_PLANS, activationDelayMs: 0, keyCacheMs: 0, now: () => now });
  await app.ready;
  for (const url of [`/v1/check?ip=8.8.8.8&token=${key}`, `/v1/check?ip=8.8.8.8&%74oken=${key}`, `/v1/check?ip=nope&token=${key}`]) {
    const res = await call(app, url);
    expectProblem(res, 401, 'missing_api_key');
    expect(res.json.detail).toContain('/thirdparty');
    expect(res.headers['ratelimit-limit']).toBeUndefined();
  }
  const batch = await call(app, `/v1/check/batch?token=${key}`, { body: { ips: ['8.8.8.8'] } });
  expectProblem(batch, 401, 'missing_api_key');
  // The second's two rate tokens are both still there, and nothing was counted.
  expect((await call(app, '/v1/check?ip=8.8.8.8', { key })).status).toBe(200);
  expect((await call(app, `/thirdparty/8.8.8.8/json?token=${key}`)).status).toBe(200);
  expectProblem(await call(app, '/v1/check?ip=8.8.8.8', { key }), 429, 'rate_limited');
  const account = (await h.store.getKey(keyId(key)!))!.account;
  expect(await h.store.usage(account, periodAt('day', now).key)).toBe(2);
  await app.close();
  await h.close();
});
