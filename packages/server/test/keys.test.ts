/**
 * Keys: the secret's form and storage, the lifecycle (activation, revocation,
 * rotation with a grace period) as the server sees it, and `ipintel keys`.
 */
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { keysCommand } from '../src/cli/keys.js';
import { createKey, keyState, revokeKey, rotateKey } from '../src/keys/manage.js';
import { generateKey, hashKey, keyId, keyMatches, redactKey } from '../src/keys/secret.js';
import { resolvePlans } from '../src/plans.js';
import { openSqliteStore } from '../src/store/sqlite.js';
import { createApp } from '../src/app.js';
import { fixtureBytes } from './support/fixtures.js';
import { call, TEST_PLANS, tempDir } from './support/harness.js';

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

describe('key cache', () => {
  it('reuses a key record for keyCacheMs, so a revocation reaches the server within that time', async () => {
    const store = openSqliteStore(':memory:');
    const app = createApp({ snapshot: fixtureBytes('a'), store, logger: false, plans: TEST_PLANS, activationDelayMs: 0, keyCacheMs: 150 });
    await app.ready;
    const { key, record } = await createKey(store, { plan: 'test', plans, now: 0 });
    expect((await call(app, '/v1/check?ip=8.8.8.8', { key })).status).toBe(200);
    await revokeKey(store, record.id);
    expect((await call(app, '/v1/check?ip=8.8.8.8', { key })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect((await call(app, '/v1/check?ip=8.8.8.8', { key })).json.code).toBe('key_revoked');
    await app.close();
    await store.close();
  });
});

function io() {
  const out = new PassThrough();
  const err = new PassThrough();
  const text = { out: '', err: '' };
  out.on('data', (d) => (text.out += d));
  err.on('data', (d) => (text.err += d));
  return { io: { stdout: out, stderr: err }, text };
}

describe('ipintel keys', () => {
  const tmp = tempDir();
  const spec = `sqlite:${join(tmp.dir, 'keys.sqlite')}`;
  afterAll(() => tmp.cleanup());

  it('create prints the key once on stdout; list shows it without the secret', async () => {
    const a = io();
    expect(await keysCommand(['create', '--plan', 'free', '--name', 'my app', '--store', spec], a.io)).toBe(0);
    const key = a.text.out.trim();
    expect(key).toMatch(/^ipi_live_[0-9A-Za-z]{32}$/);
    expect(a.text.err).toContain('not stored');
    const l = io();
    expect(await keysCommand(['list', '--store', spec], l.io)).toBe(0);
    expect(l.text.out).toContain(keyId(key)!);
    expect(l.text.out).toContain('my app');
    expect(l.text.out).toContain('0/1000 per day');
    expect(l.text.out).not.toContain(key);
    const j = io();
    await keysCommand(['list', '--json', '--store', spec], j.io);
    expect(JSON.parse(j.text.out)[0]).toMatchObject({ id: keyId(key), plan: 'free', state: 'pending', used: 0, quota: 1000 });
  });

  it('rotate and revoke by id', async () => {
    const c = io();
    await keysCommand(['create', '--plan', 'pro', '--json', '--store', spec], c.io);
    const { id } = JSON.parse(c.text.out) as { id: string };
    const r = io();
    expect(await keysCommand(['rotate', id, '--grace', '2h', '--json', '--store', spec], r.io)).toBe(0);
    const rotated = JSON.parse(r.text.out) as { id: string; key: string; plan: string };
    expect(rotated.plan).toBe('pro');
    expect(rotated.key).toMatch(/^ipi_live_/);
    const v = io();
    expect(await keysCommand(['revoke', rotated.id, '--store', spec], v.io)).toBe(0);
    expect(v.text.out).toContain(`Revoked key ${rotated.id}`);
    const l = io();
    await keysCommand(['list', '--json', '--store', spec], l.io);
    const rows = JSON.parse(l.text.out) as { id: string; state: string; replaced_by: string | null }[];
    expect(rows.find((x) => x.id === id)).toMatchObject({ state: 'rotating', replaced_by: rotated.id });
    expect(rows.find((x) => x.id === rotated.id)?.state).toBe('revoked');
    const missing = io();
    expect(await keysCommand(['revoke', 'nope', '--store', spec], missing.io)).toBe(1);
    expect(missing.text.err).toContain('no key');
  });

  it('usage errors exit 2 with a message; --help exits 0', async () => {
    for (const argv of [['create'], ['create', '--plan', 'gold'], ['list', '--bogus'], ['frobnicate'], ['revoke'], ['list', 'x'], ['rotate', 'a', '--grace', 'soon'], ['list', '--plan', 'free'], []]) {
      const e = io();
      expect(await keysCommand([...argv, '--store', spec], e.io), argv.join(' ')).toBe(2);
      expect(e.text.err).not.toBe('');
    }
    const h = io();
    expect(await keysCommand(['--help'], h.io)).toBe(0);
    expect(h.text.out).toContain('Usage: ipintel keys');
    expect(h.text.out).toContain('Example:');
  });

  it('extra plans can be offered', async () => {
    const e = io();
    expect(await keysCommand(['create', '--plan', 'test', '--store', spec], e.io, { plans: TEST_PLANS })).toBe(0);
  });
});
