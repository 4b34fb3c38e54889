/**
 * Strict address parsing (the hot path of every check).
 *
 * Policy, documented in docs/parsing.md:
 * - IPv4: exactly four decimal parts 0..255; no leading zeros ("01"), no hex,
 *   octal or short forms ("1.2.3"), no surrounding space.
 * - IPv6: every RFC 4291 section 2.2 text form: full, `::`-compressed, and an
 *   embedded dotted IPv4 tail; hex case-insensitive. Zone ids (`%eth0`) are
 *   rejected: a scoped link-local address has no public intelligence.
 * - IPv4-mapped IPv6 (`::ffff:1.2.3.4`, `::ffff:102:304`) is unmapped to IPv4
 *   by the caller ({@link parseAddress}).
 * - Input longer than 45 characters (the longest IPv6 text form) is rejected
 *   before any work.
 *
 * No allocation: IPv6 words go into a caller-supplied scratch Uint32Array(4),
 * most significant word first.
 *
 * @module
 */

import { zeroRunToCompress } from './format.js';

/** Longest valid text form: `ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255`. */
export const MAX_ADDRESS_LENGTH = 45;

/**
 * Parses strict dotted-decimal IPv4 in `s[from, to)`.
 * Returns the address as an unsigned 32-bit number, or -1 when it is not one.
 */
export function parseIPv4(s: string, from = 0, to = s.length): number {
  if (to - from < 7 || to - from > 15) return -1;
  let addr = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      // 1. A leading zero may only stand alone ("0", never "01").
      if (digits === 1 && part === 0) return -1;
      part = part * 10 + (c - 48);
      if (part > 255) return -1;
      digits++;
    } else if (c === 46) {
      // 2. A dot closes a non-empty part; at most three dots.
      if (digits === 0 || parts === 3) return -1;
      addr = addr * 256 + part;
      parts++;
      part = 0;
      digits = 0;
    } else {
      return -1;
    }
  }
  if (digits === 0 || parts !== 3) return -1;
  return addr * 256 + part;
}

/**
 * {@link parseIPv4} over bytes `b[from, to)` (ASCII), for readers of byte
 * streams (the CLI's batch mode parses lines without decoding them). The same
 * policy, checked against the string version by a property test.
 */
export function parseIPv4Bytes(b: Uint8Array, from: number, to: number): number {
  if (to - from < 7 || to - from > 15) return -1;
  let addr = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let i = from; i < to; i++) {
    const c = b[i]!;
    if (c >= 48 && c <= 57) {
      if (digits === 1 && part === 0) return -1;
      part = part * 10 + (c - 48);
      if (part > 255) return -1;
      digits++;
    } else if (c === 46) {
      if (digits === 0 || parts === 3) return -1;
      addr = addr * 256 + part;
      parts++;
      part = 0;
      digits = 0;
    } else {
      return -1;
    }
  }
  if (digits === 0 || parts !== 3) return -1;
  return addr * 256 + part;
}

/**
 * Hex digit value per ASCII code, -1 for anything else; upper-case digits
 * are marked by adding 16 (so one lookup also tells whether the text is
 * lower case, as RFC 5952 output is).
 */
const HEX = /*#__PURE__*/ (() => {
  const t = new Int8Array(128).fill(-1);
  for (let d = 0; d < 10; d++) t[48 + d] = d;
  for (let d = 0; d < 6; d++) {
    t[97 + d] = 10 + d;
    t[65 + d] = 26 + d;
  }
  return t;
})();

/** Scratch for the 16-bit groups of one IPv6 parse (module-level: no per-call allocation). */
const groups = new Uint16Array(8);
/** Whether the last successful parseIPv6 input was already RFC 5952 canonical text. */
let lastCanonical = false;

/**
 * True when the text last accepted by {@link parseIPv6} is already its RFC
 * 5952 form (lower case, no leading zeros, no dotted tail, `::` exactly on the
 * first longest run of two or more zero groups), so callers can use it as is
 * instead of formatting a new string.
 */
export function lastIPv6WasCanonical(): boolean {
  return lastCanonical;
}

/** RFC 5952 check of a parse: `gap` = index of `::` (or -1), `explicit` = groups written out. */
function isCanonicalLayout(gap: number, explicit: number): boolean {
  const run = zeroRunToCompress(groups);
  return gap < 0 ? run < 0 : run === gap * 16 + (8 - explicit);
}
/**
 * Parses an IPv6 text form into `out` (four 32-bit words, most significant first).
 * Returns false when `s` is not one; `out` is then unspecified.
 */
export function parseIPv6(s: string, out: Uint32Array): boolean {
  const n = s.length;
  if (n < 2 || n > MAX_ADDRESS_LENGTH) return false;
  let i = 0;
  let g = 0; // groups written
  let gap = -1; // index in `groups` where `::` stands
  let plain = true; // lower case, no leading zeros, no dotted tail so far
  if (s.charCodeAt(0) === 58) {
    // A leading colon is only valid as `::`.
    if (s.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
  }
  while (i < n) {
    const start = i;
    let value = 0;
    let h = 0;
    while (i < n && i - start < 5) {
      const c = s.charCodeAt(i);
      h = c < 128 ? HEX[c]! : -1;
      if (h < 0) break;
      if (h > 15) {
        plain = false; // an upper-case hex digit
        h -= 16;
      }
      value = (value << 4) | h;
      i++;
    }
    if (i - start > 1 && s.charCodeAt(start) === 48) plain = false; // a leading zero
    if (i < n && s.charCodeAt(i) === 46) {
      // 1. An embedded IPv4 tail fills the last two groups and ends the text.
      if (g > 6) return false;
      const v4 = parseIPv4(s, start, n);
      if (v4 < 0) return false;
      groups[g++] = v4 >>> 16;
      groups[g++] = v4 & 0xffff;
      plain = false;
      i = n;
      break;
    }
    const digits = i - start;
    if (digits === 0 || digits > 4 || g === 8) return false;
    groups[g++] = value;
    if (i === n) break;
    if (s.charCodeAt(i) !== 58) return false;
    i++;
    if (i < n && s.charCodeAt(i) === 58) {
      // 2. `::` may appear once.
      if (gap >= 0) return false;
      gap = g;
      i++;
    } else if (i === n) {
      return false; // a single trailing colon
    }
  }
  if (gap < 0) {
    if (g !== 8) return false;
  } else {
    if (g > 7) return false; // `::` stands for at least one group
    const tail = g - gap;
    for (let k = 0; k < tail; k++) groups[7 - k] = groups[g - 1 - k]!;
    for (let k = gap; k < 8 - tail; k++) groups[k] = 0;
  }
  lastCanonical = plain && isCanonicalLayout(gap, g);
  out[0] = ((groups[0]! << 16) | groups[1]!) >>> 0;
  out[1] = ((groups[2]! << 16) | groups[3]!) >>> 0;
  out[2] = ((groups[4]! << 16) | groups[5]!) >>> 0;
  out[3] = ((groups[6]! << 16) | groups[7]!) >>> 0;
  return true;
}

/** True for `::ffff:0:0/96` (IPv4-mapped IPv6). */
export function isV4Mapped(w: Uint32Array): boolean {
  return w[0] === 0 && w[1] === 0 && w[2] === 0xffff;
}
