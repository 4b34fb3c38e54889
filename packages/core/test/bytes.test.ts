import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withRoom } from '../src/bytes.js';

describe('withRoom', () => {
  it('keeps the buffer when it has room, else gives a larger one holding the bytes written so far', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(400), fc.nat(2000), (buf, usedAt, need) => {
        const used = Math.min(usedAt, buf.length);
        const out = withRoom(buf, used, need);
        expect(out.length).toBeGreaterThanOrEqual(used + need);
        expect(out.subarray(0, used)).toEqual(buf.subarray(0, used));
        if (used + need <= buf.length) expect(out).toBe(buf);
        else expect(out.length).toBeGreaterThanOrEqual(2 * buf.length);
      }),
    );
  });
});
