#!/usr/bin/env node
// Experiment (issue 13, nineteenth round): what one counting commit costs
// the SQLite store when nothing else runs between commits (hot caches), as a
// floor for what the server pays per group of counts (~62 us of CPU a group
// measured inside a loaded server). The transaction is the store's for one
// account without a rate limit: BEGIN IMMEDIATE, read the counter, write
// it, COMMIT (WAL, synchronous=NORMAL, as store/sqlite.ts opens the file).
// Each setting runs on a new file in a temporary folder; the second of two
// passes is printed (the first warms up). Not part of `pnpm bench`;
// docs/design.md ("Nineteenth round") quotes it.
//
//   node tools/bench/experiments/sqlite-commit.mjs [--commits 30000]
//
// Settings: as shipped; locking_mode=EXCLUSIVE (one process may use the file:
// the CLI's key commands could not write to a running server's store, so an
// upper bound, not an option); page_size=1024 (a new file's WAL frames are
// 1 KB instead of 4 KB).
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const requireS = createRequire(new URL('../../../packages/server/package.json', import.meta.url));
const Database = requireS('better-sqlite3');
const { values } = parseArgs({ options: { commits: { type: 'string', default: '30000' } } });
const commits = Number(values.commits);

const settings = [
  ['as shipped', []],
  ['locking_mode=EXCLUSIVE', ['locking_mode = EXCLUSIVE']],
  ['page_size=1024', ['page_size = 1024']],
];

for (let pass = 0; pass < 2; pass++) {
  for (const [name, pragmas] of settings) {
    const dir = mkdtempSync(join(tmpdir(), 'ipintel-commit-'));
    const db = new Database(join(dir, 'store.sqlite'));
    // page_size must be set before the file gets its first page (WAL mode writes it).
    for (const p of pragmas.filter((p) => p.startsWith('page_size'))) db.pragma(p);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    for (const p of pragmas.filter((p) => !p.startsWith('page_size'))) db.pragma(p);
    db.exec('CREATE TABLE usage (account TEXT NOT NULL, period TEXT NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (account, period)) WITHOUT ROWID');
    const read = db.prepare('SELECT used FROM usage WHERE account = ? AND period = ?');
    const write = db.prepare('INSERT INTO usage (account, period, used) VALUES (?, ?, ?) ON CONFLICT (account, period) DO UPDATE SET used = excluded.used');
    const count = db.transaction((n) => {
      const used = read.get('acct', 'm2026-12')?.used ?? 0;
      write.run('acct', 'm2026-12', used + n);
    });
    const c0 = process.cpuUsage();
    for (let i = 0; i < commits; i++) count.immediate(7);
    const c = process.cpuUsage(c0);
    if (read.get('acct', 'm2026-12').used !== 7 * commits) throw new Error(`${name}: the counter is wrong`);
    db.close();
    rmSync(dir, { recursive: true, force: true });
    if (pass === 1) console.log(`${name.padEnd(24)} ${((c.user + c.system) / commits).toFixed(1)} us of CPU a commit (${(c.system / commits).toFixed(1)} in the kernel)`);
  }
}
