#!/usr/bin/env node
// Builds a snapshot with the builder's buildSnapshot() (`ipintel build` prints
// the full per-source report).
//
//   node tools/default-snapshot.mjs                 the default snapshot: the vendored feeds (data/feeds)
//                                                   -> the @ipintel/data package (packages/data/world.ipintel)
//   node tools/default-snapshot.mjs --feeds DIR --out PATH   any feed folder to any file (the team's full
//                                                   collection: `pnpm world`)
//   --force                                         rebuild even when its inputs are unchanged
//
// Up to date means: the bytes of every input (the lockfile, the builder's and
// core's builds, the feeds, SOURCE_DATE_EPOCH) digest to what OUT.inputs
// recorded when OUT was built. A build is deterministic (its date is the
// newest source date), so the same inputs give the same file. Modification
// times said nothing here: `pnpm build` rewrites both dist folders every
// time, so every `pnpm test` and `pnpm start` rebuilt the snapshot (~2 min).
//
// The data package carries only the vendored feeds (their terms allow it), so
// it is built from data/feeds and nothing else. Geo and ASN come from the npm
// data packages either way.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { buildSnapshot, describeInvalidUtf8 } from '../packages/builder/dist/index.js';
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
/** SHA-256 over every input file's path and bytes (a folder: the files below it, in name order). */
function inputsDigest(paths) {
  const hash = createHash('sha256');
  const add = (p) => {
    if (statSync(p).isDirectory()) {
      for (const name of readdirSync(p).sort()) add(resolve(p, name));
      return;
    }
    hash.update(`${relative(root, p)}\0`);
    hash.update(readFileSync(p));
    hash.update('\0');
  };
  for (const p of paths) add(p);
  hash.update(`SOURCE_DATE_EPOCH=${process.env.SOURCE_DATE_EPOCH ?? ''}`);
  return hash.digest('hex');
}
// core's build too: its writer lays out the file (a new snapshot format needs a new build).
const inputs = [resolve(root, 'pnpm-lock.yaml'), resolve(root, 'packages/builder/dist'), resolve(root, 'packages/core/dist'), feeds];
const stamp = `${out}.inputs`;
const digest = inputsDigest(inputs);
if (!args.force && existsSync(out) && existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === digest) {
  console.error(`snapshot is up to date: ${out} (its inputs are unchanged; --force rebuilds)`);
  process.exit(0);
}
console.error(`building ${out} from ${feeds}`);
// No stamp while the file is being written: a build that fails part-way must not leave it up to date.
rmSync(stamp, { force: true });
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
  // A copy that was not all UTF-8 (names kept with U+FFFD) is worth a line here too: this build's summary is all most runs show.
  for (const r of report.reports) if (r.invalidUtf8 !== undefined) console.error(`  ${r.id}: ${describeInvalidUtf8(r.invalidUtf8)}`);
  if (out === DATA_SNAPSHOT) prepareDataPackage(await buildDateOf(out));
  writeFileSync(stamp, `${digest}\n`);
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
