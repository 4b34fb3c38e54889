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

/** The cached text of a frozen object; undefined for anything else. */
function frozenText(v: unknown): string | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const f = fragments.get(v);
  if (f !== undefined) return f;
  return Object.isFrozen(v) ? fragment(v) : undefined;
}

function quotedKey(k: string): string {
  let q = keyText.get(k);
  if (q === undefined) {
    q = JSON.stringify(k);
    if (keyText.size < 1000) keyText.set(k, q);
  }
  return q;
}

/** The own keys of a native check() result, in core's order (the fast path's template). */
const NATIVE_KEYS = ['ip', 'version', 'geo', 'network', 'signals', 'evidence', 'risk', 'attribution'] as const;

/**
 * The text of a native result (exactly the NATIVE_KEYS, in that order, with
 * frozen parts) as one template; undefined for any other object. The general
 * loop costs ~1.5 us per result, this ~0.8 us (docs/design.md, "Server,
 * fourth round"): no per-key type tests, key quoting or separators.
 */
function nativeJson(rec: Record<string, unknown>): string | undefined {
  const keys = Object.keys(rec);
  if (keys.length !== NATIVE_KEYS.length) return undefined;
  for (let i = 0; i < NATIVE_KEYS.length; i++) if (keys[i] !== NATIVE_KEYS[i]) return undefined;
  const { ip, version, attribution } = rec;
  if (typeof ip !== 'string' || typeof version !== 'number' || typeof attribution !== 'string') return undefined;
  const geo = frozenText(rec['geo']);
  const network = frozenText(rec['network']);
  const signals = frozenText(rec['signals']);
  const evidence = frozenText(rec['evidence']);
  const risk = frozenText(rec['risk']);
  if (geo === undefined || network === undefined || signals === undefined || evidence === undefined || risk === undefined) return undefined;
  return `{"ip":${JSON.stringify(ip)},"version":${JSON.stringify(version)},"geo":${geo},"network":${network},"signals":${signals},"evidence":${evidence},"risk":${risk},"attribution":${JSON.stringify(attribution)}}`;
}

/**
 * JSON.stringify for a plain result object, reusing the text of its frozen parts.
 *
 * @example
 * resultJson(intel.check('8.8.8.8')) === JSON.stringify(intel.check('8.8.8.8')) // => true
 */
export function resultJson(value: object): string {
  const rec = value as Record<string, unknown>;
  const native = nativeJson(rec);
  if (native !== undefined) return native;
  let out = '{';
  let sep = '';
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
