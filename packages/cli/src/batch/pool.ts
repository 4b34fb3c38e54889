/**
 * A pool of worker threads that process blocks. The threads start at once
 * and load their modules while the caller opens the snapshot (~120-230 ms
 * here that no longer waits on the load); `setup` then hands them what to
 * build their processor from, and each answers `ready` once it has. A block
 * goes to the ready worker with the fewest blocks queued (to any worker
 * while none is ready); input and output buffers are transferred, not
 * copied, and come back for reuse (buffers.ts). Ordering is the caller's job
 * (run.ts keeps a FIFO of pending results), so the pool only matches replies
 * to requests by id.
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
import type { OutputRegions } from './regions.js';
import type { BlockResult, Executor, ProcessorConfig } from './executor.js';
import type { SharedSnapshot } from '@ipintel/core';

/**
 * Main -> worker, as soon as the main thread has read the snapshot into the
 * shared memory: the worker opens it now (fromSharedTrusted), and the first
 * worker, asked to, runs the IPv4 index's checks first, while the main
 * thread checks the rest (load.ts).
 */
export interface WorkOpen {
  readonly type: 'open';
  readonly shared: SharedSnapshot;
  /** For the first worker: who runs the IPv4 index's checks (IndexCheck's word), else null. */
  readonly index4: Int32Array | null;
}

/** IndexCheck's word: nobody has the check yet, the worker took it, the main thread took it. */
export const INDEX4_FREE = 0;
export const INDEX4_WORKER = 1;
export const INDEX4_MAIN = 2;

/** The IPv4 index's checks handed to the first worker (WorkerPool#open). */
export interface IndexCheck {
  /**
   * Takes the check back if the worker has not started it (it is still
   * starting): true, and the caller runs it; false, and the worker has it:
   * wait for `verdict`.
   */
  takeBack(): boolean;
  /** The worker's verdict, once it has the check: passed, or not (or the pool failed first): the caller then runs it itself, for its error. */
  readonly verdict: Promise<boolean>;
}

/** Main -> worker, first (after `open`, if any): what the worker builds its processor from. */
export interface WorkSetup {
  readonly type: 'setup';
  readonly config: ProcessorConfig;
}

/** Main -> worker, after the setup. */
export interface WorkRequest {
  readonly type: 'work';
  readonly id: number;
  readonly block: Uint8Array;
  /** The UTC day of the block's rows. */
  readonly day: number;
  /** The output region of the shared memory to write the rows into, or -1. */
  readonly region: number;
  /** A written output buffer to reuse (transferred back), if one is free. */
  readonly spare?: ArrayBuffer;
}

/** Worker -> main. */
export type WorkReply =
  /** The worker built its processor: blocks sent to it now start at once. */
  | { readonly type: 'ready' }
  | { readonly type: 'done'; readonly id: number; readonly result: BlockResult; readonly input: ArrayBuffer }
  /** A block the worker could not process: it fails, and so does every later block (the run stops there). */
  | { readonly type: 'failed'; readonly id: number; readonly message: string; readonly exitCode: number }
  /** The IPv4 index's checks the main thread asked for (`open`): passed, or not (the main thread then runs them itself, for its error). */
  | { readonly type: 'index4'; readonly ok: boolean }
  /** The worker could not set up (snapshot unreadable): every block fails. */
  | { readonly type: 'fatal'; readonly message: string; readonly exitCode: number };

interface Pending {
  resolve(r: BlockResult): void;
  reject(e: unknown): void;
  /** Index of the worker doing it. */
  worker: number;
  /** The output region lent to it, or -1. */
  region: number;
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
  /** Per worker: has it answered `ready`? */
  private readonly isReady: boolean[] = [];
  private readyCount = 0;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failure: Error | undefined = undefined;
  private buffers: { readonly inputs: BufferPool; readonly outputs: BufferPool; readonly regions: OutputRegions | undefined } | undefined = undefined;
  /** Settles the index check asked of the first worker (`open`): its verdict, or false once the pool fails. */
  private settleIndex4: ((ok: boolean) => void) | undefined = undefined;
  /** Settled when every worker is ready, or with the pool's failure. */
  private readonly allReady: Promise<void>;
  private settleReady: (e?: Error) => void = () => undefined;

  /** Starts `size` worker threads, which load their modules and wait for {@link setup}. */
  constructor(size: number, workerUrl: URL = defaultWorkerUrl()) {
    this.parallelism = size;
    if (!existsSync(workerUrl)) {
      throw new CliError(`worker script not found at ${workerUrl.pathname} (build the CLI, or use --jobs 1)`, EXIT_INTERNAL);
    }
    this.allReady = new Promise<void>((resolve, reject) => {
      this.settleReady = (e) => (e === undefined ? resolve() : reject(e));
    });
    this.allReady.catch(() => undefined);
    for (let i = 0; i < size; i++) {
      const w = new Worker(workerUrl);
      const k = i;
      w.on('message', (m: WorkReply) => this.onReply(m, k));
      w.on('error', (e) => this.fail(e));
      w.on('exit', (code) => {
        if (code !== 0) this.fail(new CliError(`batch worker exited with code ${code}`, EXIT_INTERNAL));
      });
      this.workers.push(w);
      this.queued.push(0);
      this.isReady.push(false);
    }
  }

  /**
   * Hands every worker the snapshot the main thread has read into the shared
   * memory, to open now; the first one also runs checkSharedIndex4 on it,
   * unless the caller takes the check back first. Once, before setup.
   */
  open(shared: SharedSnapshot): IndexCheck {
    if (this.settleIndex4 !== undefined || this.buffers !== undefined) throw new Error('WorkerPool.open called twice or after setup');
    const word = new Int32Array(new SharedArrayBuffer(4));
    const verdict = new Promise<boolean>((resolve) => {
      this.settleIndex4 = resolve;
    });
    if (this.failure !== undefined) this.settleIndex4!(false);
    this.workers.forEach((w, i) => w.postMessage({ type: 'open', shared, index4: i === 0 ? word : null } satisfies WorkOpen));
    return { takeBack: () => Atomics.compareExchange(word, 0, INDEX4_FREE, INDEX4_MAIN) === INDEX4_FREE, verdict };
  }

  /**
   * Hands every worker its processor's config (worker i is thread i + 1 of
   * the config's space: the main thread is 0) and the buffer pools blocks
   * circulate through (once).
   */
  setup(config: ProcessorConfig, inputs: BufferPool, outputs: BufferPool, regions?: OutputRegions): void {
    if (this.buffers !== undefined) throw new Error('WorkerPool.setup called twice');
    this.buffers = { inputs, outputs, regions };
    this.workers.forEach((w, i) => w.postMessage({ type: 'setup', config: { ...config, thread: i + 1 } } satisfies WorkSetup));
  }

  /** Workers that have built their processor. */
  get ready(): number {
    return this.readyCount;
  }

  /** Resolves once every worker is ready; rejects with the pool's failure. */
  whenReady(): Promise<void> {
    return this.allReady;
  }

  /** Why the pool failed (every block sent now is refused with it), or undefined. */
  get failed(): Error | undefined {
    return this.failure;
  }

  run(block: Uint8Array, day: number): Promise<BlockResult> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const buffers = this.buffers;
    if (buffers === undefined) throw new Error('WorkerPool.run before setup');
    const id = this.nextId++;
    // The ready worker with the fewest blocks queued; any worker while none is ready.
    const some = this.readyCount > 0;
    let k = -1;
    for (let i = 0; i < this.queued.length; i++) {
      if (some && !this.isReady[i]) continue;
      if (k < 0 || this.queued[i]! < this.queued[k]!) k = i;
    }
    const worker = this.workers[k]!;
    this.queued[k]!++;
    return new Promise<BlockResult>((resolve, reject) => {
      const region = buffers.regions?.take() ?? -1;
      this.pending.set(id, { resolve, reject, worker: k, region });
      const spare = region < 0 ? buffers.outputs.takeAny() : undefined;
      const req: WorkRequest = spare === undefined ? { type: 'work', id, block, day, region } : { type: 'work', id, block, day, region, spare };
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

  private onReply(m: WorkReply, worker: number): void {
    if (m.type === 'index4') {
      this.settleIndex4?.(m.ok);
      return;
    }
    if (m.type === 'ready') {
      if (!this.isReady[worker]) {
        this.isReady[worker] = true;
        if (++this.readyCount === this.workers.length) this.settleReady();
      }
      return;
    }
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
    this.buffers?.inputs.give(m.input);
    // Rows that outgrew their region came in a buffer of their own: the region is free again.
    if (m.result.region !== p.region) this.buffers?.regions?.give(p.region);
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
      this.buffers?.regions?.give(p.region);
    }
  }

  /** Fails every pending block (ids start at 0), and every block sent from now on. */
  private fail(e: Error): void {
    this.failFrom(0, e);
    this.settleReady(this.failure);
    this.settleIndex4?.(false);
  }
}
