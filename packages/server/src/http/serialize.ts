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
