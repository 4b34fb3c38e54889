/**
 * How many times a request carried a header field, for the fields HTTP
 * allows once (Host). node:http does not say so: it keeps the first line of
 * such a field and drops the others (its `headers` object). So a repeat is
 * found in node's `rawHeaders` (the lines as received, which node builds
 * anyway).
 *
 * @module
 */

/**
 * Lines of the field `name` (lower case) in `raw` (node's rawHeaders: name, value, name,
 * value, ...), counted up to `atMost`. Names compare without regard to case (RFC 9110,
 * 5.1). Cheap enough for every request: a name of another length costs one comparison,
 * and nothing is allocated.
 *
 * @example
 * fieldLines(['Host', 'a', 'accept', '*', 'host', 'b'], 'host') // => 2
 */
export function fieldLines(raw: readonly string[], name: string, atMost = Number.POSITIVE_INFINITY): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const f = raw[i]!;
    if (f.length === name.length && sameName(f, name) && ++n >= atMost) break;
  }
  return n;
}

/** `f` equals `lower` (a lower-case token) but for the case of its letters; no allocation, unlike toLowerCase. */
function sameName(f: string, lower: string): boolean {
  for (let j = 0; j < lower.length; j++) {
    const c = f.charCodeAt(j);
    const l = lower.charCodeAt(j);
    // Only a letter may differ in case: c | 0x20 alone would also fold '\r' into '-'.
    if (c !== l && !(l >= 0x61 && l <= 0x7a && c === l - 0x20)) return false;
  }
  return true;
}

