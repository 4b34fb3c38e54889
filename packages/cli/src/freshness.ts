/**
 * Freshness lines for people, shared by `ipintel info` and the build
 * summary: the snapshot's age and the sources older than their refresh
 * interval, judged at the present moment (core's freshness(); the rule is in
 * docs/snapshot-format.md).
 *
 * @module
 */
import type { Freshness } from '@ipintel/core';
import { table } from './text-table.js';

/** `42 s`, `17 min`, `5 h`, `93 days`. */
export function ageText(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} days`;
}

/**
 * The freshness block: a headline, one row per stale source (id, data date,
 * refresh interval, age), and the sources that cannot be judged.
 */
export function freshnessLines(f: Freshness, sourceCount: number): string[] {
  const judged = sourceCount - f.unjudged.length;
  const out = [
    `Freshness    at ${f.at}: snapshot ${ageText(f.snapshot_age_s)} old; ${f.stale.length} of ${judged} dated source(s) older than their refresh interval`,
  ];
  if (f.stale.length > 0) {
    out.push(table(['stale source', 'data date', 'refresh', 'age'], f.stale.map((s) => [s.id, s.data_date, s.refresh, `${s.age_days} days`]), [false, false, false, true]));
  }
  if (f.unjudged.length > 0) out.push(`  not judged (no data date, or no refresh interval in this snapshot): ${f.unjudged.join(', ')}`);
  return out;
}
