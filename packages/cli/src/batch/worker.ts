/**
 * Batch worker thread (built to dist/batch-worker.js): opens the snapshot
 * once, then turns each input block it is sent into an output block, in the
 * order received, transferring the output bytes back. Setup failures are
 * reported as a `fatal` reply with the exit code the CLI should use.
 *
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import { IpIntelError } from '@ipintel/core';
import { EXIT_INTERNAL, EXIT_SNAPSHOT } from '../errors.js';
import { createProcessor, type ProcessorConfig } from './executor.js';
import type { WorkReply, WorkRequest } from './pool.js';

const port = parentPort!;

try {
  const processor = createProcessor(workerData as ProcessorConfig);
  port.on('message', (req: WorkRequest) => {
    const result = processor.process(req.block, req.spare === undefined ? undefined : new Uint8Array(req.spare));
    // The input buffer goes back too, for the main thread to reuse.
    const input = req.block.buffer as ArrayBuffer;
    const reply: WorkReply = { type: 'done', id: req.id, result, input };
    port.postMessage(reply, [result.bytes.buffer as ArrayBuffer, input]);
  });
} catch (e) {
  const reply: WorkReply = {
    type: 'fatal',
    message: e instanceof Error ? e.message : String(e),
    exitCode: e instanceof IpIntelError ? EXIT_SNAPSHOT : EXIT_INTERNAL,
  };
  port.postMessage(reply);
}
