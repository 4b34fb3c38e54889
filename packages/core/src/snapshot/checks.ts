/**
 * The loops of the load-time checks (decode.ts): small functions, one
 * element type each. Why so: a snapshot is checked once per load, so these
 * loops start cold. V8 optimises a running loop in place (on-stack
 * replacement) from the type feedback gathered so far; one big function
 * holding many loops gets compiled before its later loops have run, then
 * throws that code away when it reaches them, and runs them in the
 * interpreter meanwhile. A function per loop shape, each with one element
 * type, is optimised once and stays optimised: the checks of a world
 * snapshot ran several times faster this way (docs/design.md).
 *
 * @module
 */
import { leafGeo, leafPair } from './format.js';

/** Index of the first element >= limit that is not `skip`, or -1. */
export function firstAbove32(a: Uint32Array, limit: number, skip: number): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    if (x >= limit && x !== skip) return i;
  }
  return -1;
}

/** Index of the first element >= limit that is not `skip`, or -1. */
export function firstAbove16(a: Uint16Array, limit: number, skip: number): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    if (x >= limit && x !== skip) return i;
  }
  return -1;
}

/** Index of the first element >= limit, or -1. */
export function firstAbove8(a: Uint8Array, limit: number): number {
  for (let i = 0; i < a.length; i++) if (a[i]! >= limit) return i;
  return -1;
}

/** Index of the first 24-bit little-endian id (3 bytes each) >= limit, or -1. */
export function firstAbove24(b: Uint8Array, limit: number): number {
  for (let j = 0; j + 2 < b.length; j += 3) if ((b[j]! | (b[j + 1]! << 8) | (b[j + 2]! << 16)) >= limit) return j / 3;
  return -1;
}

/** Index of the first element smaller than the one before it, or -1. */
export function firstDecrease32(a: Uint32Array): number {
  for (let i = 1; i < a.length; i++) if (a[i]! < a[i - 1]!) return i;
  return -1;
}

/** Index of the first leaf whose geo row or network/signal pair is out of range, or -1 (layout in format.ts). */
export function firstBadLeaf(ids: Uint16Array, geoRows: number, pairs: number): number {
  const n = (ids.length / 3) | 0;
  for (let i = 0; i < n; i++) if (leafGeo(ids, i) >= geoRows || leafPair(ids, i) >= pairs) return i;
  return -1;
}

/** Index of the first IPv6 group that is empty or whose word does not increase, or -1. */
export function firstBadGroup(w0: Uint32Array, groups: Uint32Array): number {
  for (let g = 0; g < w0.length; g++) {
    if ((g > 0 && w0[g]! <= w0[g - 1]!) || groups[g + 1]! <= groups[g]!) return g;
  }
  return -1;
}

/** Index of the first IPv6 main range whose second word does not increase within its group, or -1 (groups already checked). */
export function firstBadStart(groups: Uint32Array, w1: Uint32Array): number {
  for (let g = 0; g + 1 < groups.length; g++) {
    const end = Math.min(groups[g + 1]!, w1.length);
    for (let i = groups[g]! + 1; i < end; i++) if (w1[i]! <= w1[i - 1]!) return i;
  }
  return -1;
}

/** Index of the first IPv6 main-table leaf that is neither a leaf below `leaves` nor a sub-table below `subs`, or -1. */
export function firstBadLeaf6(leaf6: Uint8Array, leaves: number, subBit: number, subs: number): number {
  for (let j = 0; j + 2 < leaf6.length; j += 3) {
    const l = leaf6[j]! | (leaf6[j + 1]! << 8) | (leaf6[j + 2]! << 16);
    if (l >= leaves && (l < subBit || l - subBit >= subs)) return j / 3;
  }
  return -1;
}

/** Index of the first sub-table that is empty, does not start at its block, or whose starts do not increase, or -1. */
export function firstBadSubTable(sub: Uint32Array, subW: Uint32Array): number {
  for (let k = 0; k + 1 < sub.length; k++) {
    const from = sub[k]!;
    const to = sub[k + 1]!;
    if (to <= from || subW[2 * from] !== 0 || subW[2 * from + 1] !== 0) return k;
    for (let j = from + 1; j < to; j++) {
      const a = subW[2 * j]!;
      const p = subW[2 * j - 2]!;
      if (a < p || (a === p && subW[2 * j + 1]! <= subW[2 * j - 1]!)) return k;
    }
  }
  return -1;
}
