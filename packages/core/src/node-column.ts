/**
 * One column of a snapshot file, for `open()`: read in pieces through a
 * small buffer and inflated as it is read (a zlib stream on the thread
 * pool), its CRC-32 computed piece by piece.
 *
 * Why pieces: reading each blob whole needs a read buffer as large as the
 * largest blob per column in flight (24 MB for a world snapshot with four in
 * flight), which stays in the process's memory as garbage until the next
 * collection, i.e. in the RSS right after the load. A piece buffer per
 * column in flight is READ_PIECE bytes.
 *
 * Same refusals as a whole-blob read: the checksum is checked over the whole
 * blob before anything it decoded is used, and a blob that both fails its
 * checksum and does not inflate is reported as the checksum mismatch.
 *
 * @module
 */
import type { FileHandle } from 'node:fs/promises';
import * as zlib from 'node:zlib';
import { corrupt, IpIntelError } from './errors.js';
import type { Checksum } from './snapshot/checksum.js';
import { inflatedTooLong, inflateFailed, type PlannedColumn } from './snapshot/decode.js';

/** Bytes read at a time per column in flight. */
export const READ_PIECE = 1 << 18;

/**
 * The raw bytes of column `c` of the open file `fh` (its inflated bytes, or
 * its stored bytes when not deflated), read through `piece`. Throws
 * `snapshot_corrupt` on a checksum mismatch or a stream that does not inflate.
 */
export async function readColumn(fh: FileHandle, c: PlannedColumn, piece: Buffer, crc: Checksum): Promise<Uint8Array> {
  if (!c.deflate) return readStored(fh, c, crc);
  // One output buffer of the column's size (+1 so that a stream inflating to more than that shows up as such).
  // A meta that claims a column past what one buffer can hold (a crafted file: its checksums were
  // sealed again) fails here, in zlib's constructor: the file's fault, said as such.
  let z: zlib.InflateRaw;
  try {
    z = zlib.createInflateRaw({ chunkSize: Math.max(64, c.rawSize + 1) });
  } catch (e) {
    throw inflateFailed(c, e);
  }
  const parts: Buffer[] = [];
  let failure: unknown;
  let received = 0;
  let settle!: () => void;
  const ended = new Promise<void>((resolve) => (settle = resolve));
  z.once('end', settle);
  z.once('error', (e) => {
    failure ??= e; // the first failure stands (a stream stopped as too long is not then another error)
    settle();
  });
  z.on('data', (b: Buffer) => {
    received += b.length;
    parts.push(b);
    // A stream longer than the column stops here, not at its end (which may be gigabytes on).
    if (received > c.rawSize && failure === undefined) {
      failure = inflatedTooLong(c);
      z.destroy();
      settle();
    }
  });
  // A piece is handed on once zlib has consumed the one before (its write callback), or, after an
  // error, not at all: zlib never calls back the write it failed on, so `ended` settles the wait.
  const write = (chunk: Buffer): Promise<void> | undefined =>
    failure === undefined ? Promise.race([new Promise<void>((resolve) => void z.write(chunk, () => resolve())), ended]) : undefined;
  const sum = await readPieces(fh, c, piece, write, crc);
  if (sum.read !== c.stored || sum.crc !== c.checksum) {
    z.destroy();
    checked(c, sum);
  }
  z.end();
  await ended;
  if (failure instanceof IpIntelError) throw failure;
  if (failure !== undefined) throw inflateFailed(c, failure);
  return joined(parts);
}

/**
 * The stored blob of column `c`, read straight into a buffer of its own and
 * checked against its checksum (a column stored raw, or one kept as stored
 * until its first use). Throws `snapshot_corrupt` on a mismatch.
 */
export async function readStored(fh: FileHandle, c: PlannedColumn, crc: Checksum): Promise<Uint8Array> {
  const out = Buffer.allocUnsafeSlow(c.stored);
  const sum = await readPieces(fh, c, out, () => undefined, crc);
  checked(c, sum);
  return out;
}

interface Sum {
  readonly read: number;
  readonly crc: number;
}

/** Reads the blob of `c` piece by piece into `into` (from its start each time unless it holds the whole blob), handing each piece to `use` before the next read. */
async function readPieces(fh: FileHandle, c: PlannedColumn, into: Buffer, use: (chunk: Buffer) => Promise<void> | undefined, crc: Checksum): Promise<Sum> {
  const whole = into.length >= c.stored;
  let at = 0;
  let sum = 0;
  while (at < c.stored) {
    const offset = whole ? at : 0;
    const want = whole ? c.stored - at : Math.min(into.length, c.stored - at);
    const { bytesRead } = await fh.read(into, offset, want, c.at + at);
    if (bytesRead === 0) break; // the file shrank under us: the checksum refuses the short blob
    const chunk = into.subarray(offset, offset + bytesRead);
    sum = crc(chunk, sum);
    at += bytesRead;
    await use(chunk);
  }
  return { read: at, crc: sum };
}

function checked(c: PlannedColumn, sum: Sum): void {
  if (sum.read !== c.stored || sum.crc !== c.checksum) throw corrupt(`column ${c.name} checksum mismatch (the file is damaged)`, c.name);
}

/** The inflated pieces as one array: a view when zlib wrote them one after another into one buffer (it does, with chunkSize above the size), else a copy. */
function joined(parts: readonly Buffer[]): Uint8Array {
  if (parts.length === 0) return new Uint8Array(0);
  const first = parts[0]!;
  let end = first.byteOffset + first.length;
  for (let i = 1; i < parts.length; i++) {
    const p = parts[i]!;
    if (p.buffer !== first.buffer || p.byteOffset !== end) return Buffer.concat(parts);
    end += p.length;
  }
  return new Uint8Array(first.buffer, first.byteOffset, end - first.byteOffset);
}
