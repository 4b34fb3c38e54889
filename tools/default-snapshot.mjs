#!/usr/bin/env node
// Builds the default snapshot (where `open()` with no argument looks:
// $IPINTEL_SNAPSHOT, else packages/core/data/default.ipintel) from the npm
// data packages (DB-IP City Lite, ip-location-db ASN) plus every feed in
// ../shared/feeds when that folder is there (it is beside the repo on the
// project's machines and in CI). Skips the build when the snapshot is newer
// than its inputs; `--force` rebuilds. Calls the builder's buildSnapshot()
// directly (`ipintel build` prints the full per-source report).
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { buildSnapshot } from '../packages/builder/dist/index.js';
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
if (!existsSync(feeds)) console.error(`no feeds folder at ${feeds}: the default snapshot holds geo, ASN and the built-in bogon table only`);
console.error(`building the default snapshot: ${out}`);
const tty = process.stderr.isTTY === true;
try {
  const report = await buildSnapshot({
    out,
    ...(existsSync(feeds) ? { feeds } : {}),
    ...(tty ? { progress: (m) => process.stderr.write(`\r\x1b[K${m}`) } : {}),
  });
  if (tty) process.stderr.write('\r\x1b[K');
  const used = report.reports.filter((r) => r.status === 'used');
  const rejected = report.reports.reduce((n, r) => n + r.rejected.length, 0);
  console.error(
    `built ${out}: ${(report.bytes / 1048576).toFixed(1)} MB, ${report.ranges.v4} IPv4 + ${report.ranges.v6} IPv6 ranges, ` +
      `${used.length} sources used, ${rejected} lines rejected, ${(report.ms / 1000).toFixed(1)} s (details: pnpm ipintel build --feeds ${feeds})`,
  );
} catch (e) {
  if (tty) process.stderr.write('\r\x1b[K');
  console.error(`default snapshot build failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
