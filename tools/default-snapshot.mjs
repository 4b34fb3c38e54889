#!/usr/bin/env node
// Builds a snapshot with the builder's buildSnapshot() (`ipintel build` prints
// the full per-source report).
//
//   node tools/default-snapshot.mjs                 the default snapshot: the vendored feeds (data/feeds)
//                                                   -> the @ipintel/data package (packages/data/world.ipintel)
//   node tools/default-snapshot.mjs --feeds DIR --out PATH   any feed folder to any file (the team's full
//                                                   collection: `pnpm world`)
//   --force                                         rebuild even when the output is newer than its inputs
//
// The data package carries only the vendored feeds (their terms allow it), so
// it is built from data/feeds and nothing else. Geo and ASN come from the npm
// data packages either way.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { buildSnapshot } from '../packages/builder/dist/index.js';
import { DATA_SNAPSHOT, VENDORED_FEEDS, prepareDataPackage } from './data-package.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({ options: { feeds: { type: 'string' }, out: { type: 'string' }, force: { type: 'boolean', default: false } } });
const feeds = resolve(args.feeds ?? VENDORED_FEEDS);
const out = resolve(args.out ?? DATA_SNAPSHOT);
if (out === DATA_SNAPSHOT && feeds !== VENDORED_FEEDS) {
  console.error(`the data package carries only the vendored feeds (${VENDORED_FEEDS}): give --out for a build from ${feeds}`);
  process.exit(2);
}
if (!existsSync(feeds)) {
  console.error(`no feeds folder at ${feeds}`);
  process.exit(2);
}
/** Newest modification time of a file or of any file below a folder. */
const newest = (p) => (statSync(p).isDirectory() ? Math.max(0, ...readdirSync(p).map((n) => newest(resolve(p, n)))) : statSync(p).mtimeMs);
// core's build too: its writer lays out the file (a new snapshot format needs a new build).
const inputs = [resolve(root, 'pnpm-lock.yaml'), resolve(root, 'packages/builder/dist/index.js'), resolve(root, 'packages/core/dist'), feeds];
if (!args.force && existsSync(out) && inputs.every((p) => newest(p) < statSync(out).mtimeMs)) {
  console.error(`snapshot is up to date: ${out} (--force rebuilds)`);
  process.exit(0);
}
console.error(`building ${out} from ${feeds}`);
const tty = process.stderr.isTTY === true;
try {
  const report = await buildSnapshot({ out, feeds, ...(tty ? { progress: (m) => process.stderr.write(`\r\x1b[K${m}`) } : {}) });
  if (tty) process.stderr.write('\r\x1b[K');
  const used = report.reports.filter((r) => r.status === 'used');
  const rejected = report.reports.reduce((n, r) => n + r.rejected.length, 0);
  console.error(
    `built ${out}: ${(report.bytes / 1048576).toFixed(1)} MB, ${report.ranges.v4} IPv4 + ${report.ranges.v6} IPv6 ranges, ` +
      `${used.length} sources used, ${rejected} lines rejected, ${(report.ms / 1000).toFixed(1)} s (details: npx ipintel build --feeds ${feeds} --out ${out})`,
  );
  if (out === DATA_SNAPSHOT) prepareDataPackage(await buildDateOf(out));
} catch (e) {
  if (tty) process.stderr.write('\r\x1b[K');
  console.error(`snapshot build failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}

async function buildDateOf(path) {
  const { readFileSync } = await import('node:fs');
  const { readSnapshotMeta } = await import('../packages/core/dist/writer.js');
  return readSnapshotMeta(new Uint8Array(readFileSync(path))).build_date;
}
