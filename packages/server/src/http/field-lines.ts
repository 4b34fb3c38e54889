/**
 * How many times a request carried a header field, for the fields HTTP
 * allows once (Host, Content-Type). Neither runtime says so by itself:
 * node:http keeps the first line of such a field and drops the others (its
 * `headers` object), and a Fetch runtime's Headers joins every line into one
 * value with ", ". So a repeat is found in node's `rawHeaders` (the lines as
 * received, which node builds anyway), or as a comma in a joined value.
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

/**
 * Whether a field value may hold more than one item: a comma outside quoted strings (the
 * mark of a list, and so of a field that came more than once and was joined: a Fetch
 * runtime's Headers, or node's join of repeated unknown fields), or a quoted string left
 * open, which could hide such a comma (and is no valid value anyway). A quoted parameter
 * value may hold a comma (`text/plain; x="a,b"`); a backslash inside quotes escapes the next
 * character (RFC 9110, 5.6.4).
 *
 * @example
 * mayBeList('application/json, text/plain') // => true
 * mayBeList('text/plain; x="a,b"')          // => false
 * mayBeList('text/plain; x="a, b')          // => true
 */
export function mayBeList(value: string): boolean {
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (quoted && c === 0x5c /* \ */) i++;
    else if (c === 0x22 /* " */) quoted = !quoted;
    else if (c === 0x2c /* , */ && !quoted) return true;
  }
  return quoted;
}
