/**
 * `--jobs N` with N > 1: the main thread plus N-1 worker threads.
 *
 * Why the main thread works too: its own job (read, cut, write) is light and
 * it would otherwise sit idle, while each extra worker costs a V8 isolate, a
 * snapshot load and a thread competing for the same cores. Dispatch keeps
 * every ready worker fed first (two blocks queued each, so a worker never
 * waits for the main thread) and processes the rest in the main thread.
 * Until a worker is ready every block stays in the main thread: blocks
 * queued to a worker still starting made the main thread wait on them,
 * idle, at the head of the output (docs/design.md, "Twelfth round").
 *
 * @module
 */
import type { BlockResult, Executor, LocalExecutor } from './executor.js';
import type { WorkerPool } from './pool.js';

export class HybridExecutor implements Executor {
  readonly parallelism: number;

  constructor(
    private readonly pool: WorkerPool,
    private readonly local: LocalExecutor,
  ) {
    this.parallelism = pool.parallelism + 1;
  }

  run(block: Uint8Array, day: number): Promise<BlockResult> {
    // A failed pool takes the block, to refuse it with the failure (the run stops, as before).
    const toPool = this.pool.failed !== undefined || this.pool.inFlight < 2 * this.pool.ready;
    return toPool ? this.pool.run(block, day) : this.local.run(block, day);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
