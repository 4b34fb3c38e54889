/**
 * Text of a feed: decoding, line splitting, excerpts for diagnostics.
 *
 * @module
 */

/** Text of a feed's bytes (UTF-8; a BOM is dropped). */
export function feedText(data: Uint8Array | string): string {
  const s = typeof data === 'string' ? data : new TextDecoder('utf-8').decode(data);
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
