/**
 * Aligned text tables for people (`ipintel info`, the freshness lines).
 *
 * @module
 */

/** Left-aligned text columns, right-aligned number columns, two spaces apart, indented by two. */
export function table(head: readonly string[], rows: readonly (readonly string[])[], numeric: readonly boolean[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]): string =>
    `  ${r.map((c, i) => (numeric[i] === true ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ')}`.trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}
