/**
 * Loading the snapshot for a batch: straight into the memory the run's
 * threads share (space.ts), where its columns will be read by every
 * kernel and every thread's results, instead of opening it (buffers of its
 * own) and copying it there afterwards.
 *
 * The memory starts with the columns, each in its place; after them, the
 * file is read into scratch (core's readSharedSnapshot inflates the columns
 * from there on the thread pool), and the scratch is then where the kernel's
 * own regions go (createKernelSpace's `freeFrom`): its pages are in memory
 * already. The snapshot is then checked as every load checks it
 * (fromShared: every invariant), the IPv4 index's on a worker that would
 * otherwise wait for its setup (docs/design.md, "Twentieth round").
 *
 * Tried and not kept: waiting workers touching the columns' pages while the
 * main thread reads (so that its copies into them would not stop on page
 * faults): ~170 ms of the worker's time for 65 MB here, taken from the cores
 * the thread pool inflates on; two jobs 0.98-1.26 s (median 1.19) against
 * 0.97-1.20 s (1.05) without (docs/design.md, "Nineteenth round").
 *
 * @module
 */
import { fromShared, IpIntelError, nodeInflate, type IpIntel, type SharedSnapshot } from '@ipintel/core';
import { checkSharedIndex4, fromSharedButIndex4, placedBytes, planSnapshotFile, readSharedSnapshot, type PlannedColumn } from '@ipintel/core/internal';
import type { WorkerPool } from './pool.js';
import { align, MAX_SPACE_BYTES, newSpaceMemory, type WasmMemory } from './space.js';

/** What a batch's load leaves: the snapshot, opened over the shared memory, and where that memory is free again. */
export interface BatchLoad {
  readonly intel: IpIntel;
  readonly memory: WasmMemory;
  readonly shared: SharedSnapshot;
  /** The first byte after the columns that the kernel may use (the file's scratch). */
  readonly freeFrom: number;
  /**
   * Settles once the IPv4 index has passed its checks (rejects with core's
   * error if not): await it before looking up any address. Settled already
   * when this thread ran them.
   */
  readonly indexChecked: Promise<void>;
}

/**
 * Loads the snapshot at `path` into a new shared memory. Throws core's
 * snapshot errors. With `workers` (started before the load), they open it as
 * soon as it is read, and the first checks its IPv4 index (the longest
 * check) while this thread checks the rest; `indexChecked` settles once
 * that check has passed. This thread runs it itself if the worker has not
 * started it by the time this thread's checks are done (unless
 * `leaveIndexToWorker`, a test hook: then it waits for the worker), and
 * again if it failed there (for the error to report).
 */
export async function loadForBatch(path: string, workers?: WorkerPool | null, leaveIndexToWorker = false): Promise<BatchLoad> {
  const plan = planSnapshotFile(path);
  const places = new Map<string, number>();
  let at = 64; // address 0 stays unused
  for (const c of plan.prelude.columns) {
    places.set(c.name, at);
    at = align(at + placedBytes(c));
  }
  const columnsEnd = at;
  const scratchAt = align(columnsEnd);
  // The columns and the file side by side in one WebAssembly memory (at most MAX_SPACE_BYTES): a meta that
  // claims more is no snapshot this batch can hold, said before the memory is asked for (a bare RangeError).
  if (scratchAt + plan.size > MAX_SPACE_BYTES) {
    throw new IpIntelError('snapshot_corrupt', `${path}: its columns claim ${scratchAt} bytes, more than a batch holds (${MAX_SPACE_BYTES} with the file)`, path);
  }
  const memory = newSpaceMemory(scratchAt + plan.size);
  const scratch = new Uint8Array(memory.buffer, scratchAt, plan.size);
  const place = (c: PlannedColumn, bytes: number): Uint8Array => new Uint8Array(memory.buffer, places.get(c.name), bytes);
  const shared = await readSharedSnapshot(path, plan, scratch, place);
  // Every invariant a lookup relies on, checked as openSync checks them: the IPv4 index's on a
  // waiting worker meanwhile, if there is one (its verdict awaited before anything is looked up).
  if (workers === undefined || workers === null) return { intel: fromShared(shared, { inflate: nodeInflate }), memory, shared, freeFrom: scratchAt, indexChecked: Promise.resolve() };
  const index4 = workers.open(shared);
  const intel = fromSharedButIndex4(shared, { inflate: nodeInflate });
  let indexChecked = Promise.resolve();
  // A worker still starting leaves the check to this thread; a worker's failure (or its pool's) too, for the error.
  if (!leaveIndexToWorker && index4.takeBack()) checkSharedIndex4(shared);
  else {
    indexChecked = index4.verdict.then((ok) => {
      if (!ok) checkSharedIndex4(shared);
    });
    indexChecked.catch(() => undefined); // awaited by the caller; never an unhandled rejection meanwhile
  }
  return { intel, memory, shared, freeFrom: scratchAt, indexChecked };
}
