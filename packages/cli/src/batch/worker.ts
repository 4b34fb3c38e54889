/**
 * Batch worker thread (built to dist/batch-worker.js): opens the snapshot
 * once, then turns each input block it is sent into an output block, in the
 * order received, transferring the output bytes back. A block that fails
 * (a snapshot found damaged on its first IPv6 line) is answered `failed` with
 * the exit code the CLI should use, decided here where the error's class is
 * still known; setup failures are answered `fatal` the same way.
 *
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import { workerFailure } from '../errors.js';
import { createProcessor, type BlockResult, type ProcessorConfig } from './executor.js';
import type { WorkReply, WorkRequest } from './pool.js';

const port = parentPort!;

try {
  const processor = createProcessor(workerData as ProcessorConfig);
  port.on('message', (req: WorkRequest) => {
    // The input buffer goes back too, for the main thread to reuse.
    const input = req.block.buffer as ArrayBuffer;
    let result: BlockResult;
    try {
      result = processor.process(req.block, req.spare === undefined ? undefined : new Uint8Array(req.spare));
    } catch (e) {
      port.postMessage({ type: 'failed', id: req.id, ...workerFailure(e) } satisfies WorkReply);
      return;
    }
    port.postMessage({ type: 'done', id: req.id, result, input } satisfies WorkReply, [result.bytes.buffer as ArrayBuffer, input]);
  });
} catch (e) {
  port.postMessage({ type: 'fatal', ...workerFailure(e) } satisfies WorkReply);
}
