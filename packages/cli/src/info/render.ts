/**
 * Text layout of `ipintel info`: aligned tables for people. The JSON form
 * (`--json`) is built by commands/info.ts from the same data.
 *
 * @module
 */
import type { SnapshotInfo } from '@ipintel/core';
import type { Coverage } from './coverage.js';

const num = (n: number): string => n.toLocaleString('en-US', { maximumFractionDigits: n < 10 ? 3 : 0 });
/** IPv6 /64 counts reach 2^64: past a trillion, scientific notation reads better than 20 digits. */
const num6 = (n: number): string => (n >= 1e12 ? n.toExponential(3) : num(n));

/** Left-aligned text columns, right-aligned number columns. */
export function table(head: readonly string[], rows: readonly (readonly string[])[], numeric: readonly boolean[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]): string =>
    `  ${r.map((c, i) => (numeric[i] === true ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ')}`.trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

export function renderInfo(path: string, bytes: number, info: SnapshotInfo, cov: Coverage | null, covNote: string): string {
  const c = info.counts;
  const out = [
    `Snapshot     ${path} (${num(bytes)} bytes)`,
    `Format       version ${info.format_version}`,
    `Built        ${info.build_date}`,
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
        ['id', 'publisher', 'data date', 'entries', 'licence'],
        info.sources.map((s) => [s.id, s.publisher, s.data_date ?? '-', num(s.entries), s.licence]),
        [false, false, false, true, false],
      ),
    );
  }
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
