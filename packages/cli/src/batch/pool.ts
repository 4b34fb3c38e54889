/**
 * A pool of worker threads that process blocks. Each worker opens the
 * snapshot once; a block goes to the worker with the fewest blocks queued;
 * input and output buffers are transferred, not copied, and come back for
 * reuse (buffers.ts). Ordering is the caller's job (run.ts keeps a FIFO
 * of pending results), so the pool only matches replies to requests by id.
 *
 * A worker that fails (snapshot unreadable, crash) fails every pending block
 * and the pool: the run stops with that error rather than emit a gap. A
 * block that fails (answered `failed`) fails itself and every block sent
 * after it; the blocks before it still arrive, so the run writes every row
 * before the failing block, as a run in one thread does.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { CliError, EXIT_INTERNAL } from '../errors.js';
import type { BufferPool } from './buffers.js';
import type { BlockResult, Executor, ProcessorConfig } from './executor.js';

/** Main -> worker. */
export interface WorkRequest {
  readonly id: number;
  readonly block: Uint8Array;
  /** A written output buffer to reuse (transferred back), if one is free. */
  readonly spare?: ArrayBuffer;
}

/** Worker -> main. */
export type WorkReply =
  | { readonly type: 'done'; readonly id: number; readonly result: BlockResult; readonly input: ArrayBuffer }
  /** A block the worker could not process: it fails, and so does every later block (the run stops there). */
  | { readonly type: 'failed'; readonly id: number; readonly message: string; readonly exitCode: number }
  /** The worker could not set up (snapshot unreadable): every block fails. */
  | { readonly type: 'fatal'; readonly message: string; readonly exitCode: number };

interface Pending {
  resolve(r: BlockResult): void;
  reject(e: unknown): void;
  /** Index of the worker doing it. */
  worker: number;
}

/**
 * Where the built worker script is: beside the running bundle (dist/), else —
 * when running from sources under a test runner — the package's dist/.
 */
export function defaultWorkerUrl(): URL {
  const beside = new URL('./batch-worker.js', import.meta.url);
  if (existsSync(beside)) return beside;
  return new URL('../../dist/batch-worker.js', import.meta.url);
}

export class WorkerPool implements Executor {
  readonly parallelism: number;
  private readonly workers: Worker[] = [];
  /** Blocks queued per worker. */
  private readonly queued: number[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failure: Error | undefined = undefined;

  constructor(
    size: number,
    config: ProcessorConfig,
    private readonly inputs: BufferPool,
    private readonly outputs: BufferPool,
    workerUrl: URL = defaultWorkerUrl(),
  ) {
    this.parallelism = size;
    if (!existsSync(workerUrl)) {
      throw new CliError(`worker script not found at ${workerUrl.pathname} (build the CLI, or use --jobs 1)`, EXIT_INTERNAL);
    }
    for (let i = 0; i < size; i++) {
      const w = new Worker(workerUrl, { workerData: config });
      w.on('message', (m: WorkReply) => this.onReply(m));
      w.on('error', (e) => this.fail(e));
      w.on('exit', (code) => {
        if (code !== 0) this.fail(new CliError(`batch worker exited with code ${code}`, EXIT_INTERNAL));
      });
      this.workers.push(w);
      this.queued.push(0);
    }
  }

  run(block: Uint8Array): Promise<BlockResult> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const id = this.nextId++;
    let k = 0;
    for (let i = 1; i < this.queued.length; i++) if (this.queued[i]! < this.queued[k]!) k = i;
    const worker = this.workers[k]!;
    this.queued[k]!++;
    return new Promise<BlockResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker: k });
      const spare = this.outputs.takeAny();
      const req: WorkRequest = spare === undefined ? { id, block } : { id, block, spare };
      worker.postMessage(req, spare === undefined ? [block.buffer as ArrayBuffer] : [block.buffer as ArrayBuffer, spare]);
    });
  }

  /** Blocks sent and not yet answered. */
  get inFlight(): number {
    return this.pending.size;
  }

  async close(): Promise<void> {
    const ws = this.workers.splice(0);
    for (const w of ws) w.removeAllListeners('exit');
    await Promise.all(ws.map((w) => w.terminate()));
  }

  private onReply(m: WorkReply): void {
    if (m.type === 'fatal') {
      this.fail(new CliError(m.message, m.exitCode));
      return;
    }
    if (m.type === 'failed') {
      this.failFrom(m.id, new CliError(m.message, m.exitCode));
      return;
    }
    const p = this.pending.get(m.id);
    if (p === undefined) return;
    this.pending.delete(m.id);
    this.queued[p.worker]!--;
    this.inputs.give(m.input);
    p.resolve(m.result);
  }

  /** Fails block `id` and every block sent after it; earlier ones are still answered. */
  private failFrom(id: number, e: Error): void {
    if (this.failure === undefined) this.failure = e;
    for (const [k, p] of this.pending) {
      if (k < id) continue;
      p.reject(this.failure);
      this.pending.delete(k);
      this.queued[p.worker]!--;
    }
  }

  /** Fails every pending block (ids start at 0), and every block sent from now on. */
  private fail(e: Error): void {
    this.failFrom(0, e);
  }
}
