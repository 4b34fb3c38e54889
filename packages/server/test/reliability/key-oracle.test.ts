/**
 * Row 12 of issue 11: an unknown key id must cost what a known one costs, or
 * the answer time tells which ids exist. Checked without clocks: both paths
 * make the same store reads (unknown ids are cached like known ones) and the
 * same hash comparisons (an unknown id is compared against a hash that cannot
 * match), and give the same answer.
 */
import { expect, it, vi } from 'vitest';
import * as secret from '../../src/keys/secret.js';
import { createKey } from '../../src/keys/manage.js';
import { resolvePlans } from '../../src/plans.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { call, harness, TEST_PLANS } from '../support/harness.js';

vi.mock('../../src/keys/secret.js', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../src/keys/secret.js')>();
  return { ...m, keyMatches: vi.fn(m.keyMatches) };
});

/** A store that records every key read by id. */
function countingStore(): { store: Store; reads: string[] } {
  const inner = openSqliteStore(':memory:');
  const reads: string[] = [];
  return {
    reads,
    store: {
      ...inner,
      getKey: (id) => {
        reads.push(id);
        return inner.getKey(id);
      },
    },
  };
}

interface Cost {
  reads: number;
  compares: number;
  body: string;
}

async function probe(keyCacheMs: number, proveFirst = false): Promise<{ known: Cost; unknown: Cost; right?: Cost }> {
  const { store, reads } = countingStore();
  const h = await harness({ store, keyCacheMs });
  const { key, record } = await createKey(store, { plan: 'test', plans: resolvePlans(TEST_PLANS), now: 0 });
  const wrongSecret = `${key.slice(0, -5)}${key.endsWith('zzzzz') ? 'yyyyy' : 'zzzzz'}`;
  const unknownId = `ipi_live_${record.id === 'Q'.repeat(10) ? 'R' : 'Q'}${'Q'.repeat(9)}${key.slice(19)}`;
  const run = async (presented: string) => {
    const compares = vi.mocked(secret.keyMatches).mock.calls.length;
    const before = reads.length;
    let body = '';
    for (let i = 0; i < 5; i++) body = (await call(h.app, '/v1/check?ip=8.8.8.8', { key: presented })).body;
    return { reads: reads.length - before, compares: vi.mocked(secret.keyMatches).mock.calls.length - compares, body };
  };
  // proveFirst: the right key is served first, so its record holds a proven key (keys/cache.ts).
  const right = proveFirst ? await run(key) : undefined;
  const known = await run(wrongSecret);
  const unknown = await run(unknownId);
  await h.close();
  await store.close();
  return { known, unknown, ...(right === undefined ? {} : { right }) };
}

it('an unknown id and a known id with a wrong secret cost the same store reads and hash comparisons (cached)', async () => {
  const { known, unknown } = await probe(60_000);
  expect(known).toEqual({ reads: 1, compares: 5, body: known.body });
  expect(unknown).toEqual({ reads: 1, compares: 5, body: known.body });
  expect(JSON.parse(known.body).code).toBe('invalid_api_key');
});

it('and the same without a cache', async () => {
  const { known, unknown } = await probe(0);
  expect(known).toEqual({ reads: 5, compares: 5, body: known.body });
  expect(unknown).toEqual({ reads: 5, compares: 5, body: known.body });
});

it('once the right key was proven, it is served without hashing, and a wrong secret still costs what an unknown id costs', async () => {
  const { known, unknown, right } = await probe(60_000, true);
  // The first request hashes and proves the key; the four after it compare with the proven key only.
  expect(right).toEqual({ reads: 1, compares: 1, body: right!.body });
  expect(JSON.parse(right!.body).ip).toBe('8.8.8.8');
  expect(known).toEqual({ reads: 0, compares: 5, body: known.body });
  expect(unknown).toEqual({ reads: 1, compares: 5, body: known.body });
  expect(JSON.parse(known.body).code).toBe('invalid_api_key');
});

it('without a cache nothing stays proven: every request hashes', async () => {
  const { right } = await probe(0, true);
  expect(right).toEqual({ reads: 5, compares: 5, body: right!.body });
});
