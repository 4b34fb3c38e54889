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

/**
 * The run RFC 5952 compresses to `::`: the first longest run of two or more
 * zero groups, packed as `start * 16 + length` (no allocation on the hot
 * path), or -1 when there is none. Shared by the formatter and the parser's
 * canonical-input check.
 */
export function zeroRunToCompress(g: ArrayLike<number>): number {
  let bestAt = -1;
  let bestLen = 1;
  let runAt = -1;
  for (let k = 0; k <= 8; k++) {
    if (k < 8 && g[k] === 0) {
      if (runAt < 0) runAt = k;
    } else if (runAt >= 0) {
      if (k - runAt > bestLen) {
        bestAt = runAt;
        bestLen = k - runAt;
      }
      runAt = -1;
    }
  }
  return bestAt < 0 ? -1 : bestAt * 16 + bestLen;
}

/** Scratch for the eight 16-bit groups of one formatting. */
const groups = new Uint16Array(8);

/** Formats four 32-bit words (most significant first) as RFC 5952 text. */
export function formatIPv6(w: ArrayLike<number>): string {
  for (let k = 0; k < 8; k++) {
    const word = w[k >>> 1]! >>> 0;
    groups[k] = k & 1 ? word & 0xffff : word >>> 16;
  }
  const run = zeroRunToCompress(groups);
  const bestAt = run < 0 ? -1 : run >>> 4;
  const bestLen = run & 15;
  let out = '';
  for (let k = 0; k < 8; k++) {
    if (k === bestAt) {
      out += '::';
      k += bestLen - 1;
      continue;
    }
    if (out !== '' && !out.endsWith(':')) out += ':';
    out += groups[k]!.toString(16);
  }
  return out;
}
