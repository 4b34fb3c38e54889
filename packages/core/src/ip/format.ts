/**
 * Canonical text forms: dotted decimal for IPv4, RFC 5952 for IPv6 (lower
 * case, no leading zeros, the longest run of two or more zero groups
 * compressed, the first such run on a tie). On the hot path of IPv6 checks,
 * so no arrays: one pass to find the run, one to print.
 *
 * @module
 */

export function formatIPv4(a: number): string {
  return `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`;
}

function group(w: ArrayLike<number>, k: number): number {
  const word = w[k >>> 1]! >>> 0;
  return k & 1 ? word & 0xffff : word >>> 16;
}

/** Formats four 32-bit words (most significant first) as RFC 5952 text. */
export function formatIPv6(w: ArrayLike<number>): string {
  // 1. The longest run of zero groups (length >= 2; the first on a tie).
  let bestAt = -1;
  let bestLen = 1;
  let runAt = -1;
  for (let k = 0; k <= 8; k++) {
    if (k < 8 && group(w, k) === 0) {
      if (runAt < 0) runAt = k;
    } else if (runAt >= 0) {
      if (k - runAt > bestLen) {
        bestAt = runAt;
        bestLen = k - runAt;
      }
      runAt = -1;
    }
  }
  // 2. Print, replacing that run with `::`.
  let out = '';
  for (let k = 0; k < 8; k++) {
    if (k === bestAt) {
      out += '::';
      k += bestLen - 1;
      continue;
    }
    if (out !== '' && !out.endsWith(':')) out += ':';
    out += group(w, k).toString(16);
  }
  return out;
}
