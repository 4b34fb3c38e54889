/**
 * Reading a snapshot file straight into shared memory that the caller lays
 * out: the CLI's batch, whose threads and WebAssembly kernel share one
 * memory (`@ipintel/core/internal`). Where `openSync()` + `shareInto()`
 * reads the file into buffers of its own, inflates each column into another
 * and then copies every column into the shared memory (three sets of fresh
 * pages), this reads the file into the caller's scratch (memory it can use
 * again afterwards), inflates the columns on the thread pool, several at a
 * time, piece by piece straight into its place (no buffer as large as a
 * column in between).
 *
 * Only checksums and sizes are checked here: the result is a SharedSnapshot
 * to open with `fromShared`, which checks every invariant, as a load does,
 * or with `fromSharedButIndex4` while another thread runs the IPv4 index's
 * checks (`checkSharedIndex4`, the longest of them).
 *
 * @module
 */
import { closeSync, fstatSync, readSync } from 'node:fs';
import * as zlib from 'node:zlib';
import { openSnapshotFd, snapshotFileSize } from './default-snapshot.js';
import { corrupt } from './errors.js';
import type { SharedSnapshot } from './shared.js';
import { checkBlob, columnView, inflatedTooLong, inflateFailed, isDeferred, parseHeader, parsePrelude, sharedColumn, type Header, type PlannedColumn, type Prelude } from './snapshot/decode.js';
import { HEADER_SIZE } from './snapshot/format.js';
import { nodeCrc32 } from './node-checksum.js';
import { fromSharedWith, type IpIntel, type LoadOptions } from './intel.js';
import { nodeInflate } from './node.js';
import { validateIndex4 } from './snapshot/validate.js';

/** A snapshot file's header and meta, read first: its size and every column's place in it. */
export interface SnapshotFilePlan {
  /** The file's bytes (the scratch must hold them). */
  readonly size: number;
  readonly header: Header;
  readonly prelude: Prelude;
}

/** Columns inflating at once: enough to keep both cores busy. */
const PARALLEL = 4;

function readAll(fd: number, into: Uint8Array, position: number): number {
  let done = 0;
  while (done < into.length) {
    const n = readSync(fd, into, done, into.length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/** The plan of the snapshot file at `path`: its header and meta (checked), nothing else read. */
export function planSnapshotFile(path: string): SnapshotFilePlan {
  const fd = openSnapshotFd(path);
  try {
    const size = snapshotFileSize(fstatSync(fd), path);
    const head = new Uint8Array(Math.min(size, HEADER_SIZE));
    const header = parseHeader(head.subarray(0, readAll(fd, head, 0)), size);
    const meta = new Uint8Array(4 + header.metaSize);
    if (readAll(fd, meta, HEADER_SIZE) !== meta.length) throw corrupt('file is truncated', 'header');
    return { size, header, prelude: parsePrelude(header, meta) };
  } finally {
    closeSync(fd);
  }
}

/** Whether column `c` stays as stored (the IPv6 index: decoded on its first use by whoever opens the snapshot). */
export function keptStored(c: PlannedColumn): boolean {
  return isDeferred(c.name, false);
}

/** The bytes column `c` takes in memory: as stored while it waits for its first use, else decoded. */
export function placedBytes(c: PlannedColumn): number {
  return keptStored(c) ? c.stored : c.rawSize;
}

/**
 * Bytes zlib hands over at a time when a column is inflated into its place.
 * Two-job batches of the bench's million lines, alternating fresh processes
 * (docs/design.md, "Twentieth round"): 64 KB pieces took 0.99 s against 0.89
 * for the whole-column inflate and copy; in another run 256 KB 0.91, 1 MB
 * 0.85 and 4 MB 0.87 s against 0.95.
 */
export const INFLATE_PIECE = 1 << 20;

/**
 * Inflates column `c`'s stored blob straight into `to` (its place), piece by
 * piece as zlib hands them over on the thread pool: each piece is copied
 * while it is still in the caches, and no buffer as large as the column is
 * ever made (on this host fresh memory costs more than the copy). Resolves
 * with the bytes the stream holds (copied only up to `to.length`); a stream
 * that holds more than the column (`c.rawSize`) is refused as soon as it
 * passes it (`snapshot_corrupt`), not inflated to its end.
 */
export function inflateInto(blob: Uint8Array, c: PlannedColumn, to: Uint8Array, signal?: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const z = zlib.createInflateRaw({ chunkSize: INFLATE_PIECE });
    let at = 0;
    let settled = false;
    const stop = (): void => {
      z.destroy(); // no piece is copied after this; 'close' settles the promise
    };
    z.on('data', (piece: Buffer) => {
      if (signal?.aborted === true || settled) return;
      // A stream longer than the column is refused as soon as it passes it, not inflated to its end.
      if (at + piece.length > c.rawSize) {
        settled = true;
        reject(inflatedTooLong(c));
        stop();
        return;
      }
      if (at + piece.length <= to.length) to.set(piece, at);
      at += piece.length;
    });
    z.once('error', (e) => {
      settled = true;
      reject(inflateFailed(c, e));
    });
    z.once('end', () => {
      settled = true;
      resolve(at);
    });
    z.once('close', () => {
      signal?.removeEventListener('abort', stop);
      const why: unknown = signal?.reason;
      if (!settled) reject(why instanceof Error ? why : corrupt(`column ${c.name}: inflate stopped`, c.name));
    });
    if (signal?.aborted === true) stop();
    else {
      signal?.addEventListener('abort', stop, { once: true });
      z.end(blob);
    }
  });
}

/**
 * Reads the file `plan` was made of into `scratch` (at least `plan.size`
 * bytes of shared memory, which the caller may use again once this has
 * returned), checks every column's checksum, and puts each column in the
 * shared memory `place(c, placedBytes(c))` gives (a view at a multiple of
 * 8): the main columns decoded (inflated on the thread pool, filters undone
 * in place), the IPv6 index's as stored. Throws `snapshot_corrupt` for a
 * checksum or size that does not hold, or a file that changed since `plan`.
 * Open the result with fromShared before trusting it.
 */
export async function readSharedSnapshot(path: string, plan: SnapshotFilePlan, scratch: Uint8Array, place: (c: PlannedColumn, bytes: number) => Uint8Array): Promise<SharedSnapshot> {
  if (scratch.length < plan.size) throw new RangeError(`the scratch holds ${scratch.length} bytes, the file ${plan.size}`);
  const fd = openSnapshotFd(path);
  let file: Uint8Array;
  try {
    const size = snapshotFileSize(fstatSync(fd), path);
    file = scratch.subarray(0, size);
    if (size !== plan.size || readAll(fd, file, 0) !== size) throw corrupt('the file changed while it was read', 'header');
  } finally {
    closeSync(fd);
  }
  // The same header (and so the same meta, whose checksum it holds) as planned: a file replaced between the
  // two reads is refused, not mixed; the columns are checked against the planned checksums below.
  const header = parseHeader(file, file.length);
  const was = plan.header;
  if (header.storedSize !== was.storedSize || header.metaSize !== was.metaSize || header.metaChecksum !== was.metaChecksum || header.flags !== was.flags) {
    throw corrupt('the file changed while it was read', 'header');
  }
  const columns: Record<string, ArrayBufferView> = {};
  const v6Stored: Record<string, Uint8Array> = {};
  const placeOf = (c: PlannedColumn, bytes: number): Uint8Array => {
    const to = place(c, bytes);
    if (to.length !== bytes || to.byteOffset % 8 !== 0) throw new RangeError(`column ${c.name} was given ${to.length} bytes at ${to.byteOffset}`);
    return to;
  };
  const put = (c: PlannedColumn, bytes: Uint8Array): void => {
    const to = placeOf(c, bytes.length);
    to.set(bytes);
    if (keptStored(c)) v6Stored[c.name] = to;
    else columns[c.name] = columnView(c.name, to, c.rawSize, c.filter);
  };
  const deflated: PlannedColumn[] = [];
  for (const c of plan.prelude.columns) {
    const blob = file.subarray(c.at, c.at + c.stored);
    checkBlob(c, blob, nodeCrc32);
    if (keptStored(c) || !c.deflate) put(c, blob);
    else deflated.push(c);
  }
  // Largest first, a few at a time on the thread pool, each into its place (inflateInto). The first
  // column that fails stops the others (their streams destroyed, nothing left in the queue), and this
  // returns only once they have stopped: nothing writes into the caller's memory after it.
  const queue = deflated.sort((a, b) => b.rawSize - a.rawSize);
  const failed = new AbortController();
  const next = async (): Promise<void> => {
    for (let c = queue.shift(); c !== undefined && !failed.signal.aborted; c = queue.shift()) {
      const to = placeOf(c, c.rawSize);
      const got = await inflateInto(file.subarray(c.at, c.at + c.stored), c, to, failed.signal);
      if (got !== c.rawSize) throw corrupt(`column ${c.name} inflates to ${got} bytes, expected ${c.rawSize}`, c.name);
      columns[c.name] = columnView(c.name, to, c.rawSize, c.filter);
    }
  };
  const stopOthers = (e: unknown): never => {
    if (!failed.signal.aborted) failed.abort(e);
    throw e;
  };
  await Promise.allSettled(Array.from({ length: PARALLEL }, () => next().catch(stopOthers)));
  if (failed.signal.aborted) throw failed.signal.reason;
  const hasV6 = Object.keys(v6Stored).length > 0;
  return Object.freeze({ meta: plan.prelude.meta, columns: Object.freeze(columns), ...(hasV6 ? { v6Stored: Object.freeze(v6Stored) } : {}) });
}

/**
 * `fromShared` with every check but the IPv4 index's (the longest, ~45-70
 * ms for the world snapshot), which the caller has another thread run
 * meanwhile with {@link checkSharedIndex4}: the CLI's batch, whose waiting
 * worker does it while the main thread checks the rest. Nothing may be looked
 * up until that check has passed. Throws `snapshot_corrupt`.
 */
export function fromSharedButIndex4(shared: SharedSnapshot, options?: LoadOptions): IpIntel {
  return fromSharedWith(shared, options, nodeInflate, nodeCrc32, false);
}

/** The IPv4 index's checks that {@link fromSharedButIndex4} leaves out (columns typed, blocks and table entries well formed). Throws `snapshot_corrupt`. */
export function checkSharedIndex4(shared: SharedSnapshot): void {
  const columns = shared.columns as Readonly<Record<string, unknown>>;
  validateIndex4({ 'v4.dir': sharedColumn(columns, 'v4.dir'), 'v4.blk': sharedColumn(columns, 'v4.blk'), 'leaf.ids': sharedColumn(columns, 'leaf.ids') });
}
