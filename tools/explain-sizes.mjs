#!/usr/bin/env node
// Size and load time of the explain sidecar (README "Explain", docs/snapshot-format.md): for each
// snapshot, the main file, its `.explain` sidecar and the two together against the 40 MB file target
// (MB = 2^20 bytes, as `ipintel build` prints), then in a fresh process each (best of 3): the time
// and memory the first `check(ip, { explain: true })` of an IPv4 address adds (reading, inflating and
// indexing the sidecar, but for its IPv6 sections), then what the first explained IPv6 check adds
// (the sidecar's IPv6 sections and the snapshot's IPv6 index, both read on first use), and the time
// of a later explained check. Uses the built packages (`pnpm build` first).
//
//   node tools/explain-sizes.mjs [SNAPSHOT...]   (default: .cache/world.ipintel packages/data/world.ipintel)
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const paths = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['.cache/world.ipintel', 'packages/data/world.ipintel'];
const core = pathToFileURL(resolve(root, 'packages/core/dist/index.js')).href;
const TARGET_MB = 40;
const mb = (b) => b / 1048576;

/** One fresh process: open, one plain check, then the first and a later explained check. */
function measure(path) {
  const script = `import { openSync } from ${JSON.stringify(core)};
const intel = openSync(${JSON.stringify(path)});
intel.check('8.8.8.8');
const rss0 = process.memoryUsage().rss;
let t = performance.now(); intel.check('185.220.101.1', { explain: true }); const first = performance.now() - t;
const rss1 = process.memoryUsage().rss;
t = performance.now(); intel.check('2001:4860:4860::8888', { explain: true }); const first6 = performance.now() - t;
const rss2 = process.memoryUsage().rss;
t = performance.now(); for (let i = 0; i < 100; i++) intel.check('1.1.1.1', { explain: true }); const later = (performance.now() - t) / 100;
process.stdout.write(JSON.stringify({ first, first6, later, rssMB: (rss1 - rss0) / 1048576, rss6MB: (rss2 - rss1) / 1048576 }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

console.log('| snapshot | main file | sidecar | together | fits 40 MB | first explain, IPv4 (load) | memory added | then first IPv6 explain | memory added | later explain |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const p of paths) {
  const path = resolve(p);
  if (!existsSync(path) || !existsSync(`${path}.explain`)) {
    console.error(`skipping ${p}: no snapshot or no ${p}.explain`);
    continue;
  }
  const main = statSync(path).size;
  const side = statSync(`${path}.explain`).size;
  const runs = [measure(path), measure(path), measure(path)].sort((a, b) => a.first - b.first);
  const best = runs[0];
  const total = mb(main + side);
  console.log(
    `| \`${p}\` | ${mb(main).toFixed(1)} MB | ${mb(side).toFixed(1)} MB | ${total.toFixed(1)} MB | ${total <= TARGET_MB ? 'yes' : 'no'} | ${best.first.toFixed(0)} ms | ${best.rssMB.toFixed(0)} MB | ${best.first6.toFixed(0)} ms | ${best.rss6MB.toFixed(0)} MB | ${best.later.toFixed(2)} ms |`,
  );
}
