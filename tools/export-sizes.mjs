#!/usr/bin/env node
// Size and time of `ipintel export` on a snapshot (docs/export.md and the README report them):
// each export runs in a fresh process (the built packages: `pnpm build` first), writes into a
// temp folder, and reports the file size, what it holds, wall-clock and CPU time and peak memory.
// Prints a Markdown table; the files are deleted.
//
//   node tools/export-sizes.mjs [--snapshot .cache/world.ipintel] [--quick]
//
// --quick skips the full CSV (every field: several GB, minutes).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machine } from './bench/common.mjs';

const CASES = [
  { format: 'mmdb', label: 'MMDB, every field', options: {} },
  { format: 'mmdb', label: 'MMDB, `--fields geo.country_code,network.asn`', options: { fields: ['geo.country_code', 'network.asn'] } },
  {
    format: 'mmdb',
    label: 'MMDB, `--fields signals,risk --signals is_tor,is_vpn,is_proxy,is_relay`',
    options: { groups: ['signals', 'risk'], signals: ['is_tor', 'is_vpn', 'is_proxy', 'is_relay'] },
  },
  { format: 'csv', label: 'CSV, `--fields geo.country_code,network.asn`', options: { fields: ['geo.country_code', 'network.asn'] } },
  { format: 'csv', label: 'CSV, every field', options: {}, slow: true },
];

const { values: args } = parseArgs({ options: { snapshot: { type: 'string', default: '.cache/world.ipintel' }, quick: { type: 'boolean', default: false }, case: { type: 'string' }, out: { type: 'string' } } });
const root = fileURLToPath(new URL('..', import.meta.url));

if (args.case !== undefined) {
  // Child: one export, in this process, measured.
  const { openSync } = await import(join(root, 'packages/core/dist/index.js'));
  const ex = await import(join(root, 'packages/export/dist/index.js'));
  const c = CASES[Number(args.case)];
  const intel = openSync(resolve(args.snapshot));
  const all = ex.exportableFields(ex.sampleResult(intel)).map((f) => f.name);
  const fields = c.options.groups !== undefined ? all.filter((f) => c.options.groups.some((g) => f.startsWith(`${g}.`))) : c.options.fields;
  const cpu0 = process.cpuUsage();
  const s = ex.exportToFile(intel, c.format, args.out, { ...(fields === undefined ? {} : { fields }), ...(c.options.signals === undefined ? {} : { signals: c.options.signals }) });
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(JSON.stringify({ ...s, cpuMs: (cpu.user + cpu.system) / 1000, maxRssKb: process.resourceUsage().maxRSS }));
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), 'ipintel-export-sizes-'));
const rows = [];
try {
  for (const [i, c] of CASES.entries()) {
    if (c.slow && args.quick) continue;
    const out = join(dir, `out.${c.format}`);
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--case', String(i), '--snapshot', args.snapshot, '--out', out], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (r.status !== 0) throw new Error(`${c.label}: ${r.stderr}`);
    const s = JSON.parse(r.stdout);
    const holds = s.format === 'mmdb' ? `${s.recordSize}-bit records, ${s.nodes.toLocaleString('en-US')} nodes` : `${s.rows.toLocaleString('en-US')} rows`;
    rows.push(`| ${c.label} | ${(s.bytes / 1048576).toFixed(1)} MB | ${holds}, ${s.records.toLocaleString('en-US')} records | ${(s.ms / 1000).toFixed(1)} s | ${(s.cpuMs / 1000).toFixed(1)} s | ${Math.round(s.maxRssKb / 1024)} MB |`);
    rmSync(out, { force: true });
    process.stderr.write(`${rows.at(-1)}\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`Snapshot ${args.snapshot}; ${machine()}; load average ${(await import('node:os')).loadavg()[0].toFixed(1)} at the end.\n`);
console.log('| export | file | holds | wall | CPU | peak memory |');
console.log('|---|---:|---|---:|---:|---:|');
for (const r of rows) console.log(r);
