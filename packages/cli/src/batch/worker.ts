/**
 * Batch worker thread (built to dist/batch-worker.js): starts while the main
 * thread opens the snapshot, opens it from the shared memory once handed it
 * (`open`; the first worker checks its IPv4 index meanwhile, for the main
 * thread), builds its processor from the `setup` message
 * (the main thread's snapshot in shared memory, or a path to open) and
 * answers `ready`, then turns each input block it is sent into an output
 * block, in the order received, transferring the output bytes back. A block
 * that fails (a snapshot found damaged on its first IPv6 line) is answered
 * `failed` with the exit code the CLI should use, decided here where the
 * error's class is still known; a setup failure is answered `fatal` the same
 * way.
 *
 * @module
 */
import { parentPort } from 'node:worker_threads';
import type { IpIntel } from '@ipintel/core';
import { checkSharedIndex4 } from '@ipintel/core/internal';
import { workerFailure } from '../errors.js';
import type { BlockProcessor } from './block.js';
import { createProcessor, openShared, type BlockResult } from './executor.js';
import { INDEX4_FREE, INDEX4_WORKER, type WorkOpen, type WorkReply, type WorkRequest, type WorkSetup } from './pool.js';

const port = parentPort!;
let processor: BlockProcessor | undefined;
/** The snapshot the main thread handed over before the setup (`open`), opened already. */
let opened: IpIntel | undefined;

function open(m: WorkOpen): void {
  // The main thread takes the check back if it gets there first (pool.ts, IndexCheck).
  if (m.index4 !== null && Atomics.compareExchange(m.index4, 0, INDEX4_FREE, INDEX4_WORKER) === INDEX4_FREE) {
    let ok = true;
    try {
      checkSharedIndex4(m.shared);
    } catch {
      ok = false; // the main thread runs the check again itself, for the error it reports
    }
    port.postMessage({ type: 'index4', ok } satisfies WorkReply);
  }
  try {
    opened = openShared(m.shared);
  } catch {
    opened = undefined; // the setup opens it again, and reports what fails then
  }
}

function setUp(m: WorkSetup): void {
  try {
    processor = createProcessor(m.config, opened);
  } catch (e) {
    port.postMessage({ type: 'fatal', ...workerFailure(e) } satisfies WorkReply);
    return;
  }
  port.postMessage({ type: 'ready' } satisfies WorkReply);
}

function work(req: WorkRequest, p: BlockProcessor): void {
  // The input buffer goes back too, for the main thread to reuse.
  const input = req.block.buffer as ArrayBuffer;
  let result: BlockResult;
  try {
    result = p.process(req.block, req.spare === undefined ? undefined : new Uint8Array(req.spare), req.day, req.region);
  } catch (e) {
    port.postMessage({ type: 'failed', id: req.id, ...workerFailure(e) } satisfies WorkReply);
    return;
  }
  // Rows in an output region of the shared memory go as a view of it; rows in a buffer of their own, transferred.
  const transfer = result.region >= 0 ? [input] : [result.bytes.buffer as ArrayBuffer, input];
  port.postMessage({ type: 'done', id: req.id, result, input } satisfies WorkReply, transfer);
}

port.on('message', (m: WorkOpen | WorkSetup | WorkRequest) => {
  if (m.type === 'open') open(m);
  else if (m.type === 'setup') setUp(m);
  // Without a processor the setup failed: the pool has failed and refuses every block.
  else if (processor !== undefined) work(m, processor);
});
