/**
 * What surrounds an address in the CLI's input, and is not part of it: the
 * one rule `check` (arguments) and `batch` (lines) share, so both agree on
 * what is an address.
 *
 * Trimmed: ASCII space, horizontal tab and carriage return (the CR of CRLF
 * files), at both ends. Nothing else: NUL, ESC, VT, FF, a no-break space or
 * a byte-order mark are characters core's parser rejects, so a line or an
 * argument padded with them is not an address (an error row / exit 1).
 * Batch also drops one UTF-8 byte-order mark at the very start of its input:
 * it marks the file's encoding, it is not part of the first line.
 *
 * @module
 */

/** True for the character (or byte) codes trimmed around an address. */
export function isPadding(c: number): boolean {
  return c === 32 || c === 9 || c === 13;
}

/**
 * The text with padding trimmed from both ends.
 *
 * @example
 * trimAddress(' 8.8.8.8\r') // => '8.8.8.8'
 * trimAddress('\0' + '8.8.8.8') // => '\0' + '8.8.8.8' (not padding: check() rejects it)
 */
export function trimAddress(text: string): string {
  let s = 0;
  let e = text.length;
  while (s < e && isPadding(text.charCodeAt(s))) s++;
  while (e > s && isPadding(text.charCodeAt(e - 1))) e--;
  return s === 0 && e === text.length ? text : text.slice(s, e);
}
