/**
 * Fast JSON for results. Core shares each geo / network / signals / evidence /
 * risk sub-object between all addresses that get the same answer, and freezes
 * it (PRODUCT.md section 3). Serialising such an object once and reusing the
 * text cuts the cost of a response body to the few per-address fields, the
 * largest single cost of a lookup otherwise.
 *
 * Invariant: the output is byte-identical to JSON.stringify(value) (a test
 * checks this); only frozen objects are cached, since they cannot change. The
 * cache is a WeakMap, so a swapped-out snapshot's objects are still collected.
 *
 * @module
 */

const fragments = new WeakMap<object, string>();
const keyText = new Map<string, string>();

function fragment(v: object): string {
  let f = fragments.get(v);
  if (f === undefined) {
    f = JSON.stringify(v);
    fragments.set(v, f);
  }
  return f;
}

function quotedKey(k: string): string {
  let q = keyText.get(k);
  if (q === undefined) {
    q = JSON.stringify(k);
    if (keyText.size < 1000) keyText.set(k, q);
  }
  return q;
}

/**
 * JSON.stringify for a plain result object, reusing the text of its frozen parts.
 *
 * @example
 * resultJson(intel.check('8.8.8.8')) === JSON.stringify(intel.check('8.8.8.8')) // => true
 */
export function resultJson(value: object): string {
  let out = '{';
  let sep = '';
  const rec = value as Record<string, unknown>;
  for (const k of Object.keys(rec)) {
    const v = rec[k];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out += `${sep}${quotedKey(k)}:${v !== null && typeof v === 'object' && Object.isFrozen(v) ? fragment(v) : JSON.stringify(v)}`;
    sep = ',';
  }
  return `${out}}`;
}

/**
 * The start of a parsed JSON value's text: `JSON.stringify(value).slice(0, max)`
 * without serialising (or recursing into) more than that. A value nested
 * thousands deep would overflow the stack in JSON.stringify; here recursion
 * stops once `max` characters are out, so it is at most about `max` deep.
 * For values from JSON.parse (no toJSON, undefined or functions inside).
 *
 * @example
 * jsonPreview([[1, 2], { a: 'b' }], 8) // => '[[1,2],{'
 */
export function jsonPreview(value: unknown, max = 64): string {
  let out = '';
  // Each step says whether there is room for more.
  const emit = (s: string): boolean => {
    out += s;
    return out.length < max;
  };
  const walk = (v: unknown): boolean => {
    if (v === null || typeof v !== 'object') {
      // A long string is cut before quoting: the cut lies past the first `max` characters of the output.
      const text = typeof v === 'string' ? JSON.stringify(v.length > max ? v.slice(0, max) : v) : typeof v === 'number' && !Number.isFinite(v) ? 'null' : String(v);
      return emit(text);
    }
    if (Array.isArray(v)) {
      if (!emit('[')) return false;
      for (let i = 0; i < v.length; i++) if ((i > 0 && !emit(',')) || !walk(v[i])) return false;
      return emit(']');
    }
    if (!emit('{')) return false;
    let first = true;
    for (const k of Object.keys(v)) {
      if ((!first && !emit(',')) || !emit(`${JSON.stringify(k)}:`) || !walk((v as Record<string, unknown>)[k])) return false;
      first = false;
    }
    return emit('}');
  };
  walk(value);
  return out.length > max ? out.slice(0, max) : out;
}
