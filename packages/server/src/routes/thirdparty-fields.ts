/**
 * The paths of the /thirdparty alias, and its single-field answers: which
 * address and which field a path asks for, and a field's value in a result of
 * the thirdparty layout (core's toThirdParty). Pure functions, shared by the
 * GET routes (thirdparty.ts) and the batch route (thirdparty-batch.ts), so a
 * field answers the same on both.
 *
 * Paths, after `/thirdparty`: `` or `/json` (the caller, whole), `/{field}`
 * (the caller, one field), `/{ip}` or `/{ip}/json` (whole), `/{ip}/{field}`,
 * and `privacy/{key}` as a field. No field name is an IP address, so
 * `/{field}` and `/{ip}` cannot be confused.
 *
 * @module
 */
import type { ThirdPartyResult } from '@ipintel/core';

/** Top-level fields of the layout that take a single-field route, in the layout's order. */
export const THIRDPARTY_FIELDS = ['ip', 'city', 'region', 'country', 'loc', 'org', 'timezone', 'bogon', 'anycast', 'privacy'] as const;
/** Keys of `privacy`, each also a field as `privacy/{key}`. */
export const PRIVACY_KEYS = ['vpn', 'proxy', 'tor', 'relay', 'hosting', 'service'] as const;

/** Every field a path may name: the top-level ones and `privacy/{key}`. */
export const FIELD_NAMES: readonly string[] = [...THIRDPARTY_FIELDS, ...PRIVACY_KEYS.map((k) => `privacy/${k}`)];
const FIELD_SET = new Set(FIELD_NAMES);

/** Fields answered `false` when the layout omits them (they appear only when true). */
const FLAGS = new Set(['bogon', 'anycast']);

/** What a path under /thirdparty asks for: an address (undefined = the caller's) and a field (undefined = the whole result). */
export interface ThirdpartyTarget {
  readonly ip: string | undefined;
  readonly field: string | undefined;
}

/** The segments of `rest` (a path with its leading `/`, or ''), split on `/`. */
const segmentsOf = (rest: string): string[] => (rest === '' ? [] : rest.slice(1).split('/'));

/**
 * What `rest` (the path after `/thirdparty`, e.g. `/8.8.8.8/country`) asks for, or
 * undefined when it is no route of the alias (an unknown field, too many segments).
 * The address is returned as written (still percent-encoded); it is not validated here.
 *
 * @example
 * parseThirdpartyPath('/8.8.8.8/country') // => { ip: '8.8.8.8', field: 'country' }
 * parseThirdpartyPath('/country')         // => { ip: undefined, field: 'country' }
 * parseThirdpartyPath('/8.8.8.8/hostname') // => undefined
 */
export function parseThirdpartyPath(rest: string): ThirdpartyTarget | undefined {
  if (rest !== '' && !rest.startsWith('/')) return undefined;
  const segs = segmentsOf(rest);
  // `/thirdparty/` (a trailing slash) is the caller too, as it always was.
  if (segs.length === 0 || (segs.length === 1 && (segs[0] === 'json' || segs[0] === ''))) return { ip: undefined, field: undefined };
  const [first = '', ...more] = segs;
  if (FIELD_SET.has(segs.join('/'))) return { ip: undefined, field: segs.join('/') };
  if (first === '' || first === 'batch') return undefined;
  if (more.length === 0 || (more.length === 1 && more[0] === 'json')) return { ip: first, field: undefined };
  const field = more.join('/');
  return FIELD_SET.has(field) ? { ip: first, field } : undefined;
}

/** Why `rest` is no route of the alias (for the 404's detail), or undefined when it is one. */
export function unknownFieldDetail(rest: string): string | undefined {
  if (parseThirdpartyPath(rest) !== undefined) return undefined;
  const field = segmentsOf(rest).slice(1).join('/');
  const shown = field.length > 64 ? `${field.slice(0, 64)}…` : field;
  return `no such field ${JSON.stringify(shown)} on /thirdparty/{ip}/{field}; fields: ${FIELD_NAMES.join(', ')}`;
}

/** A field's value: a string, a boolean, or (for `privacy`) the privacy object; `''` for a string field the data lacks. */
export type FieldValue = string | boolean | ThirdPartyResult['privacy'];

/**
 * The value of one field (a name from FIELD_NAMES) in a thirdparty result. A string
 * field the layout omits (no data) is `''`, as the provider answers it; `bogon` and
 * `anycast`, omitted when false, are `false`.
 *
 * @example
 * fieldValue({ ip: '10.0.0.1', bogon: true, privacy }, 'country') // => ''
 * fieldValue({ ip: '10.0.0.1', bogon: true, privacy }, 'bogon')   // => true
 */
export function fieldValue(result: ThirdPartyResult, field: string): FieldValue {
  if (field.startsWith('privacy/')) return result.privacy[field.slice('privacy/'.length) as (typeof PRIVACY_KEYS)[number]];
  const v = (result as unknown as Record<string, FieldValue | undefined>)[field];
  if (v !== undefined) return v;
  return FLAGS.has(field) ? false : '';
}

/** The plain-text answer of a single-field GET: the value and a newline (an object as JSON). */
export function fieldText(value: FieldValue): string {
  return `${typeof value === 'object' ? JSON.stringify(value) : String(value)}\n`;
}
