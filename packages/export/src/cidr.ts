/**
 * Splitting an address range into the fewest CIDR blocks that cover it
 * exactly, on addresses held as big-endian 32-bit words (1 word for IPv4,
 * 4 for IPv6), so that millions of ranges split without BigInt arithmetic.
 *
 * Greedy rule: at the range's first address a, the block is the largest
 * one that starts at a (a is a multiple of its size) and ends at or before
 * the range's last address; then a moves past it.
 *
 * @module
 */

/** Number of trailing zero bits of the w-word value (32·w for zero). */
function trailingZeros(a: Uint32Array, w: number): number {
  for (let k = w - 1; k >= 0; k--) {
    const x = a[k]!;
    if (x !== 0) return 32 * (w - 1 - k) + (31 - Math.clz32(x & -x));
  }
  return 32 * w;
}

/** out = b - a (b >= a), word by word with borrow. */
function subtract(b: Uint32Array, a: Uint32Array, w: number, out: Uint32Array): void {
  let borrow = 0;
  for (let k = w - 1; k >= 0; k--) {
    const d = b[k]! - a[k]! - borrow;
    borrow = d < 0 ? 1 : 0;
    out[k] = d >>> 0;
  }
}

/** x += 2^bit; returns true on overflow past the top of the space. */
function addPower(x: Uint32Array, w: number, bit: number): boolean {
  let k = w - 1 - (bit >>> 5);
  let add = 2 ** (bit & 31);
  while (k >= 0) {
    const s = x[k]! + add;
    x[k] = s >>> 0;
    if (s < 4294967296) return false;
    add = 1;
    k--;
  }
  return true;
}

/** floor(log2(d + 1)) for a w-word d: the size exponent of the largest block that fits d + 1 addresses. */
function fitExponent(d: Uint32Array, w: number): number {
  // d + 1 = 2^(32w) when d is all ones.
  let allOnes = true;
  for (let k = 0; k < w; k++) if (d[k] !== 0xffffffff) allOnes = false;
  if (allOnes) return 32 * w;
  const e = d.slice(0, w);
  addPower(e, w, 0);
  for (let k = 0; k < w; k++) if (e[k] !== 0) return 32 * (w - 1 - k) + (31 - Math.clz32(e[k]!));
  return 0;
}

/**
 * Calls `emit(start, length)` for each CIDR block of [first, last]
 * (inclusive, w words each), in address order. `start` is a scratch view:
 * copy it if it must outlive the call.
 *
 * @example
 * // 10.0.0.1 - 10.0.0.6 -> 10.0.0.1/32, 10.0.0.2/31, 10.0.0.4/31, 10.0.0.6/32
 */
export function forEachCidr(first: Uint32Array, last: Uint32Array, w: number, emit: (start: Uint32Array, length: number) => void): void {
  const bits = 32 * w;
  const a = first.slice(0, w);
  const d = new Uint32Array(w);
  for (;;) {
    subtract(last, a, w, d);
    const size = Math.min(trailingZeros(a, w), fitExponent(d, w));
    emit(a, bits - size);
    if (size === bits || addPower(a, w, size)) return;
    // Past the end: a > last once the block reached it.
    let after = false;
    for (let k = 0; k < w; k++) {
      if (a[k] !== last[k]) {
        after = a[k]! > last[k]!;
        break;
      }
    }
    if (after) return;
  }
}
