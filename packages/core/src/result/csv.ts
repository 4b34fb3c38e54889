/**
 * A result value as a CSV cell: the one rule of every CSV ipintel writes
 * (`ipintel batch --output csv`, `ipintel export --format csv`), shared
 * through `@ipintel/core/internal`.
 *
 * RFC 4180: a cell is quoted when it holds `,`, `"`, CR or LF, with `"`
 * doubled. null/absent is an empty cell and an empty text is `""`, so that
 * loaders that tell them apart (DuckDB, ClickHouse, pandas) read NULL and
 * '' back. Booleans are `true`/`false`, numbers as in JSON, lists
 * (`risk.reasons`) joined with `;`. Cells are not altered to defuse
 * spreadsheet formulas: a leading `-` is a negative longitude.
 *
 * @module
 */

const NEEDS_QUOTES = /[",\r\n]/;

/** A scalar's text: strings as they are, numbers and booleans as in JSON, anything else as JSON. */
function scalar(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v) ?? '';
}

/**
 * One value as a CSV cell.
 *
 * @example
 * csvCell(null) // => ''
 * csvCell('') // => '""'
 * csvCell('Acme, "the" cloud') // => '"Acme, ""the"" cloud"'
 * csvCell(['is_tor', 'is_vpn']) // => 'is_tor;is_vpn'
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return csvCell(value.map((v: unknown) => (v === null || v === undefined ? '' : scalar(v))).join(';'));
  const s = scalar(value);
  if (s === '') return '""';
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}
