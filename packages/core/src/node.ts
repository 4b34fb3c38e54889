/**
 * The Node layer: opening a snapshot by path, and the default snapshot's
 * location. Everything else is the portable core.
 *
 * Files are read column by column (positioned reads), so no buffer as large
 * as the whole file is ever held: memory after load is the columns alone.
 * `open()` inflates several columns at once on libuv's thread pool;
 * `openSync()` hands its largest column to a helper thread
 * (node-column-thread.ts). Unless
 * `preload` is set, the IPv6 index columns are read and checksummed but
 * kept as stored (a copy of their blobs, 5 MB of the world snapshot) and
 * inflated on the first call that needs them (snapshot/decode.ts).
 *
 * The default snapshot (no path given) is found by default-snapshot.ts:
 * `$IPINTEL_SNAPSHOT`, else the installed `@ipintel/data` package.
 *
 * @module
 */
import { closeSync, fstatSync, openSync as openFd, readFileSync, readSync } from 'node:fs';
import { open as openFile, type FileHandle } from 'node:fs/promises';
import * as zlib from 'node:zlib';
import { READ_NOW, defaultSnapshotPath, namesNoFile, openSnapshotFd, snapshotFileSize, snapshotNotFound } from './default-snapshot.js';
import { IpIntelError, quoteInput } from './errors.js';
import { LOAD_OPTION_KINDS, checkLoadOptions, type Kind } from './load-options.js';
import { IpIntel, fromSharedWith, loadSnapshotWith, type LoadOptions } from './intel.js';
import type { SharedSnapshot } from './shared.js';
import {
  checkBlob,
  columnBytes,
  decodeSnapshot,
  finishSnapshot,
  blobMismatch,
  inflateFailed,
  isDeferred,
  keptAsStored,
  parseHeader,
  parsePrelude,
  type DecodedSnapshot,
  type Inflate,
  type LateColumn,
  type PlannedColumn,
  type Prelude,
} from './snapshot/decode.js';
import { HEADER_SIZE, type ColumnName } from './snapshot/format.js';
import { columnInflateOptions, nodeCrc32 } from './node-checksum.js';
import { READ_PIECE, readColumn, readStored } from './node-column.js';
import { HELPER_MIN_STORED, helperAvailable, inflateOnThread, type ColumnOnThread } from './node-column-thread.js';

/** Native zlib reads the same deflate-raw stream as fflate, several times faster (its options: node-checksum.ts). */
export const nodeInflate: Inflate = (stored, rawSize) => zlib.inflateRawSync(stored, columnInflateOptions(rawSize));

function inflateAsync(stored: Uint8Array, rawSize: number): Promise<Uint8Array> {
  return new Promise((res, rej) => {
    zlib.inflateRaw(stored, columnInflateOptions(rawSize), (err, out) => (err ? rej(err) : res(out)));
  });
}

/** Columns inflating at once in `open()`: enough to keep both cores busy, few enough to bound memory. */
const PARALLEL_COLUMNS = 4;

/** Reads `length` bytes at `position` into `into` (reused across columns) or a new buffer of its own (not a slice of Node's pool). */
function readFully(fd: number, length: number, position: number, into?: Buffer): Uint8Array {
  const buf = into !== undefined && into.length >= length ? into.subarray(0, length) : Buffer.allocUnsafeSlow(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buf, done, length - done, position + done);
    if (n === 0) break; // the file shrank under us: the checks below refuse the short blob
    done += n;
  }
  return done === length ? buf : buf.subarray(0, done);
}

async function readFullyAsync(fh: FileHandle, length: number, position: number, into?: Buffer): Promise<Uint8Array> {
  const buf = into !== undefined && into.length >= length ? into.subarray(0, length) : Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(buf, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === length ? buf : buf.subarray(0, done);
}

/** `source` if it is a path or bytes (or absent: the default snapshot); `invalid_input` otherwise. */
function sourceArgument(source: unknown, fn: string): string | Uint8Array | undefined {
  if (source === undefined || typeof source === 'string' || source instanceof Uint8Array) return source;
  const hint = source instanceof ArrayBuffer ? '; wrap an ArrayBuffer as new Uint8Array(buffer)' : '';
  throw new IpIntelError('invalid_input', `${fn} expects a snapshot path (string) or its bytes (Uint8Array), got ${quoteInput(source)}${hint}`);
}

/** Starts a helper thread on a column (node-column-thread.ts); tests pass one that records what it did. */
export type StartHelper = typeof inflateOnThread;

/**
 * Reads and decodes a snapshot file column by column (the IPv6 index's on
 * first use unless `preload`), the largest column to inflate on a helper
 * thread (`startHelper`) when one can run. Errors are the ones a load
 * without a helper reports: a fault the helped column has would have been
 * found before any fault of a column after it, so one found there first
 * waits for the helped column's verdict (here and in finishSnapshot).
 */
export function readFileSnapshotSync(path: string, inflate: Inflate, preload: boolean, startHelper: StartHelper = inflateOnThread): DecodedSnapshot {
  const fd = openSnapshotFd(path);
  let onThread: ColumnOnThread | undefined;
  try {
    const stat = fstatSync(fd);
    const size = snapshotFileSize(stat, path);
    const header = parseHeader(readFully(fd, Math.min(size, HEADER_SIZE), 0), size);
    const prelude = parsePrelude(header, readFully(fd, 4 + header.metaSize, HEADER_SIZE));
    const raw = new Map<ColumnName, Uint8Array | LateColumn>();
    let inflated = prelude.columns.filter((c) => !keptAsStored(c, preload));
    const kept = prelude.columns.filter((c) => keptAsStored(c, preload));
    // The largest column to inflate goes to a helper thread, if one can start (node-column-thread.ts).
    const helped = inflate === nodeInflate && helperAvailable() ? helpedColumn(inflated) : undefined;
    onThread = helped === undefined ? undefined : startHelper(path, stat, helped);
    let late: LateColumn | undefined;
    if (helped !== undefined && onThread !== undefined) {
      inflated = inflated.filter((c) => c !== helped);
      late = once(() => lateColumn(fd, helped, onThread!));
      raw.set(helped.name, late);
    }
    // One read buffer for every column inflated now, which is then the buffer of the largest
    // column kept as stored (read last): no read buffer left for the GC.
    const scratchSize = Math.max(0, ...inflated.map((c) => c.stored));
    const host = scratchHost(kept, scratchSize);
    const scratch = Buffer.allocUnsafeSlow(Math.max(scratchSize, host?.stored ?? 0));
    let at: PlannedColumn | undefined;
    try {
      for (const c of inflated) {
        at = c;
        raw.set(c.name, columnBytes(c, readFully(fd, c.stored, c.at, scratch), inflate, nodeCrc32));
      }
      for (const c of kept) {
        at = c;
        // Kept as stored (raw, or until first use): read straight into its buffer and checked now;
        // through a read buffer it would be copied out again (9 MB for leaf.ids).
        const blob = readFully(fd, c.stored, c.at, c === host ? scratch : undefined);
        checkBlob(c, blob, nodeCrc32);
        raw.set(c.name, blob);
      }
    } catch (e) {
      // Without a helper, the helped column's own fault would have come first unless this column is before it.
      const after = (c: PlannedColumn): boolean => kept.includes(c) || prelude.columns.indexOf(c) > prelude.columns.indexOf(helped!);
      if (late !== undefined && at !== undefined && after(at)) late();
      throw e;
    }
    return finishSnapshot(prelude, raw, preload ? undefined : inflate);
  } finally {
    onThread?.abandon(); // a no-op once taken; else its result is dropped, not kept in the port's queue
    closeSync(fd);
  }
}

/** `f`, run once: later calls return its value or throw its error again. */
function once<T>(f: () => T): () => T {
  let result: { value: T } | { error: unknown } | undefined;
  return () => {
    if (result === undefined) {
      try {
        result = { value: f() };
      } catch (error) {
        result = { error };
      }
    }
    if ('error' in result) throw result.error;
    return result.value;
  };
}

/** The column `openSync` hands to a helper thread: the largest of those it inflates now, if large enough to be worth one. */
export function helpedColumn(inflated: readonly PlannedColumn[]): PlannedColumn | undefined {
  const largest = largestStored(inflated);
  return largest !== undefined && largest.stored >= HELPER_MIN_STORED ? largest : undefined;
}

/** The column of `columns` with the most stored bytes (the first of equals), or undefined. */
function largestStored(columns: readonly PlannedColumn[]): PlannedColumn | undefined {
  let largest: PlannedColumn | undefined;
  for (const c of columns) if (largest === undefined || c.stored > largest.stored) largest = c;
  return largest;
}

/** A helped column's raw bytes: the helper's, or, if it did not decode it, read and inflated here from the caller's descriptor. */
function lateColumn(fd: number, c: PlannedColumn, onThread: ColumnOnThread): Uint8Array {
  const got = onThread.take();
  if (got === undefined) return columnBytes(c, readFully(fd, c.stored, c.at), nodeInflate, nodeCrc32);
  if (got === 'mismatch') throw blobMismatch(c);
  if (got instanceof Uint8Array) return got;
  throw inflateFailed(c, Object.assign(new Error(got.error), { code: got.code }));
}

/** Bytes a column's buffer may carry past its end for serving as the read buffer first (or an eighth of the column, if more). */
export const HOST_SLACK = 1 << 20;

/**
 * The column kept as stored whose buffer `openSync` first uses as the read
 * buffer of the columns it inflates (`scratchSize`: their largest blob), or
 * undefined: the largest such column, unless that buffer would have to be
 * more than HOST_SLACK (or an eighth of the column) longer than it. Why: on a
 * machine slow at page faults, the fresh memory of a separate read buffer
 * (9.5 MB for the world snapshot) cost ~40 ms of the load (docs/design.md,
 * "Sixteenth round"); the world's leaf.ids takes it for 0.3 MB more.
 */
export function scratchHost(kept: readonly PlannedColumn[], scratchSize: number): PlannedColumn | undefined {
  const host = largestStored(kept);
  if (host === undefined || scratchSize - host.stored > Math.max(HOST_SLACK, host.stored / 8)) return undefined;
  return host;
}

/** Decodes the planned columns, at most PARALLEL_COLUMNS at a time; `rawOf(c, slot)` gives a column's checked raw bytes (`slot`: which of the parallel readers asks). */
async function columnsAsync(prelude: Prelude, rawOf: (c: PlannedColumn, slot: number) => Promise<Uint8Array>, later: Inflate | undefined): Promise<DecodedSnapshot> {
  const raw = new Map<ColumnName, Uint8Array>();
  const queue = [...prelude.columns].sort((a, b) => b.stored - a.stored); // largest first: best overlap
  const worker = async (slot: number): Promise<void> => {
    for (let c = queue.shift(); c !== undefined; c = queue.shift()) raw.set(c.name, await rawOf(c, slot));
  };
  await Promise.all(Array.from({ length: PARALLEL_COLUMNS }, (_, slot) => worker(slot)));
  return finishSnapshot(prelude, raw, later);
}

/** A column of in-memory snapshot bytes: checked, then inflated on the thread pool (or copied: stored raw, or waiting for its first use). */
async function columnOfBytes(c: PlannedColumn, bytes: Uint8Array, preload: boolean): Promise<Uint8Array> {
  const blob = bytes.subarray(c.at, c.at + c.stored);
  checkBlob(c, blob, nodeCrc32);
  if (keptAsStored(c, preload)) return new Uint8Array(blob);
  try {
    return await inflateAsync(blob, c.rawSize);
  } catch (e) {
    throw inflateFailed(c, e);
  }
}

async function readFileSnapshot(path: string, preload: boolean): Promise<DecodedSnapshot> {
  const fh = await openFile(path, READ_NOW).catch((e: unknown) => {
    throw namesNoFile(e) ? snapshotNotFound(path) : e;
  });
  try {
    const size = snapshotFileSize(await fh.stat(), path);
    const header = parseHeader(await readFullyAsync(fh, Math.min(size, HEADER_SIZE), 0), size);
    const prelude = parsePrelude(header, await readFullyAsync(fh, 4 + header.metaSize, HEADER_SIZE));
    // Each parallel reader reads its columns in pieces through one small buffer (node-column.ts says why).
    const pieces = Array.from({ length: PARALLEL_COLUMNS }, () => Buffer.allocUnsafe(READ_PIECE));
    const rawOf = (c: PlannedColumn, slot: number): Promise<Uint8Array> =>
      isDeferred(c.name, preload) ? readStored(fh, c, nodeCrc32) : readColumn(fh, c, pieces[slot]!, nodeCrc32);
    return await columnsAsync(prelude, rawOf, preload ? undefined : nodeInflate);
  } finally {
    await fh.close();
  }
}

export interface OpenOptions extends LoadOptions {
  /** Where the explain sidecar is (default: the snapshot's path + `.explain`); read only when an explanation is asked for. */
  readonly explainPath?: string;
}

/**
 * What each option of `open`/`openSync` must be: the load options, and
 * `explainPath` a string (a number would be read as a file descriptor: stdin
 * for 0, a wait for input that may never end).
 */
const OPEN_OPTION_KINDS: Readonly<Record<keyof OpenOptions, Kind>> = { ...LOAD_OPTION_KINDS, explainPath: 'string' };

/** The sidecar suffix: `world.ipintel` is explained by `world.ipintel.explain`. */
export const EXPLAIN_SUFFIX = '.explain';

/** Load options with the sidecar read lazily from its file, and Node's inflate for it. */
function withSidecar(path: string | null, options: OpenOptions | undefined): LoadOptions {
  const file = options?.explainPath ?? (path === null ? null : path + EXPLAIN_SUFFIX);
  const unavailable = (f: string, what: string): IpIntelError =>
    new IpIntelError('explain_unavailable', `no explain sidecar at ${f}${what}: build the snapshot without --no-explain, or pass explainPath`, f);
  const read = (f: string) => (): Uint8Array => {
    let fd: number;
    try {
      fd = openFd(f, READ_NOW);
    } catch (e) {
      if (namesNoFile(e)) throw unavailable(f, '');
      if ((e as NodeJS.ErrnoException).code === 'EISDIR') throw unavailable(f, ' (a directory)'); // where a directory cannot be opened (Windows)
      throw e;
    }
    try {
      // Only a regular file, as for the snapshot: a directory's read fails with a bare EISDIR, and a
      // pipe's or device's may never end (/dev/zero read until memory runs out).
      const stat = fstatSync(fd);
      if (!stat.isFile()) throw unavailable(f, stat.isDirectory() ? ' (a directory)' : ' (not a regular file)');
      return readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  };
  return { ...options, inflate: options?.inflate ?? nodeInflate, ...(options?.explain === undefined && file !== null ? { explain: read(file) } : {}) };
}

/**
 * Opens a snapshot from a path or bytes (default: the default snapshot).
 * Every column's checksum is checked now; the IPv6 index columns are
 * inflated and checked on the first call that needs them unless
 * `options.preload` (see {@link LoadOptions}).
 * Throws `IpIntelError`: `snapshot_not_found`, `snapshot_corrupt`, `snapshot_version`.
 *
 * @example
 * const intel = await open(); intel.check('8.8.8.8').geo.country_code // => 'US'
 * const server = await open(path, { preload: true }); // everything decoded and checked now
 */
export async function open(given?: string | Uint8Array, options?: OpenOptions): Promise<IpIntel> {
  const source = sourceArgument(given, 'open');
  options = checkLoadOptions(options, 'open', OPEN_OPTION_KINDS);
  const preload = options?.preload === true;
  if (source instanceof Uint8Array) {
    const header = parseHeader(source, source.length);
    const prelude = parsePrelude(header, source.subarray(HEADER_SIZE, HEADER_SIZE + 4 + header.metaSize));
    const decoded = await columnsAsync(prelude, (c) => columnOfBytes(c, source, preload), preload ? undefined : (options?.inflate ?? nodeInflate));
    return new IpIntel(decoded, withSidecar(null, options));
  }
  const path = source ?? defaultSnapshotPath();
  if (options?.inflate) return new IpIntel(readFileSnapshotSync(path, options.inflate, preload), withSidecar(path, options));
  return new IpIntel(await readFileSnapshot(path, preload), withSidecar(path, options));
}

/**
 * Loads a snapshot from bytes, inflating with Node's native zlib (the
 * portable entry's `loadSnapshot` uses fflate). Throws `IpIntelError`
 * `snapshot_corrupt` / `snapshot_version`.
 *
 * @example
 * const intel = loadSnapshot(readFileSync(path));
 */
export function loadSnapshot(bytes: Uint8Array, options?: LoadOptions): IpIntel {
  return loadSnapshotWith(bytes, options, nodeInflate);
}

/**
 * Opens a snapshot shared by another thread (`IpIntel#share()`). Every
 * column's type and every index invariant is checked again (the object may
 * come from anywhere); the decoded columns are not copied. IPv6 columns
 * shared as stored are checked against the meta's lengths and checksums now
 * and decoded, into this thread's own memory, by its first IPv6 call (with
 * `options.inflate`, or this entry's default), as a file's are. Throws
 * `IpIntelError` `snapshot_corrupt`.
 *
 * @example
 * new Worker(url, { workerData: intel.share() }); // in the worker: fromShared(workerData)
 */
export function fromShared(shared: SharedSnapshot, options?: LoadOptions): IpIntel {
  return fromSharedWith(shared, options, nodeInflate, nodeCrc32);
}

/**
 * Synchronous {@link open} (`preload` as there). A file's columns are read and
 * inflated one after another on this thread, but the largest one, which a
 * helper thread inflates meanwhile when this process has a second core
 * (node-column-thread.ts); the call blocks until the snapshot is checked.
 */
export function openSync(given?: string | Uint8Array, options?: OpenOptions): IpIntel {
  const source = sourceArgument(given, 'openSync');
  options = checkLoadOptions(options, 'openSync', OPEN_OPTION_KINDS);
  const inflate = options?.inflate ?? nodeInflate;
  const preload = options?.preload === true;
  if (source instanceof Uint8Array) return new IpIntel(decodeSnapshot(source, inflate, nodeCrc32, preload), withSidecar(null, options));
  const path = source ?? defaultSnapshotPath();
  return new IpIntel(readFileSnapshotSync(path, inflate, preload), withSidecar(path, options));
}
