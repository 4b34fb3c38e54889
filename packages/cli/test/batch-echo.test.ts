/**
 * Bad input echoed back in error rows: cut to its limit without splitting a
 * character, whether the cut is by UTF-16 units (a line that is not an
 * address) or by bytes (a line longer than MAX_LINE_BYTES).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ECHO_LIMIT, echoOf } from '../src/batch/block.js';
import { echoHead, MAX_LINE_BYTES } from '../src/batch/blocks.js';
import { runBatch } from './io.js';
import { trickyModel, writeSnapshot } from './snapshots.js';

const strict = new TextDecoder('utf-8', { fatal: true });
/** No lone surrogate (String#isWellFormed, which this project's TypeScript lib does not declare yet). */
const wellFormed = (s: string): boolean => !/\p{Surrogate}/u.test(s);
/** Text with many characters outside the BMP (surrogate pairs in UTF-16, four bytes in UTF-8). */
const wideText = fc.array(fc.oneof(fc.constantFrom('😀', '𝄞', 'é', '€', 'a', '1', '.'), fc.string({ unit: 'binary', maxLength: 3 })), { maxLength: 400 }).map((p) => p.join(''));

describe('echoOf (by UTF-16 units)', () => {
  it('keeps short input as is; cuts longer input to at most ECHO_LIMIT units plus …, never inside a pair', () => {
    fc.assert(
      fc.property(wideText, (line) => {
        const echo = echoOf(line);
        if (line.length <= ECHO_LIMIT) {
          expect(echo).toBe(line);
          return;
        }
        expect(echo.endsWith('…')).toBe(true);
        const kept = echo.slice(0, -1);
        expect(line.startsWith(kept)).toBe(true);
        expect(kept.length === ECHO_LIMIT || kept.length === ECHO_LIMIT - 1).toBe(true);
        // Well-formed whenever the input was: the cut adds no lone surrogate.
        if (wellFormed(line)) expect(wellFormed(echo)).toBe(true);
      }),
    );
  });
});

describe('echoHead (by bytes)', () => {
  it('cuts to at most ECHO_BYTES bytes, at a UTF-8 boundary of valid input', () => {
    fc.assert(
      fc.property(wideText, (text) => {
        const bytes = new TextEncoder().encode(text);
        const head = echoHead(bytes);
        expect(head.length).toBeLessThanOrEqual(256);
        expect(bytes.length <= 256 ? head.length === bytes.length : head.length > 256 - 4).toBe(true);
        expect(() => strict.decode(head)).not.toThrow();
      }),
    );
  });
});

describe('the batch echoes bad lines whole characters only', () => {
  let snap: string;
  beforeAll(() => {
    snap = writeSnapshot(trickyModel());
  });

  it('an emoji line longer than the echo limit, and one longer than MAX_LINE_BYTES', async () => {
    const short = `a${'😀'.repeat(300)}`;
    const long = `b${'😀'.repeat(MAX_LINE_BYTES / 4 + 10)}`;
    const r = await runBatch(snap, `${short}\n${long}\n8.8.8.8\n`);
    const rows = r.out.trimEnd().split('\n').map((l) => JSON.parse(l) as { ip: string; error?: { code: string } });
    expect(rows).toHaveLength(3);
    for (const row of rows.slice(0, 2)) {
      expect(row.error?.code).toBe('invalid_ip');
      expect(wellFormed(row.ip)).toBe(true);
      expect(row.ip).not.toContain('\ufffd');
      expect(row.ip.endsWith('…')).toBe(true);
    }
    expect(short.startsWith(rows[0]!.ip.slice(0, -1))).toBe(true);
    expect(long.startsWith(rows[1]!.ip.replace(/…+$/, ''))).toBe(true);
    expect(rows[2]!.ip).toBe('8.8.8.8');
  });
});
