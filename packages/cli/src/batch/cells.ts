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

/** A scalar's text: strings as they are, numbers and booleans as in JSON, anything else as JSON. */
function scalar(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v) ?? '';
}

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return csvCell(value.map((v: unknown) => (v === null || v === undefined ? '' : scalar(v))).join(';'));
  const s = scalar(value);
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** A value as JSON text; absent becomes null, so every flat row has every selected key. */
export function jsonValue(value: unknown): string {
  return value === undefined ? 'null' : JSON.stringify(value);
}
