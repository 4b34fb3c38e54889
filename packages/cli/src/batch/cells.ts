/**
 * Encoding one value as a CSV cell or a JSON value. Off the hot path: these
 * run once per distinct sub-object (see rows.ts), not once per row.
 *
 * CSV cells follow the rule of every CSV ipintel writes (core's csvCell:
 * RFC 4180 quoting, null an empty cell, '' as `""`, lists joined with `;`).
 *
 * @module
 */

/** A value as a CSV cell: core's rule, shared with `ipintel export` (null empty, '' as `""`). */
export { csvCell } from '@ipintel/core/internal';

/** A value as JSON text; absent becomes null, so every flat row has every selected key. */
export function jsonValue(value: unknown): string {
  return value === undefined ? 'null' : JSON.stringify(value);
}
