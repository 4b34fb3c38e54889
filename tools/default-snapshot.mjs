#!/usr/bin/env node
// Builds the default snapshot (where `open()` with no argument looks:
// $IPINTEL_SNAPSHOT, else packages/core/data/default.ipintel) from the npm
// data packages (DB-IP City Lite, ip-location-db ASN) plus every feed in
// ../shared/feeds when that folder is there (it is beside the repo on the
// project's machines and in CI). Skips the build when the snapshot is newer
// than its inputs; `--force` rebuilds.
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { buildCommand } from '../packages/builder/dist/index.js';
import { defaultSnapshotPath } from '../packages/core/dist/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const feeds = process.env.IPINTEL_FEEDS ?? join(root, '..', 'shared', 'feeds');
const out = defaultSnapshotPath();
const force = process.argv.includes('--force');
const inputs = [join(root, 'pnpm-lock.yaml'), join(root, 'packages/builder/dist/index.js'), ...(existsSync(feeds) ? [feeds] : [])];
if (!force && existsSync(out) && inputs.every((p) => statSync(p).mtimeMs < statSync(out).mtimeMs)) {
  console.error(`default snapshot is up to date: ${out} (--force rebuilds)`);
  process.exit(0);
}
const args = ['--out', out];
if (existsSync(feeds)) args.push('--feeds', feeds);
else console.error(`no feeds folder at ${feeds}: the default snapshot holds geo, ASN and the built-in bogon table only`);
console.error(`building the default snapshot: ${out}`);
process.exit(await buildCommand(args, { stdout: process.stderr, stderr: process.stderr }));
