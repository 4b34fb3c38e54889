/**
 * Executors turn an input block into an output block. The local one runs in
 * the calling thread; the pool (pool.ts) spreads blocks over worker threads.
 * Both run the same BlockProcessor, so their output is byte-identical.
 *
 * @module
 */
import { nodeInflate, openSync, type SharedSnapshot } from '@ipintel/core';
import { fromSharedTrusted } from '@ipintel/core/internal';
import { BlockProcessor, type BlockOutput } from './block.js';
import type { BufferPool } from './buffers.js';
import { RowTemplate, type RenderOptions } from './template.js';

export type BlockResult = BlockOutput;

export interface Executor {
  /**
   * Processes one block (a view at offset 0 of its own buffer, which goes
   * back to the input pool once read) into a buffer from the output pool, if
   * one is free; results may settle out of order, the caller reorders.
   */
  run(block: Uint8Array): Promise<BlockResult>;
  /** How many blocks it works on at once (the caller keeps three times that in flight). */
  readonly parallelism: number;
  close(): Promise<void>;
}

/** What a thread needs to set up its own processor. */
export interface ProcessorConfig {
  readonly snapshotPath: string;
  readonly render: RenderOptions;
  /**
   * The main thread's snapshot in shared memory: workers use it instead of
   * loading their own copy, and do not check it again (the main thread did).
   */
  readonly shared?: SharedSnapshot;
}

export function createProcessor(config: ProcessorConfig): BlockProcessor {
  // The IPv6 index may come as stored (not decoded by the main thread): this thread decodes it on its first IPv6 line.
  const intel = config.shared !== undefined ? fromSharedTrusted(config.shared, { inflate: nodeInflate }) : openSync(config.snapshotPath);
  return new BlockProcessor(intel, new RowTemplate(config.render));
}

/** Runs blocks in the calling thread. */
export class LocalExecutor implements Executor {
  readonly parallelism = 1;

  constructor(
    private readonly processor: BlockProcessor,
    private readonly inputs: BufferPool,
    private readonly outputs: BufferPool,
  ) {}

  run(block: Uint8Array): Promise<BlockResult> {
    const spare = this.outputs.takeAny();
    try {
      const result = this.processor.process(block, spare === undefined ? undefined : new Uint8Array(spare));
      this.inputs.give(block.buffer as ArrayBuffer);
      return Promise.resolve(result);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
