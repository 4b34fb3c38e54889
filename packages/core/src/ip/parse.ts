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
 * Each parser reports its own status as one small integer (Go netip's
 * parseAddrError, without the allocation): >= 0 is success, a negative value
 * is the reason for the rejection, a code of {@link REASONS}. parseIPv4
 * returns the address itself (0..2^32-1) or a reason; parseIPv6 returns
 * {@link IPV6_CANONICAL} or 0, or a reason. Nothing is kept in module state
 * and nothing re-derives a reason afterwards: the messages come from the
 * exact point where parsing stopped.
 *
 * @module
 */

import { zeroRunToCompress } from './format.js';

/** Longest valid text form: `ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255`. */
export const MAX_ADDRESS_LENGTH = 45;

/** Longest dotted-decimal IPv4 text (`255.255.255.255`): a longer text is not worth an IPv4 parse on the hot path. */
export const MAX_IPV4_LENGTH = 15;

/**
 * Why a text is not an address: the negative status codes of the parsers,
 * each with its message (`reasonText`). Stable within a version; only the
 * messages are shown to people.
 */
export const R_NOT_STRING = -1;
export const R_EMPTY = -2;
export const R_TOO_LONG = -3;
export const R_WHITESPACE = -4;
export const R_ZONE = -5;
export const R_PREFIX = -6;
export const R_CHARACTER = -7;
export const R_V4_LEADING_ZERO = -8;
export const R_V4_PARTS = -9;
export const R_V6_GROUPS = -10;
export const R_V6_TWO_GAPS = -11;
export const R_V6_GROUP_DIGITS = -12;
export const R_V6_LONE_COLON = -13;
export const R_V6_IPV4_TAIL = -14;

/** Message per reason, indexed by `-code`. */
export const REASONS: readonly string[] = [
  '',
  'expected a string',
  'empty string',
  `longer than ${MAX_ADDRESS_LENGTH} characters`,
  'whitespace is not part of an address',
  '"%" is not part of an address (no zone identifier or percent-encoding)',
  'a prefix, not an address',
  'not an IPv4 dotted-decimal or IPv6 text form',
  'leading zeros in an IPv4 part are ambiguous',
  'IPv4 needs four decimal parts 0-255',
  'IPv6 needs eight groups, or fewer with one "::"',
  'IPv6 allows one "::" only',
  'an IPv6 group has at most four hex digits',
  'a single ":" at the start or end',
  'an embedded IPv4 part must be four decimal parts 0-255 at the end',
];

/** The message of a (negative) status code. */
export function reasonText(code: number): string {
  return REASONS[-code] ?? REASONS[-R_CHARACTER]!;
}

/** The reason for stopping at character code `c`: the characters people paste by mistake get their own. */
function charReason(c: number): number {
  if (c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0xfeff) return R_WHITESPACE;
  if (c === 37) return R_ZONE; // %
  if (c === 47) return R_PREFIX; // /
  return R_CHARACTER;
}

/**
 * The common case of {@link parseIPv4}: a well-formed address read one part
 * at a time (a digit, up to two more, then a dot), or -1 for anything else,
 * which parseIPv4's loop then reads again for its reason. The loop tests
 * each character for a digit, a dot and the part's limits; this reads the
 * parts' digits in their places. Random addresses parsed in 0.68-0.70x the
 * loop's time (docs/design.md, "Fourteenth round"). Both accept exactly the
 * same texts: a property test compares parseIPv4 with parseIPv4Bytes, which
 * is the loop alone.
 */
function dottedQuad(s: string, from: number, to: number): number {
  if (to - from < 7 || to - from > 15) return -1;
  let i = from;
  let addr = 0;
  for (let k = 0; k < 4; k++) {
    if (i >= to) return -1; // a dot last: reading past the end would give NaN (and deoptimise the reader)
    const d0 = s.charCodeAt(i) - 48;
    if (d0 < 0 || d0 > 9) return -1;
    let part = d0;
    let j = i + 1;
    if (j < to) {
      const d1 = s.charCodeAt(j) - 48;
      if (d1 >= 0 && d1 <= 9) {
        if (d0 === 0) return -1; // a leading zero
        part = part * 10 + d1;
        j++;
        if (j < to) {
          const d2 = s.charCodeAt(j) - 48;
          if (d2 >= 0 && d2 <= 9) {
            part = part * 10 + d2;
            if (part > 255) return -1;
            j++;
          }
        }
      }
    }
    addr = addr * 256 + part;
    if (k < 3) {
      if (j >= to || s.charCodeAt(j) !== 46) return -1;
      i = j + 1;
    } else if (j !== to) return -1;
  }
  return addr;
}

/**
 * Parses strict dotted-decimal IPv4 in `s[from, to)`. Returns the address as
 * an unsigned 32-bit number, or a negative reason code ({@link REASONS}).
 * Work is bounded by the first 16 characters whatever the input's length.
 */
export function parseIPv4(s: string, from = 0, to = s.length): number {
  const quad = dottedQuad(s, from, to);
  if (quad >= 0) return quad;
  if (to === from) return R_EMPTY;
  let addr = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      // 1. A leading zero may only stand alone ("0", never "01").
      if (digits === 1 && part === 0) return R_V4_LEADING_ZERO;
      part = part * 10 + (c - 48);
      if (part > 255) return R_V4_PARTS;
      digits++;
    } else if (c === 46) {
      // 2. A dot closes a non-empty part; at most three dots.
      if (digits === 0 || parts === 3) return R_V4_PARTS;
      addr = addr * 256 + part;
      parts++;
      part = 0;
      digits = 0;
    } else {
      return charReason(c);
    }
  }
  if (digits === 0 || parts !== 3) return R_V4_PARTS;
  return addr * 256 + part;
}

/**
 * {@link parseIPv4} over bytes `b[from, to)` (ASCII), for readers of byte
 * streams (the CLI's batch mode parses lines without decoding them). The same
 * policy and the same status codes, checked against the string version by a
 * property test.
 */
export function parseIPv4Bytes(b: Uint8Array, from: number, to: number): number {
  if (to === from) return R_EMPTY;
  let addr = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let i = from; i < to; i++) {
    const c = b[i]!;
    if (c >= 48 && c <= 57) {
      if (digits === 1 && part === 0) return R_V4_LEADING_ZERO;
      part = part * 10 + (c - 48);
      if (part > 255) return R_V4_PARTS;
      digits++;
    } else if (c === 46) {
      if (digits === 0 || parts === 3) return R_V4_PARTS;
      addr = addr * 256 + part;
      parts++;
      part = 0;
      digits = 0;
    } else {
      // Bytes >= 0x80 are parts of a UTF-8 sequence, never an ASCII reason.
      return c < 128 ? charReason(c) : R_CHARACTER;
    }
  }
  if (digits === 0 || parts !== 3) return R_V4_PARTS;
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

/** Scratch for the 16-bit groups of one IPv6 parse (module-level: no per-call allocation; no state survives a call). */
const groups = new Uint16Array(8);

/**
 * Success status bit of {@link parseIPv6}: the text is already its RFC 5952
 * form (lower case, no leading zeros, no dotted tail, `::` exactly on the
 * first longest run of two or more zero groups), so callers can use it as is
 * instead of formatting a new string.
 */
export const IPV6_CANONICAL = 1;

/**
 * Parses an IPv6 text form into `out` (four 32-bit words, most significant
 * first). Returns {@link IPV6_CANONICAL} or 0 on success, else a negative
 * reason code ({@link REASONS}); `out` is then unspecified.
 *
 * Each character is read once (`c` holds the next one): reading a character
 * costs more than anything else done with it here (issue 13: 244 -> 188 ns a
 * parse, docs/design.md, ninth round).
 *
 * @example
 * parseIPv6('2001:db8::1', w) // => 1 (IPV6_CANONICAL)
 * parseIPv6('2001:DB8::1', w) // => 0 (valid, not canonical)
 * reasonText(parseIPv6('1::2::3', w)) // => 'IPv6 allows one "::" only'
 */
export function parseIPv6(s: string, out: Uint32Array): number {
  // Past the end of the text: a "character" no table or test matches (char codes stop at 0xffff).
  // A constant of the function, not of the module: the bundler turns module constants into
  // `var`s, whose value the compiler cannot assume, and `c` compared with one cost ~25 ns a parse.
  const END = 0x10000;
  const n = s.length;
  if (n === 0) return R_EMPTY;
  if (n > MAX_ADDRESS_LENGTH) return R_TOO_LONG;
  let i = 0;
  let g = 0; // groups written
  let gap = -1; // index in `groups` where `::` stands
  let plain = true; // lower case, no leading zeros, no dotted tail so far
  let c = s.charCodeAt(0);
  if (c === 58) {
    // A leading colon is only valid as `::`.
    if (n < 2 || s.charCodeAt(1) !== 58) return R_V6_LONE_COLON;
    gap = 0;
    i = 2;
    c = i < n ? s.charCodeAt(i) : END;
  }
  while (i < n) {
    const start = i;
    let value = 0;
    let digits = 0;
    // Up to five hex digits: a fifth is always an error, read only to tell which (an IPv4 tail's or the group's).
    for (;;) {
      let h = c < 128 ? HEX[c]! : -1;
      if (h < 0) break;
      if (h > 15) {
        plain = false; // an upper-case hex digit
        h -= 16;
      }
      value = (value << 4) | h;
      digits++;
      i++;
      c = i < n ? s.charCodeAt(i) : END;
      if (digits === 5) break;
    }
    if (c === 46) {
      // 1. An embedded IPv4 tail fills the last two groups and ends the text.
      if (g > 6) return R_V6_GROUPS;
      const v4 = parseIPv4(s, start, n);
      if (v4 < 0) return v4 === R_WHITESPACE || v4 === R_ZONE || v4 === R_PREFIX ? v4 : R_V6_IPV4_TAIL;
      groups[g++] = v4 >>> 16;
      groups[g++] = v4 & 0xffff;
      plain = false;
      break;
    }
    if (digits > 4) return R_V6_GROUP_DIGITS;
    if (digits === 0) return c !== END ? charReason(c) : R_V6_LONE_COLON;
    if (digits > 1 && value >>> (4 * digits - 4) === 0) plain = false; // a leading zero
    if (g === 8) return R_V6_GROUPS;
    groups[g++] = value;
    if (c === END) break;
    if (c !== 58) return charReason(c);
    i++;
    if (i === n) return R_V6_LONE_COLON; // a single trailing colon
    c = s.charCodeAt(i);
    if (c === 58) {
      // 2. `::` may appear once.
      if (gap >= 0) return R_V6_TWO_GAPS;
      gap = g;
      i++;
      c = i < n ? s.charCodeAt(i) : END;
    }
  }
  if (gap < 0) {
    if (g !== 8) return R_V6_GROUPS;
  } else {
    if (g > 7) return R_V6_GROUPS; // `::` stands for at least one group
    const tail = g - gap;
    for (let k = 0; k < tail; k++) groups[7 - k] = groups[g - 1 - k]!;
    for (let k = gap; k < 8 - tail; k++) groups[k] = 0;
  }
  out[0] = ((groups[0]! << 16) | groups[1]!) >>> 0;
  out[1] = ((groups[2]! << 16) | groups[3]!) >>> 0;
  out[2] = ((groups[4]! << 16) | groups[5]!) >>> 0;
  out[3] = ((groups[6]! << 16) | groups[7]!) >>> 0;
  if (!plain) return 0;
  // RFC 5952 layout: `::` exactly on the first longest run of two or more zero groups.
  const run = zeroRunToCompress(groups);
  return (gap < 0 ? run < 0 : run === gap * 16 + (8 - g)) ? IPV6_CANONICAL : 0;
}

/** True for `::ffff:0:0/96` (IPv4-mapped IPv6). */
export function isV4Mapped(w: Uint32Array): boolean {
  return w[0] === 0 && w[1] === 0 && w[2] === 0xffff;
}

/**
 * The reason `input` is not an address, from the two parsers' status codes.
 * Which parser speaks is chosen as Go's netip does: by the first `.` or `:`
 * in the text (IPv4 when there is neither). Only on the failure path.
 */
export function rejectionReason(input: unknown, v4: number, v6: number): string {
  if (typeof input !== 'string') return reasonText(R_NOT_STRING);
  if (input.length > MAX_ADDRESS_LENGTH) return reasonText(R_TOO_LONG);
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (c === 46) return reasonText(v4);
    if (c === 58) return reasonText(v6);
  }
  return reasonText(v4);
}
