/**
 * Numbers as feeds write them: unsigned decimals and AS numbers.
 *
 * @module
 */

/** Highest AS number (32-bit ASNs, RFC 6793). */
export const MAX_ASN = 0xffffffff;

/** Parses an unsigned decimal without sign, spaces or leading zeros; -1 when it is not one (or above `max`). */
export function parseUint(text: string, max: number): number {
  const n = text.length;
  if (n === 0 || n > 10 || (n > 1 && text.charCodeAt(0) === 48)) return -1;
  let v = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v > max ? -1 : v;
}

/** `AS13335` -> 13335 (strict: upper-case `AS`, no leading zeros); -1 when not that form. */
export function parseAsText(text: string): number {
  if (text.length < 3 || text.charCodeAt(0) !== 65 || text.charCodeAt(1) !== 83) return -1;
  return parseUint(text.slice(2), MAX_ASN);
}

/** `AS123` / `as123` / `123`, spaces around allowed -> 123; null when not an ASN in 1..2^32-1. */
export function parseAsn(text: string): number | null {
  const m = /^(?:AS)?(\d{1,10})$/i.exec(text.trim());
  if (!m) return null;
  const n = Number(m[1]);
  return n >= 1 && n <= MAX_ASN ? n : null;
}

/**
 * A plain decimal as CSV coordinates are written (`-33.8688`, `45`): an
 * optional minus, digits, an optional fraction; null for anything else that
 * `Number()` would still take (`0x1F`, `1e1`, ` 12 `, `+5`, `.5`, `Infinity`).
 */
export function parseDecimal(text: string): number | null {
  return /^-?\d{1,20}(?:\.\d{1,20})?$/.test(text) ? Number(text) : null;
}
