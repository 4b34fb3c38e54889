/**
 * openSync()'s helper thread (node-column-thread.ts): a column handed to it
 * comes back as the caller would have decoded it, or refused as the caller
 * would have refused it, or left to the caller (another file at the path, the
 * caller first); and openSync() of the world snapshot, whose largest column
 * goes to a helper, answers as a load without one.
 */
import { closeSync, copyFileSync, fstatSync, openSync as openFd, readFileSync, readSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { stoppedClock, tempDir } from '@ipintel/testkit';
import { defaultSnapshotPath, nodeInflate, openSync } from '../src/index.js';
import { helpedColumn } from '../src/node.js';
import { HELPER_MIN_STORED, helperAvailable, inflateOnThread, type ColumnOnThread } from '../src/node-column-thread.js';
import { parseHeader, parsePrelude, type PlannedColumn } from '../src/snapshot/decode.js';
import { HEADER_SIZE } from '../src/snapshot/format.js';

const tmp = tempDir('ipintel-helper-');
afterAll(() => tmp.cleanup());
const zcrc = (b: Uint8Array): number => (zlib as unknown as { crc32: (b: Uint8Array) => number }).crc32(b);

/** A file holding `before` bytes, then `blob`; the column's place in it. */
function fileWith(blob: Uint8Array, before = 100): { path: string; at: number } {
  const path = join(tmp.dir, `c-${Math.random().toString(36).slice(2)}.bin`);
  writeFileSync(path, Buffer.concat([randomBytes(before), blob, randomBytes(7)]));
  return { path, at: before };
}

/** Starts a helper on the file's column (the caller's stat taken through an open descriptor, as openSync does). */
function start(path: string, c: { at: number; stored: number; rawSize: number; checksum: number }): ColumnOnThread {
  const fd = openFd(path, 'r');
  try {
    const onThread = inflateOnThread(path, fstatSync(fd), c);
    if (onThread === undefined) throw new Error('no helper thread started');
    return onThread;
  } finally {
    closeSync(fd);
  }
}

/** Waits (without blocking the test's event loop) until the helper has claimed its column. */
async function started(onThread: ColumnOnThread): Promise<void> {
  for (let i = 0; i < 1000 && !onThread.started(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(onThread.started()).toBe(true);
}

describe('a column inflated on a helper thread', () => {
  // Compressible bytes of a known size: the column's raw bytes.
  const raw = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 251 ^ (i >> 9)));
  const stored = zlib.deflateRawSync(raw);

  it('runs here (two cores, native CRC-32), or the tests below prove nothing', () => {
    expect(helperAvailable()).toBe(true);
  });

  it('hands back the raw bytes once it has claimed the column', async () => {
    const { path, at } = fileWith(stored);
    const onThread = start(path, { at, stored: stored.length, rawSize: raw.length, checksum: zcrc(stored) });
    await started(onThread);
    const got = onThread.take();
    expect(got).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(got as Uint8Array).equals(raw)).toBe(true);
  });

  it('refuses a blob that fails its checksum, and one that does not inflate', async () => {
    const { path, at } = fileWith(stored);
    const damaged = start(path, { at, stored: stored.length, rawSize: raw.length, checksum: (zcrc(stored) ^ 1) >>> 0 });
    await started(damaged);
    expect(damaged.take()).toBe('mismatch');
    const junk = Buffer.alloc(5000, 0xff); // 0xff opens a reserved block type: not a deflate stream
    const file = fileWith(junk);
    const broken = start(file.path, { at: file.at, stored: junk.length, rawSize: 10_000, checksum: zcrc(junk) });
    await started(broken);
    expect(broken.take()).toMatchObject({ error: expect.stringMatching(/invalid|incorrect|block/i) });
  });

  it('leaves the column to the caller when the path holds another file by the time it reads', async () => {
    const { path, at } = fileWith(stored);
    const fd = openFd(path, 'r'); // the caller's file, held open
    try {
      const stat = fstatSync(fd);
      const other = join(tmp.dir, 'other.bin');
      writeFileSync(other, readFileSync(path)); // the same bytes, another file
      renameSync(other, path);
      const onThread = inflateOnThread(path, stat, { at, stored: stored.length, rawSize: raw.length, checksum: zcrc(stored) });
      await started(onThread!);
      expect(onThread!.take()).toBeUndefined();
    } finally {
      closeSync(fd);
    }
  });

  it('gives the column to a caller that asks before the helper starts, or the helper\'s bytes: never anything else', () => {
    const { path, at } = fileWith(stored);
    const onThread = start(path, { at, stored: stored.length, rawSize: raw.length, checksum: zcrc(stored) });
    const got = onThread.take(); // at once: the helper is still starting (~30-40 ms), so this is nearly always the caller's
    if (got !== undefined) expect(Buffer.from(got as Uint8Array).equals(raw)).toBe(true);
    expect(onThread.started()).toBe(got !== undefined);
  });

  it('helpedColumn: the largest column stored, if at least HELPER_MIN_STORED bytes', () => {
    const column = (stored: number): PlannedColumn => ({ name: 'v4.blk', at: 0, stored, rawSize: stored * 2, deflate: true, filter: null, checksum: 0 });
    fc.assert(
      fc.property(fc.array(fc.nat(1 << 25)), (sizes) => {
        const picked = helpedColumn(sizes.map(column));
        const largest = Math.max(-1, ...sizes);
        expect(picked?.stored).toBe(largest >= HELPER_MIN_STORED ? largest : undefined);
      }),
    );
  });
});

describe('openSync() of the world snapshot with its helper thread', () => {
  const world = defaultSnapshotPath();
  // The same inflate as the default, but not it: openSync then decodes every column on its own thread.
  const alone = { inflate: (b: Uint8Array, n: number) => nodeInflate(b, n), now: stoppedClock };

  it('hands the world snapshot\'s largest column to a helper', () => {
    const bytes = readFileSync(world);
    const { columns } = parsePrelude(parseHeader(bytes, bytes.length), bytes.subarray(HEADER_SIZE, HEADER_SIZE + 4 + parseHeader(bytes, bytes.length).metaSize));
    expect(helpedColumn(columns.filter((c) => c.deflate && !c.name.startsWith('v6.')))?.name).toBe('v4.blk');
  });

  it('answers as a load without one', () => {
    const helped = openSync(world, { now: stoppedClock });
    const plain = openSync(world, alone);
    let x = 0x9e3779b9;
    for (let i = 0; i < 3000; i++) {
      x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
      const ip = `${x >>> 24}.${(x >>> 16) & 255}.${(x >>> 8) & 255}.${x & 255}`;
      expect(helped.check(ip)).toEqual(plain.check(ip));
    }
    for (const ip of ['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888', '2a00:1450::1']) expect(helped.check(ip)).toEqual(plain.check(ip));
  });

  it('refuses a world snapshot whose helped column is damaged, as a load without one does', () => {
    const bytes = readFileSync(world);
    const header = parseHeader(bytes, bytes.length);
    const blk = parsePrelude(header, bytes.subarray(HEADER_SIZE, HEADER_SIZE + 4 + header.metaSize)).columns.find((c) => c.name === 'v4.blk')!;
    const copy = join(tmp.dir, 'damaged.ipintel');
    copyFileSync(world, copy);
    const fd = openFd(copy, 'r+');
    try {
      const b = Buffer.alloc(1);
      readSync(fd, b, 0, 1, blk.at + (blk.stored >> 1));
      b[0]! ^= 0x5a;
      writeSync(fd, b, 0, 1, blk.at + (blk.stored >> 1));
    } finally {
      closeSync(fd);
    }
    expect(() => openSync(copy)).toThrow(/column v4\.blk checksum mismatch/);
    expect(() => openSync(copy, alone)).toThrow(/column v4\.blk checksum mismatch/);
  });
});
