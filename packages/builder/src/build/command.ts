/**
 * `ipintel build`: flags, a progress line on a TTY, and the summary per
 * source (entries read, rejected lines with reasons, data date) plus the
 * size, build time, load time and memory of the result against the targets.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { defaultSnapshotPath } from '@ipintel/core';
import { buildSnapshot, type BuildReport } from './build.js';

interface Io {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

const HELP = `Usage: ipintel build [--feeds DIR | --fetch [--mirror URL]] [--out PATH]

Compiles public feeds into a snapshot. Geo and ASN always come from the npm
data packages (DB-IP City Lite, ip-location-db ASN); every other signal from
the feeds found in DIR (laid out like shared/feeds) or downloaded.

Options:
  --feeds DIR            build offline from DIR
  --fetch                download every feed from its official URL
  --mirror URL           with --fetch: download <URL>/<feed path> instead
  --timeout SECONDS      with --fetch: per-feed timeout (default 60)
  --out PATH             output file (default: the default snapshot, ${defaultSnapshotPath()})
  --build-date ISO       build date to record (default SOURCE_DATE_EPOCH, else the newest source date)
  --attribution-url URL  link carried in every result's "attribution"
  --quiet                no progress, no summary
  -h, --help             this help

Example:
  ipintel build --feeds ../shared/feeds --out data/world.ipintel
`;

/** Targets of issue #3, printed beside the measured figures. */
const TARGETS = { fileMB: 40, buildS: 90, loadMs: 300, rssMB: 150 };

/** Loads the snapshot in a fresh process: load time and RSS after load, as a user would see them. */
export function measureLoad(path: string): { loadMs: number; rssMB: number } | null {
  const core = pathToFileURL(createRequire(import.meta.url).resolve('@ipintel/core')).href;
  const script = `import { openSync } from ${JSON.stringify(core)};
const t0 = performance.now(); const intel = openSync(${JSON.stringify(path)}); const ms = performance.now() - t0;
intel.check('8.8.8.8');
process.stdout.write(JSON.stringify({ loadMs: ms, rssMB: process.memoryUsage().rss / 1048576 }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  return JSON.parse(r.stdout) as { loadMs: number; rssMB: number };
}

function summarise(report: BuildReport, io: Io): void {
  const w = (s: string): void => void io.stdout.write(`${s}\n`);
  w('');
  w('source                              status     entries  rejected  data date');
  for (const r of report.reports) {
    const date = r.source?.data_date ?? '-';
    w(`${r.id.padEnd(35)} ${r.status.padEnd(9)} ${String(r.source?.entries ?? '-').padStart(8)}  ${String(r.rejected.length).padStart(8)}  ${date}`);
    // Reasons grouped, with the first line of each.
    const byReason = new Map<string, { n: number; line: number }>();
    for (const d of r.rejected) {
      const key = d.message.replace(/"[^"]*"/g, '"…"');
      const e = byReason.get(key);
      if (e) e.n++;
      else byReason.set(key, { n: 1, line: d.line });
    }
    for (const [msg, e] of byReason) w(`    ${e.n} x ${msg} (first at line ${e.line})`);
  }
  const load = measureLoad(report.out);
  const mb = report.bytes / 1048576;
  w('');
  w(`snapshot   ${report.out}`);
  w(`ranges     ${report.ranges.v4} IPv4, ${report.ranges.v6} IPv6; ${report.stats.combinations} distinct answers`);
  w(`file       ${mb.toFixed(1)} MB (target <= ${TARGETS.fileMB} MB)`);
  w(`build      ${(report.ms / 1000).toFixed(1)} s (target < ${TARGETS.buildS} s)`);
  if (load) {
    w(`load       ${load.loadMs.toFixed(0)} ms (target < ${TARGETS.loadMs} ms)`);
    w(`rss        ${load.rssMB.toFixed(0)} MB after load (target < ${TARGETS.rssMB} MB)`);
  }
}

/** Runs `ipintel build`; returns the exit code. */
export async function buildCommand(argv: string[], io: Io): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        feeds: { type: 'string' },
        fetch: { type: 'boolean' },
        mirror: { type: 'string' },
        timeout: { type: 'string' },
        out: { type: 'string' },
        'build-date': { type: 'string' },
        'attribution-url': { type: 'string' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (e) {
    io.stderr.write(`ipintel build: ${(e as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (args.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (args.feeds !== undefined && args.fetch) {
    io.stderr.write('ipintel build: choose one of --feeds and --fetch\n');
    return 2;
  }
  if ((args.mirror !== undefined || args.timeout !== undefined) && !args.fetch) {
    io.stderr.write('ipintel build: --mirror and --timeout go with --fetch\n');
    return 2;
  }
  const timeout = args.timeout === undefined ? undefined : Number(args.timeout);
  if (timeout !== undefined && !(timeout > 0)) {
    io.stderr.write(`ipintel build: --timeout must be a positive number of seconds\n`);
    return 2;
  }
  const tty = (io.stderr as NodeJS.WriteStream).isTTY === true && !args.quiet;
  try {
    const report = await buildSnapshot({
      out: resolve(args.out ?? defaultSnapshotPath()),
      ...(args.feeds !== undefined ? { feeds: resolve(args.feeds) } : {}),
      ...(args.fetch ? { fetch: { ...(args.mirror !== undefined ? { mirror: args.mirror } : {}), ...(timeout !== undefined ? { timeoutMs: timeout * 1000 } : {}) } } : {}),
      ...(args['build-date'] !== undefined ? { buildDate: new Date(args['build-date']).toISOString() } : {}),
      ...(args['attribution-url'] !== undefined ? { attributionUrl: args['attribution-url'] } : {}),
      progress: tty ? (m) => void io.stderr.write(`\r\x1b[K${m}`) : () => {},
    });
    if (tty) io.stderr.write('\r\x1b[K');
    if (!args.quiet) summarise(report, io);
    return 0;
  } catch (e) {
    if (tty) io.stderr.write('\r\x1b[K');
    io.stderr.write(`ipintel build failed: ${(e as Error).message}\n`);
    return 1;
  }
}
