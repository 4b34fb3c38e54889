/**
 * openSync()'s helper thread (node-column-thread.ts): a column handed to it
 * comes back as the caller would have decoded it, or refused as the caller
 * would have refused it, or left to the caller (another file at the path, the
 * caller first); and openSync() of the world snapshot, whose largest column
 * goes to a helper, answers as a load without one.
 */
import { closeSync, copyFileSync, fstatSync, openSync as openFd, readFileSync, readSync, renameSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { damageColumn, modelFromPrefixes, stoppedClock, tempDir } from '@ipintel/testkit';
import { defaultSnapshotPath, nodeInflate, openSync } from '../src/index.js';
import { helpedColumn, readFileSnapshotSync, type StartHelper } from '../src/node.js';
import { HELPER_MIN_STORED, helperAvailable, helperCanCheck, inflateOnThread, type ColumnOnThread } from '../src/node-column-thread.js';
import { blobMismatch, finishSnapshot, inflateFailed, parseHeader, parsePrelude, type LateColumn, type PlannedColumn } from '../src/snapshot/decode.js';
import type { ColumnName } from '../src/snapshot/format.js';
import { encodeSnapshot } from '../src/writer.js';
import { crc32 } from '../src/snapshot/checksum.js';
import { IpIntel } from '../src/intel.js';
import { HEADER_SIZE } from '../src/snapshot/format.js';

const tmp = tempDir('ipintel-helper-');
afterAll(() => tmp.cleanup());
const zcrc = (b: Uint8Array): number => crc32(b);

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

// The helper checks CRC-32 with zlib's (Node 20.15+); on an older Node openSync never asks for one
// (helperAvailable() is false) and inflateOnThread answers undefined: these have nothing to test there.
describe.runIf(helperCanCheck)('a column inflated on a helper thread', () => {
  // Compressible bytes of a known size: the column's raw bytes.
  const raw = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 251 ^ (i >> 9)));
  const stored = zlib.deflateRawSync(raw);

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

  it('stops a stream that inflates past the column at its size, and says so (the caller refuses it as such)', async () => {
    const bomb = zlib.deflateRawSync(Buffer.alloc(64 << 20)); // ~64 KB that inflate to 64 MB
    const { path, at } = fileWith(bomb);
    const onThread = start(path, { at, stored: bomb.length, rawSize: raw.length, checksum: zcrc(bomb) });
    await started(onThread);
    const got = onThread.take();
    expect(got).toMatchObject({ code: 'ERR_BUFFER_TOO_LARGE' });
    const c: PlannedColumn = { name: 'v4.blk', at, stored: bomb.length, rawSize: raw.length, deflate: true, filter: null, checksum: zcrc(bomb) };
    expect(inflateFailed(c, Object.assign(new Error((got as { error: string }).error), { code: (got as { code: string }).code }))).toMatchObject({
      code: 'snapshot_corrupt',
      message: `snapshot is corrupt: column v4.blk inflates to more than ${raw.length} bytes, expected ${raw.length}`,
    });
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

  it('leaves the column to the caller when it cannot open the path (gone, no descriptor left): never an error of its own', async () => {
    const { path, at } = fileWith(stored);
    const onThread = inflateOnThread(join(tmp.dir, 'no-such-file.bin'), statSync(path), { at, stored: stored.length, rawSize: raw.length, checksum: zcrc(stored) });
    await started(onThread!);
    expect(onThread!.take()).toBeUndefined();
  });

  it('abandoned (a load that failed first), its result is dropped and take() answers undefined', async () => {
    const { path, at } = fileWith(stored);
    const onThread = start(path, { at, stored: stored.length, rawSize: raw.length, checksum: zcrc(stored) });
    await started(onThread);
    onThread.abandon();
    expect(onThread.take()).toBeUndefined();
    onThread.abandon(); // again: nothing left to do
  });

  it('gives the column to a caller that asks before the helper starts, or the helper\'s bytes: never anything else', () => {
    const { path, at } = fileWith(stored);
    const onThread = start(path, { at, stored: stored.length, rawSize: raw.length, checksum: zcrc(stored) });
    const got = onThread.take(); // at once: the helper is still starting (~30-40 ms), so this is nearly always the caller's
    if (got !== undefined) expect(Buffer.from(got as Uint8Array).equals(raw)).toBe(true);
    expect(onThread.started()).toBe(got !== undefined);
  });
});

describe('the column openSync hands to a helper', () => {
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
  const bytes = readFileSync(world);
  const header = parseHeader(bytes, bytes.length);
  const { columns } = parsePrelude(header, bytes.subarray(HEADER_SIZE, HEADER_SIZE + 4 + header.metaSize));
  const columnNamed = (name: string): PlannedColumn => columns.find((c) => c.name === name)!;
  // The same inflate as the default, but not it: the load then decodes every column on its own thread.
  const alone = (b: Uint8Array, n: number): Uint8Array => nodeInflate(b, n);

  /** A helper that is given the time to start before its column is taken (so the helper's path is the one run), recording what it handed back. */
  function patientHelper(took: string[]): StartHelper {
    return (path, stat, c) => {
      const onThread = inflateOnThread(path, stat, c);
      if (onThread === undefined) return undefined;
      return {
        ...onThread,
        take() {
          const wait = new Int32Array(new SharedArrayBuffer(4));
          for (let i = 0; i < 500 && !onThread.started(); i++) Atomics.wait(wait, 0, 0, 10);
          const got = onThread.take();
          took.push(got instanceof Uint8Array ? 'bytes' : got === undefined ? 'none' : typeof got === 'string' ? got : 'error');
          return got;
        },
      };
    };
  }

  it('hands the world snapshot\'s largest column to a helper', () => {
    expect(helpedColumn(columns.filter((c) => c.deflate && !c.name.startsWith('v6.')))?.name).toBe('v4.blk');
  });

  it('answers as a load without one, the helper\'s bytes used (where this machine has a second core)', () => {
    const took: string[] = [];
    const helped = new IpIntel(readFileSnapshotSync(world, nodeInflate, false, patientHelper(took)), { now: stoppedClock, inflate: nodeInflate });
    expect(took).toEqual(helperAvailable() ? ['bytes'] : []);
    const plain = openSync(world, { inflate: alone, now: stoppedClock });
    const byDefault = openSync(world, { now: stoppedClock });
    let x = 0x9e3779b9;
    for (let i = 0; i < 3000; i++) {
      x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
      const ip = `${x >>> 24}.${(x >>> 16) & 255}.${(x >>> 8) & 255}.${x & 255}`;
      expect(helped.check(ip)).toEqual(plain.check(ip));
      expect(byDefault.check(ip)).toEqual(plain.check(ip));
    }
    for (const ip of ['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888', '2a00:1450::1']) expect(helped.check(ip)).toEqual(plain.check(ip));
  });

  /** A copy of the world snapshot with a byte of each named column's stored blob flipped. */
  function damagedCopy(...names: string[]): string {
    const copy = join(tmp.dir, `damaged-${names.join('-')}.ipintel`);
    copyFileSync(world, copy);
    const fd = openFd(copy, 'r+');
    try {
      for (const name of names) {
        const c = columnNamed(name);
        const b = Buffer.alloc(1);
        readSync(fd, b, 0, 1, c.at + (c.stored >> 1));
        b[0]! ^= 0x5a;
        writeSync(fd, b, 0, 1, c.at + (c.stored >> 1));
      }
    } finally {
      closeSync(fd);
    }
    return copy;
  }

  it('refuses a damaged file naming the column a load without a helper names, whichever thread found what', () => {
    // The helped column alone; with a column after it (kept as stored: leaf.ids, the IPv6 index); with one before it.
    const cases: [string[], string][] = [
      [['v4.blk'], 'v4.blk'],
      [['v4.blk', 'v6.w1'], 'v4.blk'],
      [['v4.blk', 'leaf.ids'], 'v4.blk'],
      [['str.bytes', 'v4.blk'], 'str.bytes'],
    ];
    for (const [names, named] of cases) {
      const file = damagedCopy(...names);
      const want = new RegExp(`column ${named.replace('.', '\\.')} checksum mismatch`);
      const took: string[] = [];
      expect(() => readFileSnapshotSync(file, nodeInflate, false, patientHelper(took)), names.join('+')).toThrow(want);
      expect(() => openSync(file), names.join('+')).toThrow(want);
      expect(() => openSync(file, { inflate: alone }), names.join('+')).toThrow(want);
      expect(() => openSync(file, { preload: true }), names.join('+')).toThrow(want);
      // The helper saw v4.blk's damage, unless the caller's own fault came first in the file.
      if (helperAvailable()) expect(took, names.join('+')).toEqual(named === 'v4.blk' ? ['mismatch'] : []);
    }
  });
});

describe('finishSnapshot with a late column (the IPv4 blocks, arriving from a helper)', () => {
  const model = modelFromPrefixes(
    Array.from({ length: 400 }, (_, i) => ({ start: BigInt(i) << 20n, length: 12 + (i % 9), value: (i % 7) + 1 })),
    [{ start: 0x20014860n << 96n, length: 32, value: 3 }],
    8,
  );
  /** The prelude and raw columns of uncompressed snapshot bytes (every blob is its raw bytes). */
  function parts(file: Uint8Array): { prelude: ReturnType<typeof parsePrelude>; raw: Map<ColumnName, Uint8Array | LateColumn> } {
    const header = parseHeader(file, file.length);
    const prelude = parsePrelude(header, file.subarray(HEADER_SIZE, HEADER_SIZE + 4 + header.metaSize));
    const raw = new Map<ColumnName, Uint8Array | LateColumn>(prelude.columns.map((c) => [c.name, file.slice(c.at, c.at + c.stored)]));
    return { prelude, raw };
  }
  const errorOf = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      return (e as Error).message;
    }
    return 'nothing thrown';
  };

  it('takes it after the tables, and answers as with the bytes at hand', () => {
    const file = encodeSnapshot(model, { compress: false });
    const { prelude, raw } = parts(file);
    const blk = raw.get('v4.blk') as Uint8Array;
    let taken = 0;
    raw.set('v4.blk', () => (taken++, blk));
    const late = new IpIntel(finishSnapshot(prelude, raw, undefined), { now: stoppedClock });
    expect(taken).toBe(1);
    const atHand = new IpIntel(finishSnapshot(prelude, parts(file).raw, undefined), { now: stoppedClock });
    for (const ip of ['0.16.0.1', '1.2.3.4', '18.200.0.0', '2001:4860::1']) expect(late.check(ip)).toEqual(atHand.check(ip));
  });

  it('reports its own fault before a table\'s, its size before the tables, and the IPv4 index before the IPv6 one', () => {
    // A table out of range (pair.net past the network rows), checksums right.
    const badTable = damageColumn(encodeSnapshot(model, { compress: false }), 'pair.net', (col) => col.setUint32(0, 0xffffff, true));
    const blkColumn = parts(badTable).prelude.columns.find((c) => c.name === 'v4.blk')!;
    const withLate = (late: LateColumn): string => {
      const { prelude, raw } = parts(badTable);
      raw.set('v4.blk', late);
      return errorOf(() => finishSnapshot(prelude, raw, undefined));
    };
    expect(errorOf(() => finishSnapshot(parts(badTable).prelude, parts(badTable).raw, undefined))).toMatch(/pair\.net/);
    expect(withLate(() => { throw blobMismatch(blkColumn); })).toMatch(/column v4\.blk checksum mismatch/);
    expect(withLate(() => new Uint8Array(8))).toMatch(/column v4\.blk inflates to 8 bytes/);
    // Both indexes broken, checksums right: with every column decoded now (preload), the IPv4 index is named, as before.
    const bothBroken = damageColumn(
      damageColumn(encodeSnapshot(model, { compress: false }), 'v4.dir', (col) => col.setUint32(0, 0x7fffff, true)),
      'v6.leaf',
      (col) => col.setUint8(2, 0x7f),
    );
    const { prelude, raw } = parts(bothBroken);
    expect(errorOf(() => finishSnapshot(prelude, raw, undefined))).toMatch(/v4\.dir/);
  });
});
