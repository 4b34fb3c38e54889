/**
 * Reading a snapshot file straight into shared memory the caller lays out
 * (node-shared.ts, for the CLI's batch): the columns land where they are
 * put and answer as openSync's do once fromShared has checked them; the
 * file's checksums, its size and a change between the plan and the read are
 * refused with the errors a load gives.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as zlib from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultSnapshotPath, fromShared, IpIntelError, openSync } from '../src/index.js';
import { INFLATE_PIECE, inflateInto, placedBytes, planSnapshotFile, readSharedSnapshot, type SnapshotFilePlan } from '../src/node-shared.js';
import type { PlannedColumn } from '../src/snapshot/decode.js';
import { encodeSnapshot } from '../src/writer.js';
import { damageColumn, modelFromPrefixes, stoppedClock } from '@ipintel/testkit';

const model = modelFromPrefixes(
  Array.from({ length: 300 }, (_, i) => ({ start: BigInt(i) << 20n, length: 12, value: (i % 5) + 1 })),
  [{ start: 0x20014860n << 96n, length: 32, value: 3 }],
  6,
);
const dir = mkdtempSync(join(tmpdir(), 'ipintel-core-shared-'));
const write = (name: string, bytes: Uint8Array): string => {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
};
const path = write('test.ipintel', encodeSnapshot(model));

/** One SharedArrayBuffer: the columns at multiples of 64 from 64, the scratch after them (as the batch lays it out). */
function layout(plan: SnapshotFilePlan): { scratch: Uint8Array; place: (c: PlannedColumn, n: number) => Uint8Array; sab: SharedArrayBuffer } {
  const at = new Map<string, number>();
  let end = 64;
  for (const c of plan.prelude.columns) {
    at.set(c.name, end);
    end = (end + placedBytes(c) + 63) & ~63;
  }
  const sab = new SharedArrayBuffer(end + plan.size);
  return { sab, scratch: new Uint8Array(sab, end, plan.size), place: (c, n) => new Uint8Array(sab, at.get(c.name), n) };
}

describe('readSharedSnapshot', () => {
  it('puts every column in its place, and the snapshot answers as openSync\'s', async () => {
    const plan = planSnapshotFile(path);
    const { sab, scratch, place } = layout(plan);
    const shared = await readSharedSnapshot(path, plan, scratch, place);
    const views = [...Object.values(shared.columns), ...Object.values(shared.v6Stored ?? {})];
    expect(views.length).toBe(plan.prelude.columns.length);
    expect(views.every((v) => v.buffer === sab)).toBe(true);
    // The IPv6 index stays as stored (decoded on first use), every other column is decoded.
    expect(Object.keys(shared.v6Stored ?? {}).every((n) => n.startsWith('v6.'))).toBe(true);
    const mine = fromShared(shared, { now: stoppedClock });
    const theirs = openSync(path, { now: stoppedClock });
    for (const ip of ['0.0.0.1', '0.16.0.0', '18.200.1.1', '2001:4860::1', '::1', '255.255.255.255']) expect(mine.check(ip)).toEqual(theirs.check(ip));
    expect(mine.info).toEqual(theirs.info);
  });

  it('refuses what a load refuses: a missing file, a damaged column, a file that changed after the plan', async () => {
    // The same error, and the same hint on how to get a snapshot, as openSync gives.
    const missing = join(dir, 'none.ipintel');
    let fromOpen: unknown;
    try {
      openSync(missing);
    } catch (e) {
      fromOpen = e;
    }
    expect(() => planSnapshotFile(missing)).toThrow(expect.objectContaining({ code: 'snapshot_not_found', message: (fromOpen as Error).message }) as Error);
    expect((fromOpen as Error).message).toMatch(/ipintel build/);
    const damaged = write('damaged.ipintel', encodeSnapshot(model, { compress: false }));
    // A byte changed and the checksums not resealed: the column's checksum fails.
    const bytes = new Uint8Array(encodeSnapshot(model, { compress: false }));
    const sealed = damageColumn(bytes, 'geo.city', (col) => col.setUint8(0, col.getUint8(0) ^ 1));
    const plan = planSnapshotFile(damaged);
    const l = layout(plan);
    await expect(readSharedSnapshot(damaged, plan, l.scratch, l.place)).resolves.toBeDefined();
    // The same size and meta but other column bytes (resealed): planned from one file, read from another.
    writeFileSync(damaged, sealed);
    const err = await readSharedSnapshot(damaged, plan, l.scratch, l.place).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(IpIntelError);
    expect((err as IpIntelError).code).toBe('snapshot_corrupt');
    // A byte of a column flipped in place (its checksum left as it was): that column's checksum fails.
    const flipped = new Uint8Array(encodeSnapshot(model, { compress: false }));
    const city = plan.prelude.columns.find((c) => c.name === 'geo.city')!;
    flipped[city.at] = flipped[city.at]! ^ 1;
    writeFileSync(damaged, flipped);
    await expect(readSharedSnapshot(damaged, plan, l.scratch, l.place)).rejects.toMatchObject({ code: 'snapshot_corrupt', message: expect.stringMatching(/geo\.city/) as string });
    // Another file altogether (another size): refused before any column is read.
    writeFileSync(damaged, encodeSnapshot(modelFromPrefixes([{ start: 0n, length: 8, value: 1 }], [], 2)));
    await expect(readSharedSnapshot(damaged, plan, l.scratch, l.place)).rejects.toMatchObject({ code: 'snapshot_corrupt' });
  });

  it('a column that fails stops the others: nothing is written into the memory after the refusal', async () => {
    // The world snapshot (many columns, some still inflating when one fails), planned with v4.dir 8 bytes short.
    const world = defaultSnapshotPath();
    const plan = planSnapshotFile(world);
    const short: SnapshotFilePlan = {
      ...plan,
      prelude: { ...plan.prelude, columns: plan.prelude.columns.map((c) => (c.name === 'v4.dir' ? { ...c, rawSize: c.rawSize - 8 } : c)) },
    };
    const l = layout(short);
    const err = await readSharedSnapshot(world, short, l.scratch, l.place).then(() => null, (e: unknown) => e);
    expect(err).toMatchObject({ code: 'snapshot_corrupt', message: expect.stringMatching(/column v4\.dir inflates to (more than )?\d+ bytes, expected/) as string });
    const atRefusal = Buffer.from(new Uint8Array(l.sab));
    await new Promise((r) => setTimeout(r, 400));
    expect(Buffer.from(new Uint8Array(l.sab)).equals(atRefusal)).toBe(true);
  });

  it('refuses a column whose stream inflates past its size at the piece that passes it, not at its end', async () => {
    // v4.dir (2^16 entries, 256 KB raw) stored as ~32 KB of deflate that inflate to 32 MB.
    const zeros = zlib.deflateRawSync(Buffer.alloc(32 << 20));
    const bomb = write('bomb.ipintel', encodeSnapshot(model, { deflate: (raw, level) => (raw.length === 1 << 18 ? zeros : zlib.deflateRawSync(raw, { level })) }));
    const plan = planSnapshotFile(bomb);
    const l = layout(plan);
    await expect(readSharedSnapshot(bomb, plan, l.scratch, l.place)).rejects.toMatchObject({
      code: 'snapshot_corrupt',
      message: 'snapshot is corrupt: column v4.dir inflates to more than 262144 bytes, expected 262144',
    });
  });

  it('refuses scratch or places of the wrong size', async () => {
    const plan = planSnapshotFile(path);
    const l = layout(plan);
    await expect(readSharedSnapshot(path, plan, l.scratch.subarray(0, plan.size - 1), l.place)).rejects.toThrow(RangeError);
    await expect(readSharedSnapshot(path, plan, l.scratch, (c, n) => l.place(c, n).subarray(1))).rejects.toThrow(RangeError);
  });
});

describe('inflateInto (a column inflated piece by piece into its place)', () => {
  const column = (rawSize: number): PlannedColumn => ({ name: 'v4.blk', at: 0, stored: 0, rawSize, deflate: true, filter: null, checksum: 0 });
  // Several pieces' worth of bytes that compress but are not all alike.
  const raw = Buffer.from(Array.from({ length: 3 * INFLATE_PIECE + 12_345 }, (_, i) => ((i * 2654435761) >>> 24) & (i % 7 === 0 ? 0xff : 0x0f)));
  const stored = zlib.deflateRawSync(raw);

  it('lands every byte in place, over several pieces, and says how many the stream held', async () => {
    const to = new Uint8Array(new SharedArrayBuffer(raw.length + 16), 8, raw.length);
    await expect(inflateInto(stored, column(raw.length), to)).resolves.toBe(raw.length);
    expect(Buffer.from(to).equals(raw)).toBe(true);
  });

  it('stops when told (a stopped load): rejects with the reason, and writes nothing after', async () => {
    const to = new Uint8Array(raw.length);
    const stop = new AbortController();
    stop.abort(new Error('another column failed'));
    await expect(inflateInto(stored, column(raw.length), to, stop.signal)).rejects.toThrow('another column failed');
    expect(to.every((b) => b === 0)).toBe(true);
    const later = new AbortController();
    const running = inflateInto(stored, column(raw.length), to, later.signal);
    later.abort(new Error('stopped mid-way'));
    await expect(running).rejects.toThrow('stopped mid-way');
  });

  it('refuses a stream longer than the column as soon as it passes it, without writing past its place; counts a shorter one; refuses one that does not inflate', async () => {
    const sab = new SharedArrayBuffer(raw.length);
    const short = new Uint8Array(sab, 0, raw.length - 1000);
    new Uint8Array(sab).fill(0xee);
    await expect(inflateInto(stored, column(short.length), short)).rejects.toMatchObject({
      code: 'snapshot_corrupt',
      message: expect.stringMatching(new RegExp(`column v4\\.blk inflates to more than ${short.length} bytes`)) as string,
    });
    expect(new Uint8Array(sab, short.length).every((b) => b === 0xee)).toBe(true);
    const longer = new Uint8Array(raw.length + 1000);
    await expect(inflateInto(stored, column(longer.length), longer)).resolves.toBe(raw.length);
    const junk = new Uint8Array(5000).fill(0xff);
    await expect(inflateInto(junk, column(100), new Uint8Array(100))).rejects.toMatchObject({ code: 'snapshot_corrupt', message: expect.stringMatching(/column v4\.blk does not inflate/) as string });
    await expect(inflateInto(stored.subarray(0, stored.length >> 1), column(raw.length), new Uint8Array(raw.length))).rejects.toMatchObject({ code: 'snapshot_corrupt' });
  });
});
