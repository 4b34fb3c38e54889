/**
 * shownText: what a key's name looks like on a terminal (keys list, create,
 * rotate). Control characters and bidi overrides become `\uXXXX`; nothing
 * else changes, and the escapes name the characters they replace.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shownText } from '../src/shown-text.js';

const UNSHOWN = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

describe('shownText', () => {
  it('leaves no control character or bidi override, and changes nothing else', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const shown = shownText(s);
        expect(UNSHOWN.test(shown)).toBe(false);
        // Undoing the escapes of the characters it replaced gives the text back.
        const back = shown.replace(/\\u([0-9a-f]{4})/g, (m, h: string) => (UNSHOWN.test(String.fromCharCode(parseInt(h, 16))) ? String.fromCharCode(parseInt(h, 16)) : m));
        expect(back).toBe(s);
        if (!UNSHOWN.test(s)) expect(shown).toBe(s);
      }),
    );
  });

  it('shows an escape sequence, a line break, a tab, DEL, a C1 CSI and a right-to-left override as escapes', () => {
    expect(shownText('evil\x1b[2J\nnext\tcol\x7f\x9b\u202e')).toBe('evil\\u001b[2J\\u000anext\\u0009col\\u007f\\u009b\\u202e');
    expect(shownText('my app — ünïcode ✓')).toBe('my app — ünïcode ✓');
  });
});
