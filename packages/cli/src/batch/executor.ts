/**
 * Executors turn an input block into an output block. The local one runs in
 * the calling thread; the pool (pool.ts) spreads blocks over worker threads.
 * Both run the same BlockProcessor, so their output is byte-identical.
 *
 * @module
 */
import { nodeInflate, openSync, type IpIntel, type SharedSnapshot } from '@ipintel/core';
import { fromSharedTrusted } from '@ipintel/core/internal';
import { BlockProcessor, type BlockOutput } from './block.js';
import type { KernelSpace } from './space.js';
import type { BufferPool } from './buffers.js';
import type { OutputRegions } from './regions.js';
import { RowTemplate, type RenderOptions } from './template.js';

export type BlockResult = BlockOutput;

export interface Executor {
  /**
   * Processes one block (a view at offset 0 of its own buffer, which goes
   * back to the input pool once read) into a buffer from the output pool, if
   * one is free, with rows for UTC day `day`; results may settle out of
   * order, the caller reorders.
   */
  run(block: Uint8Array, day: number): Promise<BlockResult>;
  /** How many blocks it works on at once (the caller keeps three times that in flight). */
  readonly parallelism: number;
  close(): Promise<void>;
}

/** What a thread needs to set up its own processor. */
export interface ProcessorConfig {
  readonly snapshotPath: string;
  readonly render: RenderOptions;
  /**
   * The memory the run's threads share (space.ts), with the main thread's
   * snapshot in it: workers open that snapshot instead of loading their own
   * copy, and do not check it again (the main thread did).
   */
  readonly space?: Pick<KernelSpace, 'memory' | 'layout' | 'shared'>;
  /** This thread's number in the space (the main thread is 0). */
  readonly thread?: number;
}

/**
 * The main thread's snapshot, opened by a worker without checking it again
 * (the main thread does). The IPv6 index may come as stored (not decoded by
 * the main thread): this thread decodes it on its first IPv6 line.
 */
export function openShared(shared: SharedSnapshot): IpIntel {
  return fromSharedTrusted(shared, { inflate: nodeInflate });
}

/** A thread's processor; `opened`: the space's snapshot, if this thread opened it already (the pool's `open`). */
export function createProcessor(config: ProcessorConfig, opened?: IpIntel): BlockProcessor {
  const template = new RowTemplate(config.render);
  const space = config.space;
  if (space === undefined) return new BlockProcessor(openSync(config.snapshotPath), template);
  return new BlockProcessor(opened ?? openShared(space.shared), template, space, config.thread ?? 0);
}

/** Runs blocks in the calling thread. */
export class LocalExecutor implements Executor {
  readonly parallelism = 1;

  constructor(
    private readonly processor: BlockProcessor,
    private readonly inputs: BufferPool,
    private readonly outputs: BufferPool,
    /** The shared memory's output regions, when the processor writes into them (run.ts). */
    private readonly regions?: OutputRegions,
  ) {}

  run(block: Uint8Array, day: number): Promise<BlockResult> {
    const region = this.regions?.take() ?? -1;
    const spare = region < 0 ? this.outputs.takeAny() : undefined;
    try {
      const result = this.processor.process(block, spare === undefined ? undefined : new Uint8Array(spare), day, region);
      // Rows that outgrew their region are in a buffer of their own: the region is free again.
      if (result.region !== region) this.regions?.give(region);
      this.inputs.give(block.buffer as ArrayBuffer);
      return Promise.resolve(result);
    } catch (e) {
      this.regions?.give(region);
      return Promise.reject(e);
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
