/**
 * Text of a feed: decoding, line splitting, excerpts for diagnostics.
 *
 * Bytes that are not UTF-8 are read as U+FFFD (utf8.ts) and reported to the
 * listener `watchInvalidUtf8` sets: the registry's `read` sets one around
 * each adapter call and puts what it heard in the feed's result. A listener
 * rather than a field every adapter returns: each text feed is decoded
 * here, deep inside its adapter (through listLines, parseJson, the CSV
 * readers), so ~40 adapters would each have to carry the report out, and
 * one that forgot would hide it. Adapters are synchronous, so no other
 * feed's decoding can fall inside the scope.
 *
 * @module
 */
import { decodeUtf8, type InvalidUtf8 } from './utf8.js';

let listener: ((invalid: InvalidUtf8) => void) | null = null;

/**
 * Runs `run`, pushing onto `heard` every report of invalid UTF-8 that
 * feedText makes meanwhile (one per text decoded that is not all UTF-8).
 *
 * @example
 * const heard: InvalidUtf8[] = [];
 * watchInvalidUtf8(() => feedText(new Uint8Array([0x61, 0xff])), heard) // => 'a\uFFFD'
 * heard // => [{ count: 1, line: 1, offset: 1 }]
 */
export function watchInvalidUtf8<T>(run: () => T, heard: InvalidUtf8[]): T {
  const outer = listener;
  listener = (invalid) => void heard.push(invalid);
  try {
    return run();
  } finally {
    listener = outer;
  }
}

/** Text of a feed's bytes (UTF-8; a BOM is dropped; invalid sequences are U+FFFD, reported as the module header says). */
export function feedText(data: Uint8Array | string): string {
  let s: string;
  if (typeof data === 'string') s = data;
  else {
    const decoded = decodeUtf8(data);
    if (decoded.invalid !== null) listener?.(decoded.invalid);
    s = decoded.text;
  }
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}

/** Splits text into lines, accepting LF and CRLF; a final empty line is dropped. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Calls `fn` for each line (LF or CRLF) with its 1-based number; a final
 * empty line is not a line. Unlike `splitLines` it builds no array, for
 * files of a million lines.
 */
export function eachLine(text: string, fn: (line: string, lineNo: number) => void): void {
  let pos = 0;
  let lineNo = 0;
  const n = text.length;
  while (pos < n) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = n;
    const stop = end > pos && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    fn(text.slice(pos, stop), ++lineNo);
    pos = end + 1;
  }
}

/** A short, quoted excerpt of a bad line for a diagnostic. */
export function excerpt(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
}
