/**
 * Row 13 of issue 11: the SQLite store holds key hashes and usage, so the file
 * (and its WAL) is created readable by its owner only, and a folder created
 * for it is private too. Existing files and folders are left as they are.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createKey } from '../../src/keys/manage.js';
import { resolvePlans } from '../../src/plans.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { tempDir } from '../support/harness.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const mode = (path: string): number => statSync(path).mode & 0o777;

it('creates the store file 0600 and the folders it creates 0700', async () => {
  const path = join(tmp.dir, 'xdg', 'ipintel', 'store.sqlite');
  const store = openSqliteStore(path);
  await createKey(store, { plan: 'free', plans: resolvePlans(), now: 0 });
  expect(mode(path)).toBe(0o600);
  expect(mode(`${path}-wal`)).toBe(0o600);
  expect(mode(join(tmp.dir, 'xdg', 'ipintel'))).toBe(0o700);
  expect(mode(join(tmp.dir, 'xdg'))).toBe(0o700);
  await store.close();
});

it('leaves the mode of an existing folder alone', async () => {
  const dir = join(tmp.dir, 'shared');
  mkdirSync(dir, { mode: 0o755 });
  const store = openSqliteStore(join(dir, 'store.sqlite'));
  expect(mode(dir)).toBe(0o755);
  expect(mode(join(dir, 'store.sqlite'))).toBe(0o600);
  await store.close();
});
