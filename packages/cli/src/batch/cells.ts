/**
 * Encoding one value as a CSV cell or a JSON value. Off the hot path: these
 * run once per distinct sub-object (see rows.ts), not once per row.
 *
 * CSV follows RFC 4180: a cell is quoted when it holds `,`, `"`, CR or LF,
 * with `"` doubled. null/absent is an empty cell, booleans are `true`/`false`,
 * arrays (`risk.reasons`) are joined with `;`. Cells are not altered to
 * defuse spreadsheet formulas: a leading `-` is a negative longitude.
 *
 * @module
 */

const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return csvCell(value.map((v) => (v === null || v === undefined ? '' : String(v))).join(';'));
  const s = typeof value === 'string' ? value : String(value);
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** A value as JSON text; absent becomes null, so every flat row has every selected key. */
export function jsonValue(value: unknown): string {
  return value === undefined ? 'null' : JSON.stringify(value);
}
