/**
 * 128-bit IPv6 addresses as four 32-bit words, most significant first: the
 * arithmetic the sidecar's decode (decode.ts) and its address lookups
 * (table-lookup.ts) share.
 *
 * @module
 */

/**
 * IPv6 addresses of a table as four 32-bit words each, most significant
 * first (entry i at 4i): numbers, where bigints cost most of a sidecar's
 * decode and its garbage.
 */
export type Words6 = Uint32Array;

/**
 * out[o..o+3] = a[ai..ai+3] + d (a null: 0 + d), four words most significant
 * first; true when the sum does not fit in 128 bits.
 */
export function addWords(out: Uint32Array, o: number, a: Uint32Array | null, ai: number, d: Uint32Array): boolean {
  let carry = 0;
  for (let k = 3; k >= 0; k--) {
    const sum = (a === null ? 0 : a[ai + k]!) + d[k]! + carry;
    out[o + k] = sum >>> 0;
    carry = sum > 0xffffffff ? 1 : 0;
  }
  return carry !== 0;
}

/** Sign of a[ai..] - b[bi..] as 128-bit numbers. */
export function compareWords(a: Uint32Array, ai: number, b: Uint32Array, bi: number): number {
  for (let k = 0; k < 4; k++) {
    const x = a[ai + k]!;
    const y = b[bi + k]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** The mask of the bits of word k (0 most significant) that a /len prefix keeps. */
export function netMask(len: number, k: number): number {
  const keep = Math.min(32, Math.max(0, len - 32 * k));
  return keep === 0 ? 0 : keep === 32 ? 0xffffffff : (0xffffffff << (32 - keep)) >>> 0;
}

/** Whether the bits of w[o..o+3] after the first `len` are all zero. */
export function hostBitsClear(w: Uint32Array, o: number, len: number): boolean {
  for (let k = 0; k < 4; k++) if ((w[o + k]! & ~netMask(len, k)) !== 0) return false;
  return true;
}
