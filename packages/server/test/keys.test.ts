/**
 * Keys: the secret's form and storage, and the lifecycle (activation,
 * revocation, rotation with a grace period) as the server sees it. The
 * `ipintel keys` command is tested in packages/cli/test/keys.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { KeyCache } from '../src/keys/cache.js';
import { createKey, keyState, revokeKey, rotateKey } from '../src/keys/manage.js';
import { generateKey, hashKey, keyId, keyMatches, redactKey } from '../src/keys/secret.js';
import { periodAt, resolvePlans } from '../src/plans.js';
import { openSqliteStore } from '../src/store/sqlite.js';
import { createApp } from '../src/app.js';
import { fixtureBytes } from './support/fixtures.js';
import { call, TEST_PLANS } from './support/harness.js';

const plans = resolvePlans(TEST_PLANS);

describe('key secrets', () => {
  it('reads ipi_live_ + 32 base62 characters, unique, id = first 10', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const { key, id } = generateKey();
      expect(key).toMatch(/^ipi_live_[0-9A-Za-z]{32}$/);
      expect(id).toBe(key.slice(9, 19));
      expect(keyId(key)).toBe(id);
      seen.add(key);
    }
    expect(seen.size).toBe(200);
    expect(keyId('ipi_test_' + 'a'.repeat(32))).toBeNull();
    expect(keyId('ipi_live_' + 'a'.repeat(31))).toBeNull();
  });

  it('stores only a SHA-256 hash and compares it in constant time', () => {
    const { key } = generateKey();
    const h = hashKey(key);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(keyMatches(key, h)).toBe(true);
    expect(keyMatches(key + 'x', h)).toBe(false);
    expect(keyMatches(key, 'abcd')).toBe(false);
  });

  it('redacts a key to its prefix and id', () => {
    const { key, id } = generateKey();
    expect(redactKey(key)).toBe(`ipi_live_${id}…`);
    expect(redactKey('secret-ish')).toBe('<10 chars, not a key>');
  });
});

describe('key lifecycle', () => {
  it('pending, then active, then revoked; never stores the secret', async () => {
    const store = openSqliteStore(':memory:');
    const { key, record } = await createKey(store, { plan: 'free', plans, now: 1_000 });
    expect(JSON.stringify(await store.listKeys())).not.toContain(key.slice(19));
    expect(keyState(record, 60_999, 60_000)).toBe('pending');
    expect(keyState(record, 61_000, 60_000)).toBe('active');
    const revoked = await revokeKey(store, record.id, 70_000);
    expect(keyState(revoked, 70_000, 60_000)).toBe('revoked');
    await expect(createKey(store, { plan: 'platinum', plans })).rejects.toThrow(/unknown plan/);
    await expect(revokeKey(store, 'nope')).rejects.toThrow(/no key/);
    await store.close();
  });

  it('rotation keeps the old key working for the grace period, then key_revoked; usage carries over', async () => {
    const store = openSqliteStore(':memory:');
    let now = 1_000_000;
    const app = createApp({ snapshot: fixtureBytes('a'), store, logger: false, plans: TEST_PLANS, activationDelayMs: 1_000, keyCacheMs: 0, now: () => now });
    await app.ready;
    const { key: oldKey, record } = await createKey(store, { plan: 'test', plans, now });
    now += 1_000;
    expect((await call(app, '/v1/check?ip=8.8.8.8', { key: oldKey })).headers['ratelimit-remaining']).toBe('49');
    const { created } = await rotateKey(store, record.id, { graceMs: 10_000, now, plans });
    await expect(rotateKey(store, record.id, { now, plans })).rejects.toThrow(/already rotated/);
    expect((await call(app, '/v1/check?ip=8.8.8.8', { key: created.key })).json.code).toBe('key_not_active');
    now += 1_000;
    expect((await call(app, '/v1/check?ip=8.8.8.8', { key: oldKey })).status).toBe(200);
    const fresh = await call(app, '/v1/check?ip=8.8.8.8', { key: created.key });
    expect(fresh.status).toBe(200);
    expect(fresh.headers['ratelimit-remaining']).toBe('47');
    now += 9_000;
    const after = await call(app, '/v1/check?ip=8.8.8.8', { key: oldKey });
    expect(after.status).toBe(403);
    expect(after.json.code).toBe('key_revoked');
    expect(after.json.detail).toContain(created.record.id);
    await app.close();
    await store.close();
  });
});

describe('a key revoked while a batch body arrives', () => {
  // The body is held at a gate while the key is revoked (keyCacheMs 0: every check reads the store).
  async function batchAcrossRevocation(url: string, body: string, revoke: boolean): Promise<{ status: number; code: unknown; used: number }> {
    const store = openSqliteStore(':memory:');
    const now = 5_000_000;
    const app = createApp({ snapshot: fixtureBytes('a'), store, logger: false, plans: TEST_PLANS, activationDelayMs: 0, keyCacheMs: 0, now: () => now });
    try {
      await app.ready;
      const { key, record } = await createKey(store, { plan: 'test', plans, now: 0 });
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let reading!: () => void;
      const started = new Promise<void>((resolve) => (reading = resolve));
      const answer = app.handle({
        method: 'POST',
        url,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        readBody: async () => {
          reading();
          await gate;
          return new TextEncoder().encode(body);
        },
      });
      await started;
      if (revoke) await revokeKey(store, record.id, now);
      release();
      const res = await answer;
      const used = await store.usage(record.account, periodAt('day', now).key);
      return { status: res.status, code: res.body === '' ? undefined : JSON.parse(res.body).code, used };
    } finally {
      await app.close();
      await store.close();
    }
  }

  for (const [url, body] of [
    ['/v1/check/batch', JSON.stringify({ ips: ['8.8.8.8', '1.1.1.1'] })],
    ['/thirdparty/batch', JSON.stringify(['8.8.8.8', '1.1.1.1'])],
  ] as const) {
    it(`${url}: 403 key_revoked and nothing counted; without the revocation, 200 and two lookups counted`, async () => {
      expect(await batchAcrossRevocation(url, body, true)).toEqual({ status: 403, code: 'key_revoked', used: 0 });
      expect(await batchAcrossRevocation(url, body, false)).toMatchObject({ status: 200, used: 2 });
    });
  }
});

describe('rotations racing', () => {
  it('two rotations of one key at once leave one successor, not two live keys', async () => {
    // Two operators (or a retried script) rotate the same key together: both read it unrotated.
    const store = openSqliteStore(':memory:');
    const { record } = await createKey(store, { plan: 'test', plans, now: 0 });
    const results = await Promise.allSettled([rotateKey(store, record.id, { plans, now: 1_000 }), rotateKey(store, record.id, { plans, now: 1_000 })]);
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const lost = results.find((r) => r.status === 'rejected');
    expect(String(lost?.reason)).toMatch(/rotated at the same time/);
    const successor = won[0]!.value.created.record.id;
    const keys = await store.listKeys();
    expect(keys.find((k) => k.id === record.id)?.replacedBy).toBe(successor);
    // The losing rotation's key is revoked at once: the only working successor is the recorded one.
    const live = keys.filter((k) => k.id !== record.id && keyState(k, 100_000, 0) !== 'revoked').map((k) => k.id);
    expect(live).toEqual([successor]);
    await store.close();
  });
});

describe('key cache', () => {
  it('reuses a key record for keyCacheMs, so a revocation reaches the server within that time', async () => {
    // The cache keeps its records by Date.now() (not the app's clock): a stopped Date, moved on by hand, so a slow machine's pause never expires it early.
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = openSqliteStore(':memory:');
    try {
      const app = createApp({ snapshot: fixtureBytes('a'), store, logger: false, plans: TEST_PLANS, activationDelayMs: 0, keyCacheMs: 60_000 });
      await app.ready;
      const { key, record } = await createKey(store, { plan: 'test', plans, now: 0 });
      expect((await call(app, '/v1/check?ip=8.8.8.8', { key })).status).toBe(200);
      await revokeKey(store, record.id);
      vi.setSystemTime(Date.now() + 59_000);
      expect((await call(app, '/v1/check?ip=8.8.8.8', { key })).status).toBe(200);
      vi.setSystemTime(Date.now() + 2_000);
      expect((await call(app, '/v1/check?ip=8.8.8.8', { key })).json.code).toBe('key_revoked');
      await app.close();
    } finally {
      vi.useRealTimers();
      await store.close();
    }
  });
});

describe('key verification', () => {
  it('property: a presented key matches its record iff it is the key, whatever its length, prefix or what was proven before', async () => {
    const store = openSqliteStore(':memory:');
    const cache = new KeyCache(store, 60_000);
    const { key, record } = await createKey(store, { plan: 'test', plans, now: 0 });
    const secret = key.slice('ipi_live_'.length);
    // Near misses: one character changed, other prefixes (other lengths), truncated and extended.
    const presented = fc.oneof(
      fc.constant(key),
      fc.tuple(fc.nat(31), fc.constantFrom(...'0aZ9')).map(([i, c]) => `ipi_live_${secret.slice(0, i)}${c}${secret.slice(i + 1)}`),
      fc.stringMatching(/^[a-z][a-z0-9]{0,15}$/).map((p) => `${p}_live_${secret}`),
      fc.nat(40).map((n) => key.slice(0, n)),
      fc.string({ maxLength: 8 }).map((x) => key + x),
      fc.string({ maxLength: 70 }),
    );
    fc.assert(
      fc.property(fc.array(presented, { minLength: 1, maxLength: 6 }), (tries) => {
        for (const t of tries) {
          expect(cache.verify(t, record)).toBe(t === key);
          expect(cache.verify(t, null)).toBe(false);
        }
      }),
    );
    await store.close();
  });
});
