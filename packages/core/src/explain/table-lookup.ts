/**
 * Which entry of a decoded sidecar table (decode.ts) holds an address: the
 * longest prefix of a role, the interval of the ASN table or a geo span, and
 * an entry's bounds. Apart from decode.ts, which builds and checks the tables.
 *
 * @module
 */
import { bigIntToWords, wordsToBigInt } from '../ip/address.js';
import type { IntervalTable, PrefixTable } from './decode.js';
import { compareWords, netMask, type Words6 } from './words6.js';

/** Index of the longest prefix of `t` holding `addr`, or -1. */
export function longestMatch(t: PrefixTable, version: 4 | 6, addr: bigint): number {
  if (version === 6) return t.lengths6 === null ? -1 : longestMatch6(t.keys as Words6, t.lengths6, t.lengths, addr);
  if (!(t.keys instanceof Float64Array)) return -1;
  for (const len of t.lengths) {
    const shift = BigInt(32 - len);
    const key = ((addr >> shift) << shift) * 256n + BigInt(len);
    const i = search(t.keys, Number(key));
    if (i >= 0) return i;
  }
  return -1;
}

/** longestMatch over IPv6 words: for each length present, longest first, the prefix of that length holding `addr`. */
function longestMatch6(starts: Words6, lengths6: Uint8Array, lengths: readonly number[], addr: bigint): number {
  const want = new Uint32Array(4);
  const a = bigIntToWords(addr);
  for (const len of lengths) {
    for (let k = 0; k < 4; k++) want[k] = (a[k]! & netMask(len, k)) >>> 0;
    let lo = 0;
    let hi = lengths6.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareWords(starts, 4 * mid, want, 0) || lengths6[mid]! - len;
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
  }
  return -1;
}

function search(keys: Float64Array, key: number): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const k = keys[mid]!;
    if (k === key) return mid;
    if (k < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Index of the interval holding `addr`, or -1. */
export function intervalAt(t: IntervalTable, addr: bigint): number {
  if (!(t.firsts instanceof Float64Array)) return intervalAt6(t.firsts, t.lasts as Words6, bigIntToWords(addr));
  const x = Number(addr);
  const lasts = t.lasts as Float64Array;
  let lo = 0;
  let hi = t.firsts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (t.firsts[mid]! > x) hi = mid - 1;
    else if (lasts[mid]! < x) lo = mid + 1;
    else return mid;
  }
  return -1;
}

function intervalAt6(firsts: Words6, lasts: Words6, a: Uint32Array): number {
  let lo = 0;
  let hi = firsts.length / 4 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (compareWords(firsts, 4 * mid, a, 0) > 0) hi = mid - 1;
    else if (compareWords(lasts, 4 * mid, a, 0) < 0) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/** Interval j's first and last address. */
export function intervalBounds(t: IntervalTable, j: number): [bigint, bigint] {
  if (t.firsts instanceof Float64Array) return [BigInt(t.firsts[j]!), BigInt((t.lasts as Float64Array)[j]!)];
  return [wordsToBigInt(t.firsts, 4 * j), wordsToBigInt(t.lasts, 4 * j)];
}

/** Prefix i of `t`: its start and length. */
export function prefixAt(t: PrefixTable, i: number): { start: bigint; length: number } {
  if (t.lengths6 !== null) return { start: wordsToBigInt(t.keys, 4 * i), length: t.lengths6[i]! };
  const key = (t.keys as Float64Array)[i]!;
  return { start: BigInt(Math.floor(key / 256)), length: key % 256 };
}
