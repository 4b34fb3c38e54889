/**
 * Fields a request may carry once and whose value is one item, not a list
 * (RFC 9110, 5.5: a singleton field), read so that a second one is refused
 * instead of ignored. Content-Type is the one the API reads: node:http keeps
 * the first of two lines, a Fetch runtime joins them with ", " (and the
 * Fetch standard's MIME extraction then takes the last), so a proxy, a
 * filter and this server could each read a different type from one request.
 * The request is ambiguous, not of a type the server does not take: it is
 * refused as malformed (400 malformed_request), not as 415, whose
 * `Accept-Post` would tell a client that believes it sent JSON to send JSON.
 *
 * @module
 */
import { fieldLines, mayBeList } from './field-lines.js';
import { ProblemError } from './problem.js';
import type { ApiRequest } from './types.js';

/**
 * The value of the singleton field `name` (lower case; `shown` as named in the detail), or
 * undefined when absent. Throws 400 malformed_request, closing the connection (as for node's
 * other malformed requests), when the request carries it more than once: two lines (in
 * `rawHeaders`, or an array in `headers`), or one value listing items (a comma outside quoted
 * strings: what a runtime makes of two lines, or a client sent so; field-lines.ts mayBeList).
 * Only for fields whose grammar has no such comma (Content-Type does not; Date does).
 *
 * A Fetch runtime shows only its joined value: two lines whose quotes pair up across the
 * join (`a; x="` and `b"`) pass as one value, since they are one to every later reader too.
 */
export function singleField(req: ApiRequest, name: string, shown: string): string | undefined {
  const v = req.headers[name];
  if (v === undefined) return undefined;
  const value = typeof v === 'string' ? v : v[0];
  if (repeatedField(req, name) || (value !== undefined && mayBeList(value))) {
    throw new ProblemError('malformed_request', `the request carries more than one ${shown} (two header lines, or one listing several); send exactly one`, { connection: 'close' });
  }
  return value;
}

/**
 * Whether the request carries the field `name` (lower case) on more than one line: two lines in
 * the adapter's `rawHeaders` (node keeps only the first in `headers`), or an array in `headers`.
 * A Fetch runtime shows neither: it joins the lines into one value.
 */
export function repeatedField(req: ApiRequest, name: string): boolean {
  const v = req.headers[name];
  if (v === undefined) return false;
  return typeof v === 'string' ? req.rawHeaders !== undefined && fieldLines(req.rawHeaders, name, 2) > 1 : v.length > 1;
}
