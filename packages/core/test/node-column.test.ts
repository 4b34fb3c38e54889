/**
 * open()'s column reader (node-column.ts): a column read in pieces through a
 * small buffer, inflated as it is read, equals the column decoded whole; a
 * damaged blob is refused as a checksum mismatch whatever the piece size;
 * and the CRC-32 continued over pieces equals the CRC-32 of the whole.
 */
import { writeFileSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { modelFromPrefixes, tempDir } from '@ipintel/testkit';
import { readColumn } from '../src/node-column.js';
import { crc32 } from '../src/snapshot/checksum.js';
import { columnBytes, parseHeader, parsePrelude } from '../src/snapshot/decode.js';
import { HEADER_SIZE } from '../src/snapshot/format.js';
import { encodeSnapshot } from '../src/writer.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 60) });

const bytes = encodeSnapshot(
  modelFromPrefixes(
    Array.from({ length: 2000 }, (_, i) => ({ start: BigInt(i) << 18n, length: 14 + (i % 7), value: (i % 9) + 1 })),
    Array.from({ length: 300 }, (_, i) => ({ start: (0x20010000n + BigInt(i)) << 96n, length: 32 + (i % 17), value: (i % 4) + 1 })),
    10,
  ),
);
const header = parseHeader(bytes, bytes.length);
const prelude = parsePrelude(header, bytes.subarray(HEADER_SIZE, HEADER_SIZE + 4 + header.metaSize));
const tmp = tempDir('ipintel-column-');
afterAll(() => tmp.cleanup());
const zcrc = (b: Uint8Array, v = 0): number => (zlib as unknown as { crc32: (b: Uint8Array, v: number) => number }).crc32(b, v);

async function withFile<T>(content: Uint8Array, f: (fh: Awaited<ReturnType<typeof openFile>>) => Promise<T>): Promise<T> {
  const path = join(tmp.dir, `s-${Math.random().toString(36).slice(2)}.ipintel`);
  writeFileSync(path, content);
  const fh = await openFile(path, 'r');
  try {
    return await f(fh);
  } finally {
    await fh.close();
  }
}

describe('readColumn', () => {
  it('reads every column, deflated or raw, equal to the whole-blob decode, for any piece size', async () => {
    expect(prelude.columns.some((c) => c.deflate)).toBe(true);
    await withFile(bytes, async (fh) => {
      for (const size of [1, 7, 64, 4096, 1 << 18]) {
        const piece = Buffer.alloc(size);
        for (const c of prelude.columns) {
          const want = columnBytes(c, bytes.subarray(c.at, c.at + c.stored), (s, n) => zlib.inflateRawSync(s, { chunkSize: n + 1 }));
          expect(Buffer.from(await readColumn(fh, c, piece, zcrc)).equals(Buffer.from(want)), `${c.name}, pieces of ${size}`).toBe(true);
        }
      }
    });
  });

  it('refuses a column whose claimed size no buffer can hold as snapshot_corrupt, not a RangeError', async () => {
    // A crafted meta (its checksums sealed again) may claim any size; zlib's constructor refuses it.
    const c = prelude.columns.find((x) => x.deflate)!;
    await withFile(bytes, async (fh) => {
      await expect(readColumn(fh, { ...c, rawSize: 2 ** 32 + 4 }, Buffer.alloc(64), zcrc)).rejects.toMatchObject({ code: 'snapshot_corrupt' });
    });
  });

  it('refuses a flipped byte anywhere in a blob as a checksum mismatch', async () => {
    const big = prelude.columns.filter((c) => c.deflate).sort((a, b) => b.stored - a.stored)[0]!;
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: big.stored - 1 }), fc.integer({ min: 1, max: 255 }), fc.constantFrom(3, 100, 4096), async (at, mask, size) => {
        const bad = bytes.slice();
        bad[big.at + at]! ^= mask;
        await withFile(bad, async (fh) => {
          await expect(readColumn(fh, big, Buffer.alloc(size), zcrc)).rejects.toMatchObject({ code: 'snapshot_corrupt', message: expect.stringContaining('checksum mismatch') as string });
        });
      }),
      { numRuns: 25 },
    );
  });

  it('CRC-32 continued over pieces is the CRC-32 of the whole, in the portable version as in zlib', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 }), (a, b) => {
        const whole = new Uint8Array([...a, ...b]);
        expect(crc32(b, crc32(a))).toBe(crc32(whole));
        expect(crc32(whole)).toBe(zcrc(whole));
      }),
    );
  });
});
