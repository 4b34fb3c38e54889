/**
 * Access logs: one structured line per request, with the key's id and never
 * the key itself, however the key was sent (header, Bearer, ?token=, or
 * pasted by mistake into another parameter).
 */
import { expect, it } from 'vitest';
import { createKey } from '../src/keys/manage.js';
import { resolvePlans } from '../src/plans.js';
import { call, captureLogger, harness, TEST_PLANS } from './support/harness.js';

it('logs method, path, status, code and key id, never a full key', async () => {
  const { logger, lines } = captureLogger();
  const h = await harness({ logger });
  const { key, record } = await createKey(h.store, { plan: 'test', plans: resolvePlans(TEST_PLANS), now: 0 });
  const secret = key.slice('ipi_live_'.length + 10);
  const wrong = key.slice(0, -4) + 'zzzz';
  await call(h.app, '/v1/check?ip=8.8.8.8', { key });
  await call(h.app, '/v1/check?ip=8.8.8.8', { headers: { authorization: `Bearer ${key}` } });
  await call(h.app, `/thirdparty/8.8.8.8/json?token=${key}`);
  await call(h.app, `/thirdparty/8.8.8.8/json?token=${encodeURIComponent(key)}&x=1`);
  await call(h.app, `/v1/check?ip=${key}`, { key });
  await call(h.app, `/v1/check?${key}=1`, { key });
  await call(h.app, '/v1/check?ip=8.8.8.8', { key: wrong });
  await call(h.app, '/v1/check/batch', { key, body: { ips: [key] } });
  await call(h.app, `/v1/check?ip=${key.replaceAll('_', '%5F')}`, { key });
  await h.close();

  expect(lines.length).toBe(9);
  for (const line of lines) {
    expect(line).not.toContain(key);
    expect(line).not.toContain(secret);
    expect(line).not.toContain(wrong);
  }
  const first = JSON.parse(lines[0]!) as Record<string, unknown>;
  expect(first).toMatchObject({ msg: 'request', method: 'GET', url: '/v1/check?ip=8.8.8.8', status: 200, key_id: record.id, lookups: 1 });
  expect(typeof first['ms']).toBe('number');
  expect(JSON.parse(lines[2]!)).toMatchObject({ url: '/thirdparty/8.8.8.8/json?token=[redacted]', status: 200 });
  expect(JSON.parse(lines[6]!)).toMatchObject({ status: 401, code: 'invalid_api_key' });
});
