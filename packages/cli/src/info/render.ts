/**
 * Text layout of `ipintel info`: aligned tables for people. The JSON form
 * (`--json`) is built by commands/info.ts from the same data.
 *
 * @module
 */
import type { Freshness, SnapshotInfo } from '@ipintel/core';
import { ageText, freshnessLines } from '../freshness.js';
import { table } from '../text-table.js';
import type { Coverage } from './coverage.js';

const num = (n: number): string => n.toLocaleString('en-US', { maximumFractionDigits: n < 10 ? 3 : 0 });
/** IPv6 /64 counts reach 2^64: past a trillion, scientific notation reads better than 20 digits. */
const num6 = (n: number): string => (n >= 1e12 ? n.toExponential(3) : num(n));

export function renderInfo(path: string, bytes: number, info: SnapshotInfo, cov: Coverage | null, covNote: string, fresh: Freshness): string {
  const c = info.counts;
  const out = [
    `Snapshot     ${path} (${num(bytes)} bytes)`,
    `Format       version ${info.format_version}`,
    `Built        ${info.build_date} (${ageText(fresh.snapshot_age_s)} ago)`,
    `Attribution  ${info.attribution_url}`,
    `RPKI         ${info.has_rpki ? 'ROA set included' : 'no ROA set (rpki is "unknown")'}`,
    `Missing      ${info.unavailable.length === 0 ? 'none: every signal has a source' : `no source for ${info.unavailable.join(', ')} (evidence "unavailable")`}`,
    `Index        ${num(c.ipv4_ranges)} IPv4 ranges, ${num(c.ipv6_ranges)} IPv6 ranges, ${num(c.leaves)} leaves`,
    `Records      ${num(c.geo_records)} geo, ${num(c.network_records)} network, ${num(c.signal_sets)} signal sets`,
    '',
    `Sources (${info.sources.length})`,
  ];
  if (info.sources.length === 0) out.push('  (none recorded)');
  else {
    out.push(
      table(
        ['id', 'publisher', 'data date', 'refresh', 'entries', 'licence'],
        info.sources.map((s) => [s.id, s.publisher, s.data_date ?? '-', s.refresh ?? '-', num(s.entries), s.licence]),
        [false, false, false, false, true, false],
      ),
    );
  }
  out.push('', ...freshnessLines(fresh, info.sources.length));
  out.push('', 'Addresses per signal');
  if (cov === null) out.push(`  ${covNote}`);
  else {
    const v4 = 2 ** 32;
    out.push(
      table(
        ['signal', 'IPv4 addresses', '% of IPv4', 'IPv6 /64s'],
        Object.entries(cov.signals).map(([name, s]) => [name, num(s.ipv4_addresses), `${((100 * s.ipv4_addresses) / v4).toFixed(3)}%`, num6(s.ipv6_64s)]),
        [false, true, true, true],
      ),
    );
  }
  return `${out.join('\n')}\n`;
}
