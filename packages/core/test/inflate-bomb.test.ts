/**
 * A column whose stored blob inflates to far more than the column (a small
 * blob of a few hundred KB can hold gigabytes of zeros) is refused as soon as
 * the inflate passes the column's size, by every way of loading, instead of
 * after inflating it all: memory, not just time, would run out first. (The
 * batch's load into shared memory: node-shared.test.ts.)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { modelFromPrefixes } from '@ipintel/testkit';
import { loadSnapshot, nodeInflate, open, openSync } from '../src/index.js';
import { fflateInflate } from '../src/inflate-fflate.js';
import { loadSnapshot as loadPortable } from '../src/portable.js';
import { encodeSnapshot } from '../src/writer.js';

// v4.dir of a small snapshot: 2^16 entries, 256 KB raw. Its stored blob is replaced by one that
// inflates to 128 MB (~125 KB stored, so the writer keeps it: smaller than the raw column).
const DIR_BYTES = 4 * 65536;
const BOMB_BYTES = 128 << 20;
const bomb = zlib.deflateRawSync(Buffer.alloc(BOMB_BYTES), { level: 9 });
const model = modelFromPrefixes(
  Array.from({ length: 300 }, (_, i) => ({ start: BigInt(i) << 20n, length: 12, value: (i % 5) + 1 })),
  [{ start: 0x20014860n << 96n, length: 32, value: 3 }],
  6,
);
const bytes = encodeSnapshot(model, { deflate: (raw, level) => (raw.length === DIR_BYTES ? bomb : zlib.deflateRawSync(raw, { level })) });
const dir = mkdtempSync(join(tmpdir(), 'ipintel-bomb-'));
const path = join(dir, 'bomb.ipintel');
writeFileSync(path, bytes);

const refusal = { code: 'snapshot_corrupt', message: `snapshot is corrupt: column v4.dir inflates to more than ${DIR_BYTES} bytes, expected ${DIR_BYTES}` };

describe('a column that inflates past its size', () => {
  it('is refused by every load, file or bytes, with or without preload', async () => {
    expect(bomb.length).toBeLessThan(DIR_BYTES);
    for (const preload of [false, true]) {
      expect(() => openSync(path, { preload })).toThrow(expect.objectContaining(refusal));
      await expect(open(path, { preload })).rejects.toMatchObject(refusal);
      expect(() => openSync(bytes, { preload })).toThrow(expect.objectContaining(refusal));
      await expect(open(bytes, { preload })).rejects.toMatchObject(refusal);
      expect(() => loadSnapshot(bytes, { preload })).toThrow(expect.objectContaining(refusal));
    }
  });

  it('is refused by the portable load (fflate), whose stream is cut one byte past the column', () => {
    expect(() => loadPortable(bytes)).toThrow(expect.objectContaining({ code: 'snapshot_corrupt', message: expect.stringMatching(/column v4\.dir inflates to 262145 bytes, expected 262144/) as string }));
    expect(fflateInflate(bomb, 1000).length).toBe(1001);
  });

  it('stops the inflate at the column size (Node): no buffer of the stream\'s full size is made', () => {
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    for (const size of [1000, DIR_BYTES, 1 << 20]) {
      try {
        expect(() => nodeInflate(bomb, size)).toThrow(expect.objectContaining({ code: 'ERR_BUFFER_TOO_LARGE' }));
      } finally {
        peak = Math.max(peak, process.memoryUsage().arrayBuffers);
      }
    }
    expect(peak - before).toBeLessThan(BOMB_BYTES / 4);
  });
});
