/**
 * Canonical text forms: dotted decimal for IPv4, RFC 5952 for IPv6 (lower
 * case, no leading zeros, the longest run of two or more zero groups
 * compressed, the first such run on a tie).
 *
 * @module
 */

export function formatIPv4(a: number): string {
  return `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`;
}

/** Formats four 32-bit words (most significant first) as RFC 5952 text. */
export function formatIPv6(w: ArrayLike<number>): string {
  const g: number[] = [];
  for (let k = 0; k < 4; k++) {
    const word = w[k]! >>> 0;
    g.push(word >>> 16, word & 0xffff);
  }
  // 1. Find the longest run of zero groups (length >= 2).
  let bestAt = -1;
  let bestLen = 1;
  for (let k = 0; k < 8; ) {
    if (g[k] !== 0) {
      k++;
      continue;
    }
    let e = k;
    while (e < 8 && g[e] === 0) e++;
    if (e - k > bestLen) {
      bestAt = k;
      bestLen = e - k;
    }
    k = e;
  }
  // 2. Print, replacing that run with `::`.
  if (bestAt < 0) return g.map((x) => x.toString(16)).join(':');
  const head = g.slice(0, bestAt).map((x) => x.toString(16)).join(':');
  const tail = g.slice(bestAt + bestLen).map((x) => x.toString(16)).join(':');
  return `${head}::${tail}`;
}
