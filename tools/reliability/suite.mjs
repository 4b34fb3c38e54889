// The suite itself; run.mjs checks that the packages are built, then runs it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { redisAvailable } from '../../packages/testkit/dist/index.js';
import { crashes } from './lib/processes.mjs';
import { snapshots } from './lib/setup.mjs';
import { table, updateReadme } from './lib/table.mjs';
import { addresses } from './phases/addresses.mjs';
import { kill9 } from './phases/kill9.mjs';
import { quota } from './phases/quota.mjs';
import { redisDown, redisStalled } from './phases/redis.mjs';
import { reload } from './phases/reload.mjs';
import { slowClients } from './phases/slow-clients.mjs';
import { hostile } from './phases/hostile.mjs';
import { drain } from './phases/drain.mjs';
import { libraryAndCli } from './phases/cli.mjs';

const PHASES = { addresses, quota, kill9, redisStalled, redisDown, reload, slowClients, hostile, drain, cli: libraryAndCli };

const args = process.argv.slice(2).filter((a) => a !== '--'); // pnpm may pass its '--' on
const quick = args.includes('--quick');
const only = args.find((a) => a.startsWith('--only'))?.split('=')[1] ?? (args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined);
const selected = only === undefined ? Object.keys(PHASES) : only.split(',');
for (const name of selected) if (!Object.hasOwn(PHASES, name)) throw new Error(`unknown phase ${name}; phases: ${Object.keys(PHASES).join(', ')}`);

const work = mkdtempSync(join(tmpdir(), 'ipintel-reliability-'));
const t0 = performance.now();
const ctx = { quick, work, snapshots: await snapshots(work), redis: redisAvailable() };
const rows = [];
let failed = false;
for (const name of selected) {
  process.stderr.write(`reliability: ${name} ...`);
  const crashesBefore = crashes.count;
  const started = performance.now();
  const row = await PHASES[name](ctx);
  row.crashes = crashes.count - crashesBefore;
  rows.push(row);
  const bad = row.failed === true || row.crashes > 0 || (row.lost ?? 0) > 0 || (row.double ?? 0) > 0 || (row.swapFailures ?? 0) > 0 || row.status5xx > 0;
  failed ||= bad;
  process.stderr.write(` ${((performance.now() - started) / 1000).toFixed(1)} s${bad ? ' FAILED' : ''}\n`);
}
const seconds = Math.round((performance.now() - t0) / 1000);
const text = `${table(rows)}\n\n\`pnpm reliability${quick ? ' -- --quick' : ''}\`: ${seconds} s on ${process.platform}, Node ${process.version}${
  crashes.what.length > 0 ? `; crashes: ${crashes.what.join(', ')}` : ''
}.`;
process.stdout.write(`${text}\n`);
if (args.includes('--update-readme')) updateReadme(fileURLToPath(new URL('../../README.md', import.meta.url)), text);
if (failed) process.stderr.write(`reliability: a figure that must be 0 is not; logs in ${work}\n`);
else rmSync(work, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
