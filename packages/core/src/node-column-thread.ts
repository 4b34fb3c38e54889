/**
 * One column of a snapshot file inflated on a helper thread, for
 * `openSync()`: while the calling thread reads, inflates and checks the
 * other columns, a short-lived worker thread reads this one (the largest,
 * `v4.blk` in a world snapshot: ~70 of a load's ~130 ms of inflate), checks
 * its CRC-32, inflates it and hands the bytes over (transferred, not
 * copied). The load stays synchronous: the calling thread waits for the
 * result with `Atomics.wait`, and only once every other check has run
 * (decode.ts's `LateColumn`). docs/design.md ("Twentieth round") has the
 * measurements.
 *
 * Never a wrong answer, never a hang: the helper's work is claimed through
 * one shared state word. If the helper has not started when the bytes are
 * needed (a busy machine, a worker that could not start), the caller claims
 * the column and decodes it itself; if the helper takes longer than
 * HELPER_PATIENCE_MS, the caller abandons it and does the same. The helper
 * opens the file by path and refuses to read it unless it is the file the
 * caller holds open (same device, inode, size and modification time), so a
 * snapshot replaced on disk meanwhile is read from the caller's descriptor;
 * so is one the helper cannot open or read (unlinked, no descriptor left).
 * A load that fails before it takes the column abandons the helper, whose
 * result is then dropped, not kept.
 *
 * @module
 */
import type { Stats } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import * as zlib from 'node:zlib';
import { columnInflateOptions } from './node-checksum.js';

/** The state word's values. */
const FREE = 0; // nobody has the column yet
const WORKING = 1; // the helper claimed it
const DONE = 2; // the helper posted its message
const TAKEN = 3; // the caller claimed it before the helper started
const ABANDONED = 4; // the caller stopped waiting; the helper's message, if any, goes nowhere

/** How long the caller waits for a started helper before decoding the column itself. */
export const HELPER_PATIENCE_MS = 10_000;

/** Columns smaller than this are not worth a thread (its start costs ~40 ms of the other core). */
export const HELPER_MIN_STORED = 1 << 20;

/** What the helper posts: the raw bytes, or why it has none. */
type HelperMessage = { raw: Uint8Array } | { mismatch: true } | { changed: true } | { error: string; code?: string };

/** The column the helper is given, and how to know the file is the caller's. */
interface HelperData {
  readonly state: Int32Array;
  readonly port: MessagePort;
  readonly path: string;
  readonly at: number;
  readonly stored: number;
  readonly rawSize: number;
  readonly checksum: number;
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  /** zlib's options for the inflate (node-checksum.ts's columnInflateOptions: bounded by the column's size). */
  readonly inflate: zlib.ZlibOptions;
}

// The helper's program, run as CommonJS (`eval`): no module of ours to resolve, so it starts as
// fast as a worker can. Only a stream that does not inflate is its error to report; anything else
// that goes wrong here (the file gone or replaced, no descriptor left, a read error) says
// `changed`, and the caller decodes the column from its own descriptor, as it would have without
// a helper. The message goes before the state turns DONE, so the caller, woken by DONE, always
// finds it; the state always leaves WORKING; an ABANDONED state means nobody will read it.
const HELPER_SOURCE = `
const { workerData: d } = require('node:worker_threads');
const fs = require('node:fs');
const zlib = require('node:zlib');
function sameFileBlob() {
  let fd;
  try {
    fd = fs.openSync(d.path, 'r');
    const s = fs.fstatSync(fd);
    if (s.dev !== d.dev || s.ino !== d.ino || s.size !== d.size || s.mtimeMs !== d.mtimeMs) return undefined;
    const blob = Buffer.allocUnsafeSlow(d.stored);
    let done = 0;
    while (done < d.stored) {
      const n = fs.readSync(fd, blob, done, d.stored - done, d.at + done);
      if (n === 0) break;
      done += n;
    }
    return blob.subarray(0, done);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) try { fs.closeSync(fd); } catch {}
  }
}
if (Atomics.compareExchange(d.state, 0, ${FREE}, ${WORKING}) === ${FREE}) {
  let message = { changed: true };
  let transfer = [];
  try {
    const blob = sameFileBlob();
    if (blob === undefined) message = { changed: true };
    else if (blob.length !== d.stored || zlib.crc32(blob) !== d.checksum) message = { mismatch: true };
    else {
      let raw;
      try {
        raw = zlib.inflateRawSync(blob, d.inflate);
      } catch (e) {
        message = { error: String((e && e.message) || e), code: e && typeof e.code === 'string' ? e.code : undefined };
      }
      if (raw !== undefined) {
        // Only a buffer of its own transfers (a small one may sit in Buffer's shared pool).
        const own = raw.byteOffset === 0 && raw.buffer.byteLength - raw.byteLength <= 1 ? raw : new Uint8Array(raw);
        message = { raw: own };
        transfer = [own.buffer];
      }
    }
  } catch {
    message = { changed: true };
    transfer = [];
  }
  try {
    d.port.postMessage(message, transfer);
  } catch {
    try { d.port.postMessage({ changed: true }); } catch {}
  } finally {
    try { d.port.close(); } catch {}
    if (Atomics.compareExchange(d.state, 0, ${WORKING}, ${DONE}) === ${WORKING}) Atomics.notify(d.state, 0);
  }
}
`;

/** A column handed to a helper thread. */
export interface ColumnOnThread {
  /**
   * The helper's result, waiting for it if it has started: its raw bytes
   * (length not yet checked), `mismatch` (the stored blob failed its
   * checksum), `{ error, code }` (it does not inflate, or inflates past the
   * column's size: zlib's message and code), or
   * undefined: the caller decodes the column itself (the helper had not
   * started, was too slow, or saw another file at the path).
   */
  take(): Uint8Array | 'mismatch' | { error: string; code?: string } | undefined;
  /** Whether the helper has claimed the column (it then finishes it, unless abandoned). */
  started(): boolean;
  /**
   * Gives up on the helper's result, if not taken (a load that failed
   * first): a helper not yet started never starts, a working one's result
   * is dropped with the port (not kept in its queue). `take` then answers
   * undefined.
   */
  abandon(): void;
}

/** Whether a helper can check a column: zlib's native CRC-32 (Node 20.15+), which its program uses. */
export const helperCanCheck: boolean = typeof (zlib as { crc32?: unknown }).crc32 === 'function';

/** Whether this process may use a helper: a second core to run it on, and zlib's native CRC-32. */
export function helperAvailable(): boolean {
  return availableParallelism() > 1 && helperCanCheck;
}

/**
 * Starts a helper thread on the column stored at `at` (`stored` bytes,
 * CRC-32 `checksum`, inflating to `rawSize`) of the file at `path`, which
 * the caller holds open with stats `stat`. Undefined if no thread could be
 * started, or this Node's zlib has no CRC-32 (the caller then decodes the
 * column itself).
 */
export function inflateOnThread(
  path: string,
  stat: Stats,
  c: { readonly at: number; readonly stored: number; readonly rawSize: number; readonly checksum: number },
): ColumnOnThread | undefined {
  if (!helperCanCheck) return undefined;
  const state = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const data: HelperData = {
    state,
    port: port2,
    path: resolve(path),
    at: c.at,
    stored: c.stored,
    rawSize: c.rawSize,
    checksum: c.checksum,
    dev: stat.dev,
    ino: stat.ino,
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    inflate: columnInflateOptions(c.rawSize),
  };
  let worker: Worker;
  try {
    worker = new Worker(HELPER_SOURCE, { eval: true, workerData: data, transferList: [port2] });
  } catch {
    port1.close();
    return undefined; // no threads here (a permission model, a resource limit): decode it on this one
  }
  worker.unref(); // never keeps the process alive
  worker.on('error', () => {}); // a helper that fails leaves its column to the caller (state not DONE)
  let closed = false;
  const close = (): void => {
    closed = true;
    port1.close();
  };
  return {
    take() {
      if (closed) return undefined;
      let was = Atomics.compareExchange(state, 0, FREE, TAKEN);
      if (was === WORKING) {
        Atomics.wait(state, 0, WORKING, HELPER_PATIENCE_MS);
        was = Atomics.compareExchange(state, 0, WORKING, ABANDONED);
      }
      const message = was === DONE ? (receiveMessageOnPort(port1)?.message as HelperMessage | undefined) : undefined;
      close();
      if (message === undefined || 'changed' in message) return undefined;
      if ('raw' in message) return message.raw;
      if ('mismatch' in message) return 'mismatch';
      return message;
    },
    started: () => Atomics.load(state, 0) !== FREE && Atomics.load(state, 0) !== TAKEN,
    abandon() {
      if (closed) return;
      if (Atomics.compareExchange(state, 0, FREE, TAKEN) !== FREE) Atomics.compareExchange(state, 0, WORKING, ABANDONED);
      close();
    },
  };
}
