// The IPv4 index in snapshot format 3's layout (a bucket's block: u16 k, k
// u16 starts, k + 1 u24 leaves), made from any snapshot's ranges
// (`flatRanges`), for the experiments that compare other layouts against it
// (ipv4-layouts.mjs, v4-scan.mjs). Format 4 replaced it (docs/design.md,
// "Thirteenth round"); the experiments keep measuring from the same baseline.

import { flatRanges } from '../../../packages/core/dist/internal.js';

/** `{ dir, blk }`: a 2^`bits` table of Int32 (>= 0 a leaf, else 0x80000000 | block offset) and the blocks. */
export function format3Index(intel, bits = 20) {
  const { starts, leaves } = flatRanges(intel, 4);
  const n = starts.length;
  const size = 2 ** (32 - bits);
  const dir = new Int32Array(2 ** bits);
  const parts = [];
  let bytes = 0;
  let i = 0;
  for (let d = 0; d < dir.length; d++) {
    const base = d * size;
    while (i + 1 < n && starts[i + 1] <= base) i++;
    let j = i + 1;
    while (j < n && starts[j] < base + size) j++;
    const k = j - i - 1;
    if (k === 0) dir[d] = leaves[i];
    else {
      const b = new Uint8Array(5 * k + 5);
      b[0] = k & 255;
      b[1] = k >>> 8;
      for (let q = 1; q <= k; q++) {
        b[2 * q] = (starts[i + q] - base) & 255;
        b[2 * q + 1] = (starts[i + q] - base) >>> 8;
      }
      for (let q = 0; q <= k; q++) {
        const at = 2 + 2 * k + 3 * q;
        b[at] = leaves[i + q] & 255;
        b[at + 1] = (leaves[i + q] >>> 8) & 255;
        b[at + 2] = leaves[i + q] >>> 16;
      }
      dir[d] = (0x80000000 | bytes) | 0;
      parts.push(b);
      bytes += b.length;
    }
    i = j - 1;
  }
  const blk = new Uint8Array(bytes);
  for (let at = 0, p = 0; p < parts.length; at += parts[p++].length) blk.set(parts[p], at);
  return { dir, blk };
}
