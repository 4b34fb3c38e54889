/**
 * The report `ipintel build` prints: per source, entries read, rejected lines
 * grouped by reason (with the first line of each), bytes that were not
 * UTF-8 (how many, and where the first is) and the data date; then
 * the snapshot's ranges, size, build time, and its load time and memory
 * measured in a fresh process, beside the targets of issue #3; then which
 * feeds kept their last good copy, what --save-feeds wrote, and the sources
 * already older than their refresh interval.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { BuildReport, SaveReport } from '@ipintel/builder';
import { renderQuality } from '../info/quality.js';
import { freshness } from '@ipintel/core';
import { freshnessLines } from '../freshness.js';

/** Targets of issue #3, printed beside the measured figures. */
const TARGETS = { fileMB: 40, buildS: 90, loadMs: 300, rssMB: 150 };

/** What measureLoad measures: the load (the IPv6 index waits for its first use), then the first IPv6 check (which decodes it). */
export interface LoadMeasure {
  readonly loadMs: number;
  readonly rssMB: number;
  readonly first6Ms: number;
  readonly rss6MB: number;
}

/** Loads the snapshot in a fresh process: load time and RSS after load, then after the first IPv6 check, as a user would see them; null if it fails. */
export function measureLoad(path: string): LoadMeasure | null {
  const core = pathToFileURL(createRequire(import.meta.url).resolve('@ipintel/core')).href;
  const script = `import { openSync } from ${JSON.stringify(core)};
const rss = () => process.memoryUsage().rss / 1048576;
const t0 = performance.now(); const intel = openSync(${JSON.stringify(path)}); const ms = performance.now() - t0;
intel.check('8.8.8.8');
const rssMB = rss();
const t1 = performance.now(); intel.check('2001:4860:4860::8888'); const first6Ms = performance.now() - t1;
process.stdout.write(JSON.stringify({ loadMs: ms, rssMB, first6Ms, rss6MB: rss() }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  return JSON.parse(r.stdout) as LoadMeasure;
}

/** The summary as text lines (`load` is measureLoad's answer; staleness is judged at `now`). */
export function buildSummary(report: BuildReport, load: LoadMeasure | null, now = Date.now()): string {
  const out: string[] = ['', 'source                              status     entries  rejected  data date'];
  for (const r of report.reports) {
    const date = r.source?.data_date ?? '-';
    out.push(`${r.id.padEnd(35)} ${r.status.padEnd(9)} ${String(r.source?.entries ?? '-').padStart(8)}  ${String(r.rejected.length).padStart(8)}  ${date}`);
    // Reasons grouped (quoted values folded), with the first line of each.
    const byReason = new Map<string, { n: number; line: number }>();
    for (const d of r.rejected) {
      const key = d.message.replace(/"[^"]*"/g, '"…"');
      const e = byReason.get(key);
      if (e) e.n++;
      else byReason.set(key, { n: 1, line: d.line });
    }
    for (const [msg, e] of byReason) out.push(`    ${e.n} x ${msg} (first at line ${e.line})`);
    if (r.invalidUtf8 !== undefined) {
      const { count, line, offset } = r.invalidUtf8;
      out.push(`    not UTF-8: ${count} invalid byte sequence${count === 1 ? '' : 's'} read as U+FFFD (first at line ${line}, byte ${offset})`);
    }
    if (r.failure !== undefined) out.push(`    the fresh copy failed (${r.failure.code}): ${r.failure.message}; its last good copy was used`);
  }
  const kept = report.reports.filter((r) => r.status === 'kept');
  if (kept.length > 0) {
    out.push('', `kept       ${kept.length} feed(s) failed and kept their last good copy (older data date above): ${kept.map((r) => r.id).join(', ')}`);
  }
  if (report.saved !== undefined) out.push(...savedLines(report.saved));
  const mb = report.bytes / 1048576;
  out.push(
    '',
    `snapshot   ${report.out}`,
    `ranges     ${report.ranges.v4} IPv4, ${report.ranges.v6} IPv6; ${report.stats.combinations} distinct answers`,
    `file       ${mb.toFixed(1)} MB (target <= ${TARGETS.fileMB} MB)`,
    report.explain === null
      ? 'explain    not written (--no-explain)'
      : `explain    ${report.explain.path}: ${(report.explain.bytes / 1048576).toFixed(1)} MB; with the snapshot ${((report.bytes + report.explain.bytes) / 1048576).toFixed(1)} MB`,
    `build      ${(report.ms / 1000).toFixed(1)} s (target < ${TARGETS.buildS} s)`,
  );
  if (load !== null) {
    out.push(
      `load       ${load.loadMs.toFixed(0)} ms (target < ${TARGETS.loadMs} ms); the first IPv6 check decodes the IPv6 index: +${load.first6Ms.toFixed(0)} ms`,
      `rss        ${load.rssMB.toFixed(0)} MB after load (target < ${TARGETS.rssMB} MB), ${load.rss6MB.toFixed(0)} MB after the first IPv6 check`,
    );
  }
  const orgs = new Map(report.quality.labels.isp.top.map((a) => [a.asn, a.org]));
  for (const l of Object.values(report.quality.labels)) for (const a of l.top) orgs.set(a.asn, a.org);
  out.push('', renderQuality(report.quality, report.conflicts, (asn) => orgs.get(asn) ?? '').trimEnd());
  out.push('', ...freshnessLines(freshness({ build_date: report.buildDate, sources: report.sources }, now), report.sources.length));
  return `${out.join('\n')}\n`;
}

/** What --save-feeds wrote, and what it did not (a folder with a manifest carries only its listed files). */
function savedLines(saved: SaveReport): string[] {
  const out = [`saved      ${saved.written.length} file(s) to ${saved.dir}${saved.manifest && saved.written.length > 0 ? ' (sources.json and SOURCES.md updated)' : ''}`];
  if (saved.skipped.length > 0) {
    out.push(`           not written (${saved.skipped.length}): ${saved.skipped.map((x) => `${x.id} (${x.reason})`).join('; ')}`);
  }
  return out;
}
