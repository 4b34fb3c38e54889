/**
 * Decoding a feed's bytes as UTF-8 and finding where they are not UTF-8.
 *
 * Every text feed is UTF-8 (JSON must be, RFC 8259; the lists and CSVs are
 * ASCII or UTF-8 as published), yet a damaged download, or a file saved in
 * another encoding (an AS name in ISO-8859-1, a VPN list saved by hand),
 * holds bytes that are not. TextDecoder reads each invalid sequence as
 * U+FFFD and says nothing, so a name turned to `Soci\uFFFDt\uFFFD` or an address
 * line rejected for a character nobody wrote would go unexplained.
 * `decodeUtf8` gives the text exactly as before, plus where the bytes were
 * not UTF-8: how many invalid sequences, and the line and byte offset of
 * the first.
 *
 * Speed: the world build decodes ~160 MB of feed text (3.7 million lines).
 * A fatal decoder over the whole buffer validates as it decodes, at the
 * lenient decoder's speed (measured: no difference beyond the noise), so a
 * file that is UTF-8, as every feed nearly always is, costs what it cost
 * before. Only when it throws is the file decoded again leniently and
 * scanned byte by byte (`findInvalidUtf8`, a plain loop: ~70 ms for the
 * 23 MB ASN table).
 *
 * Counting follows the WHATWG Encoding Standard's UTF-8 decoder, which
 * TextDecoder implements: one U+FFFD, so one invalid sequence, per maximal
 * subpart of an ill-formed sequence (`E2 82` then `41` is one; `FF FE` is
 * two). A U+FFFD written in the file as its valid bytes `EF BF BD` is text,
 * not an invalid sequence.
 *
 * @module
 */

/** Where a feed's bytes are not UTF-8. */
export interface InvalidUtf8 {
  /** Invalid sequences, each read as one U+FFFD. */
  readonly count: number;
  /** 1-based line of the first (lines end at LF, as the adapters split them). */
  readonly line: number;
  /** 0-based byte offset of the first (in the unpacked bytes of a gzip or bzip2 feed). */
  readonly offset: number;
}

/** The text and, when the bytes are not all UTF-8, where not. */
export interface Decoded {
  readonly text: string;
  readonly invalid: InvalidUtf8 | null;
}

// Both drop a leading byte-order mark (ignoreBOM is false), as feeds expect.
const FATAL = new TextDecoder('utf-8', { fatal: true });
const LENIENT = new TextDecoder('utf-8');

/**
 * Decodes UTF-8; invalid sequences are read as U+FFFD and reported.
 *
 * @example
 * decodeUtf8(new Uint8Array([0x61, 0x0a, 0x62, 0xe9, 0x0a]))
 * // => { text: 'a\nb\uFFFD\n', invalid: { count: 1, line: 2, offset: 3 } }
 */
export function decodeUtf8(bytes: Uint8Array): Decoded {
  try {
    return { text: FATAL.decode(bytes), invalid: null };
  } catch {
    // TypeError: not UTF-8. The slow path runs only for such a file.
    return { text: LENIENT.decode(bytes), invalid: findInvalidUtf8(bytes) };
  }
}

/**
 * Scans bytes for invalid UTF-8 sequences as the WHATWG decoder meets them;
 * null when there is none.
 *
 * @example
 * findInvalidUtf8(new TextEncoder().encode('ok\n'))     // => null
 * findInvalidUtf8(new Uint8Array([0x31, 0x0a, 0xff, 0xfe])) // => { count: 2, line: 2, offset: 2 }
 */
export function findInvalidUtf8(bytes: Uint8Array): InvalidUtf8 | null {
  let count = 0;
  let firstLine = 0;
  let firstOffset = 0;
  let line = 1;
  // The sequence being read: where it began, how many continuation bytes it needs and has, and the range the next one must lie in.
  let start = 0;
  let needed = 0;
  let seen = 0;
  let lower = 0x80;
  let upper = 0xbf;
  const invalidAt = (offset: number): void => {
    if (count++ === 0) {
      firstLine = line;
      firstOffset = offset;
    }
  };
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (needed === 0) {
      if (b < 0x80) {
        if (b === 0x0a) line++;
        continue;
      }
      start = i;
      if (b >= 0xc2 && b <= 0xdf) needed = 1;
      else if (b >= 0xe0 && b <= 0xef) {
        needed = 2;
        if (b === 0xe0) lower = 0xa0; // no overlong 3-byte form
        if (b === 0xed) upper = 0x9f; // no surrogate
      } else if (b >= 0xf0 && b <= 0xf4) {
        needed = 3;
        if (b === 0xf0) lower = 0x90; // no overlong 4-byte form
        if (b === 0xf4) upper = 0x8f; // nothing past U+10FFFF
      } else invalidAt(i); // a continuation byte alone, C0, C1, F5..FF
      continue;
    }
    if (b < lower || b > upper) {
      // The sequence so far is one invalid sequence; this byte starts afresh (it may be a line end).
      invalidAt(start);
      needed = seen = 0;
      lower = 0x80;
      upper = 0xbf;
      i--;
      continue;
    }
    lower = 0x80;
    upper = 0xbf;
    if (++seen === needed) needed = seen = 0;
  }
  if (needed !== 0) invalidAt(start); // cut off at the end
  return count === 0 ? null : { count, line: firstLine, offset: firstOffset };
}

/** Several reports as one (an adapter that decodes more than one text): the counts added, the first location kept; null for none. */
export function joinInvalidUtf8(reports: readonly InvalidUtf8[]): InvalidUtf8 | null {
  const first = reports[0];
  if (first === undefined) return null;
  return { ...first, count: reports.reduce((n, r) => n + r.count, 0) };
}

/**
 * The report in words, for an error message.
 *
 * @example
 * describeInvalidUtf8({ count: 2, line: 1, offset: 0 })
 * // => 'the file is not all UTF-8: 2 invalid byte sequences read as U+FFFD, the first at line 1 (byte 0)'
 */
export function describeInvalidUtf8(invalid: InvalidUtf8): string {
  const what = invalid.count === 1 ? '1 invalid byte sequence' : `${invalid.count} invalid byte sequences`;
  return `the file is not all UTF-8: ${what} read as U+FFFD, the first at line ${invalid.line} (byte ${invalid.offset})`;
}
