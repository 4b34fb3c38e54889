/**
 * read/utf8.ts: finding bytes that are not UTF-8, checked against the
 * platform's own decoder (TextDecoder, which the feeds are decoded with):
 * valid text is never reported, an invalid byte inserted anywhere is
 * reported at its line and offset, and for any bytes the count is the
 * decoder's number of U+FFFD it wrote itself.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUtf8, findInvalidUtf8, joinInvalidUtf8 } from '../../src/feeds/read/utf8.js';

const FATAL = new TextDecoder('utf-8', { fatal: true });
const LENIENT = new TextDecoder('utf-8');
const bytes = (...b: number[]): Uint8Array => new Uint8Array(b);
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** U+FFFD the lenient decoder wrote for invalid bytes: all it wrote, less those the bytes spell as EF BF BD (always decoded as one). */
function replacementsWritten(b: Uint8Array): number {
  const all = LENIENT.decode(b).split('\uFFFD').length - 1;
  let spelled = 0;
  for (let i = 0; i + 2 < b.length; i++) if (b[i] === 0xef && b[i + 1] === 0xbf && b[i + 2] === 0xbd) spelled++;
  return all - spelled;
}

/** Bytes biased to UTF-8's edges: lead bytes, continuation bytes, line ends, ASCII and whole characters. */
const edgyBytes = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 255 }).map((b) => [b]),
      fc.constantFrom([0x0a], [0x0d, 0x0a], [0xef, 0xbf, 0xbd], [0xe0, 0xa0], [0xed, 0xa0, 0x80], [0xf4, 0x90], [0xf0, 0x9f, 0x98]),
      fc.constantFrom(0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff).map((b) => [b]),
      fc.string({ unit: 'grapheme', maxLength: 3 }).map((s) => [...utf8(s)]),
    ),
    { maxLength: 40 },
  )
  .map((parts) => new Uint8Array(parts.flat()));

describe('findInvalidUtf8', () => {
  it('counts one sequence per U+FFFD the decoder writes (WHATWG maximal subparts)', () => {
    expect(findInvalidUtf8(bytes(0x61, 0x0a, 0x62, 0xe9, 0x0a))).toEqual({ count: 1, line: 2, offset: 3 }); // Latin-1 é
    expect(findInvalidUtf8(bytes(0xff, 0xfe, 0x31, 0x00))).toEqual({ count: 2, line: 1, offset: 0 }); // a UTF-16 LE BOM
    expect(findInvalidUtf8(bytes(0xe2, 0x82, 0x41))).toEqual({ count: 1, line: 1, offset: 0 }); // € cut short: one
    expect(findInvalidUtf8(bytes(0xed, 0xa0, 0x80))).toEqual({ count: 3, line: 1, offset: 0 }); // a surrogate: three
    expect(findInvalidUtf8(bytes(0xc0, 0xaf))).toEqual({ count: 2, line: 1, offset: 0 }); // overlong '/'
    expect(findInvalidUtf8(bytes(0x0a, 0x0a, 0xf0, 0x9f, 0x98))).toEqual({ count: 1, line: 3, offset: 2 }); // cut off at the end
    // A sequence broken by a line end is on the line it began on; the line end still counts.
    expect(findInvalidUtf8(bytes(0xc3, 0x0a, 0xc3))).toEqual({ count: 2, line: 1, offset: 0 });
    expect(findInvalidUtf8(utf8('U+FFFD written as text: \uFFFD, and é€😀\n'))).toBeNull();
    expect(findInvalidUtf8(bytes())).toBeNull();
  });

  it('reports nothing for any valid UTF-8 text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        expect(findInvalidUtf8(utf8(s))).toBeNull();
        expect(decodeUtf8(utf8(s))).toEqual({ text: s.charCodeAt(0) === 0xfeff ? s.slice(1) : s, invalid: null });
      }),
      { numRuns: 500 },
    );
  });

  it('reports a byte that is not UTF-8, inserted into any text, at its line and offset', () => {
    const line = fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => s.replace(/\n/g, ''));
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 8 }),
        fc.nat(),
        fc.nat(),
        // Any byte >= 0x80 at a character boundary: a continuation byte alone, or a lead byte whose next byte cannot continue it.
        fc.integer({ min: 0x80, max: 0xff }),
        fc.boolean(),
        (lines, l, at, bad, crlf) => {
          const k = l % lines.length;
          const chars = [...lines[k]!];
          const cut = at % (chars.length + 1);
          const before = utf8([...lines.slice(0, k), chars.slice(0, cut).join('')].join(crlf ? '\r\n' : '\n'));
          const after = utf8([chars.slice(cut).join(''), ...lines.slice(k + 1)].join(crlf ? '\r\n' : '\n'));
          const file = new Uint8Array([...before, bad, ...after]);
          expect(findInvalidUtf8(file)).toEqual({ count: 1, line: k + 1, offset: before.length });
          const decoded = decodeUtf8(file);
          expect(decoded.invalid).toEqual({ count: 1, line: k + 1, offset: before.length });
          expect(decoded.text).toBe(LENIENT.decode(file)); // the text is what it always was
        },
      ),
      { numRuns: 500 },
    );
  });

  it('agrees with TextDecoder on any bytes: the count, the first offset and its line', () => {
    fc.assert(
      fc.property(edgyBytes, (b) => {
        const found = findInvalidUtf8(b);
        expect(found?.count ?? 0).toBe(replacementsWritten(b));
        expect(decodeUtf8(b)).toEqual({ text: LENIENT.decode(b), invalid: found });
        if (found === null) return;
        // Everything before the first is UTF-8; the first's line is one past the line ends before it.
        expect(() => FATAL.decode(b.subarray(0, found.offset))).not.toThrow();
        expect(() => FATAL.decode(b.subarray(0, found.offset + 4))).toThrow(TypeError);
        expect(found.line).toBe(1 + b.subarray(0, found.offset).filter((x) => x === 0x0a).length);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('joinInvalidUtf8', () => {
  it('adds the counts and keeps the first location; none is null', () => {
    expect(joinInvalidUtf8([])).toBeNull();
    expect(joinInvalidUtf8([{ count: 2, line: 5, offset: 40 }, { count: 3, line: 1, offset: 0 }])).toEqual({ count: 5, line: 5, offset: 40 });
  });
});
