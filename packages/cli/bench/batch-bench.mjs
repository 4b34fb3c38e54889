#!/usr/bin/env node
/**
 * Throughput of `ipintel batch` (the built dist) on 1,000,000 random public
 * IPv4 addresses, to /dev/null, in NDJSON and CSV with --jobs 1 and 2.
 * Prints a Markdown table of IPs/s (wall time of the whole process: start,
 * snapshot load, read, check, serialise, write) with CPU and Node version.
 *
 * Usage: node packages/cli/bench/batch-bench.mjs [SNAPSHOT] [--lines N] [--runs R] [--jobs 1,2] [--outputs ndjson,csv]
 *   SNAPSHOT defaults to $IPINTEL_SNAPSHOT. $IPINTEL_CLI overrides the CLI script
 *   (default: ../dist/main.js beside this file; build it with `cd packages/cli && npx tsup`).
 * The input is generated with a seeded PRNG (same file every run) and kept in the temp dir.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from '../../../tools/bench/common.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const lines = Number(opt('lines', '1000000'));
const runs = Number(opt('runs', '3'));
const jobsList = opt('jobs', '1,2').split(',').map(Number);
const outputs = opt('outputs', 'ndjson,csv').split(',');
const snapshot = args[0] ?? process.env.IPINTEL_SNAPSHOT;
if (snapshot === undefined || !existsSync(snapshot)) {
  console.error('usage: batch-bench.mjs SNAPSHOT (or set IPINTEL_SNAPSHOT) [--lines N] [--runs R]');
  process.exit(2);
}
const cli = resolve(process.env.IPINTEL_CLI ?? fileURLToPath(new URL('../dist/main.js', import.meta.url)));
if (!existsSync(cli)) {
  console.error(`no CLI at ${cli}: run "npx tsup" in packages/cli first (or set IPINTEL_CLI)`);
  process.exit(2);
}

/** Not public: 0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.0.0/24, 192.0.2/24, 192.168/16, 198.18/15, 198.51.100/24, 203.0.113/24, 224/3. */
function isPublic(x) {
  const a = x >>> 24;
  const b = (x >>> 16) & 255;
  const c = (x >>> 8) & 255;
  if (a === 0 || a === 10 || a === 127 || a >= 224) return false;
  if (a === 100 && b >= 64 && b < 128) return false;
  if (a === 169 && b === 254) return false;
  if (a === 172 && b >= 16 && b < 32) return false;
  if (a === 192 && ((b === 0 && (c === 0 || c === 2)) || b === 168)) return false;
  if (a === 198 && (b === 18 || b === 19 || (b === 51 && c === 100))) return false;
  if (a === 203 && b === 0 && c === 113) return false;
  return true;
}

const input = join(tmpdir(), `ipintel-batch-bench-${lines}.txt`);
if (!existsSync(input)) {
  const next = mulberry32(20240601);
  const out = [];
  while (out.length < lines) {
    const x = next();
    if (isPublic(x)) out.push(`${x >>> 24}.${(x >>> 16) & 255}.${(x >>> 8) & 255}.${x & 255}`);
  }
  writeFileSync(input, `${out.join('\n')}\n`);
}

function time(output, jobs) {
  const devnull = openSync('/dev/null', 'w');
  try {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [cli, 'batch', input, '--output', output, '--jobs', String(jobs), '--snapshot', snapshot], {
      stdio: ['ignore', devnull, 'pipe'],
    });
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.status !== 0) throw new Error(`ipintel batch exited ${r.status}: ${r.stderr}`);
    return secs;
  } finally {
    closeSync(devnull);
  }
}

console.log(`ipintel batch: ${lines.toLocaleString('en-US')} random public IPv4 lines -> /dev/null, best of ${runs}`);
console.log(`snapshot: ${snapshot} (${statSync(snapshot).size.toLocaleString('en-US')} bytes)`);
console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} x ${cpus().length}\n`);
console.log('| output | jobs | best time (s) | IPs/s |');
console.log('|---|---:|---:|---:|');
let csv2 = null;
for (const output of outputs) {
  for (const jobs of jobsList) {
    let best = Infinity;
    for (let i = 0; i < runs; i++) best = Math.min(best, time(output, jobs));
    if (output === 'csv' && jobs === 2) csv2 = lines / best;
    console.log(`| ${output} | ${jobs} | ${best.toFixed(3)} | ${Math.round(lines / best).toLocaleString('en-US')} |`);
  }
}
if (csv2 !== null) console.log(`\nTarget: csv, 2 jobs >= 1,000,000 IPs/s (${csv2 >= 1e6 ? 'met' : '**missed**'}; wall-clock time of the whole process, load included).`);
