/**
 * Text from a store or a user, as it may be written to a terminal: a key's
 * name (`ipintel keys create --name`, or `createKey` called by an app with what
 * a customer typed) is shown in `keys list` and after `create`/`rotate`. A
 * name holding an escape sequence (`\x1b[2J` clears the screen), a line break
 * or a tab broke the table's lines and columns, and a terminal ran the
 * sequences. Control characters (C0, DEL, C1) and the bidirectional
 * overrides and isolates (which reorder what follows them) are shown as
 * `\uXXXX`; everything else as it is. JSON output (`--json`) is left alone:
 * JSON.stringify escapes control characters itself, and a program wants the
 * name as stored.
 *
 * @module
 */

/** What is not shown as it is: C0 and C1 controls, DEL, and the bidi embeddings, overrides and isolates. */
const UNSHOWN = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;

/**
 * `text` with its control characters as `\uXXXX` escapes.
 *
 * @example
 * shownText('my app')          // => 'my app'
 * shownText('evil\x1b[2J\nx')  // => 'evil\\u001b[2J\\u000ax'
 */
export function shownText(text: string): string {
  return text.replace(UNSHOWN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
