/**
 * The batch pipeline: read blocks -> process (locally or in workers) -> write
 * in input order.
 *
 * Ordering and memory: results are kept in a FIFO in submission order and
 * written from its head, so output order is input order whatever order
 * workers finish in. The reader is not pulled while the FIFO holds
 * `3 × parallelism` blocks (and writes wait for 'drain'), so memory is
 * bounded by a few blocks whatever the input size.
 *
 * Jobs: `--jobs N` fixes the number of threads that process blocks: the
 * main thread plus N-1 workers (hybrid.ts); 1 = no workers. `auto` uses one
 * thread for small inputs and, on a machine with more than two cores, all
 * cores (os.availableParallelism) once the input is known (file size) or
 * seen (stdin) to exceed AUTO_PARALLEL_BYTES (autoThreads).
 *
 * Slow inputs (`tail -f log | ipintel batch`): rows are not held until
 * blocks fill. Once complete lines, or blocks whose rows are in the FIFO,
 * have waited FLUSH_MS for more input, the reader yields a flush (blocks.ts:
 * the lines so far as a short block, maybe empty), and the run writes every
 * row in the FIFO before it reads on; else the last blocks' rows would sit
 * there until more input came. Fast inputs never wait that long: they keep
 * full blocks and the FIFO's depth. A JSON array's rows are joined by `,\n`
 * (`[\n{row},\n{row}\n]\n`): the last row written has no line end until the
 * next row or the `]`, so a flush ends its line with `\n`, and the next row's
 * `,\n` makes a line of its own (`{row}\n,\n{row}`); a run without flushes
 * keeps the plain layout.
 *
 * Interruption (`stop`, fired on SIGINT/SIGTERM by the command): the input
 * ends there; the complete lines read by then are checked and written (a
 * line cut by the interruption is dropped, never answered half), the JSON
 * array is closed, and the run returns with `interrupted` set, so the output
 * always parses.
 *
 * @module
 */
import { availableParallelism } from 'node:os';
import type { BlockProcessor } from './block.js';
import type { KernelSpace } from './space.js';
import { utcDay } from './records.js';
import { dropLeadingBom, readBlocks, untilStopped } from './blocks.js';
import { BufferPool } from './buffers.js';
import { LocalExecutor, type BlockResult, type Executor, type ProcessorConfig } from './executor.js';
import { HybridExecutor } from './hybrid.js';
import { WorkerPool } from './pool.js';
import { Progress } from './progress.js';
import { OutputRegions } from './regions.js';
import { writeAsync, type OutStream } from '../io.js';
import type { OutputKind } from './template.js';

/**
 * Input bytes per block: ~2,300 IPv4 lines, ~2.5 MB of NDJSON out. Large
 * enough to amortise a message to a worker (~2% overhead), small enough that
 * the blocks in flight stay a few tens of MB.
 */
export const BLOCK_BYTES = 32 * 1024;
/**
 * How long complete lines wait for more input before they are checked and
 * written anyway (see the module comment). Short enough that a line of a
 * slow stream is answered with no delay a person notices (~100 ms). Long
 * enough that a block is cut short only when its 32 KiB take longer than
 * that to arrive (an input under ~650 KB/s, ~45,000 lines/s, far below what
 * the batch checks; or --grep, whose rewriting in the main thread is that
 * slow: ~15 short blocks in 300,000 log lines), not when a fast producer
 * misses a few scheduler time slices on a busy machine. And at most 20
 * flushes a second whatever the input, so their cost (a short block, the
 * FIFO emptied) stays negligible.
 */
export const FLUSH_MS = 50;
/** About 200k IPv4 lines: below this, starting workers costs more than it saves. */
export const AUTO_PARALLEL_BYTES = 3 * 1024 * 1024;

export interface BatchRunOptions {
  readonly input: AsyncIterable<Uint8Array | string>;
  /** Input size when known (a regular file): auto jobs decide up front, progress shows ETA. */
  readonly totalBytes: number | null;
  readonly out: OutStream;
  readonly err: OutStream;
  readonly output: OutputKind;
  /** The CSV header ('' for other outputs). */
  readonly header: string;
  /** Processor for the calling thread (single job, and the start of an auto run): thread 0 of `space` when there is one. */
  readonly processor: BlockProcessor;
  /** How worker threads build theirs. */
  readonly config: ProcessorConfig;
  /**
   * The memory the threads share (space.ts: laid out for as many threads
   * as the run may use, with the snapshot in it): worker threads open the
   * snapshot and the kernel there. Without it, workers open the snapshot
   * file on their own.
   */
  readonly space?: Pick<KernelSpace, 'memory' | 'layout' | 'shared'>;
  readonly jobs: number | 'auto';
  /**
   * Workers the caller started before opening the snapshot ({@link workersAtStart}
   * says how many), so that they load their modules meanwhile; the run sets
   * them up and closes them. Without it the run starts its own when it goes parallel.
   */
  readonly workers?: WorkerPool | null;
  /** Test hook: before the first block, wait until every worker is ready (so that tiny inputs reach them). */
  readonly awaitWorkers?: boolean | undefined;
  readonly progress: boolean;
  readonly workerUrl?: URL | undefined;
  readonly blockBytes?: number | undefined;
  /** Default FLUSH_MS; not finite: lines wait until a block is full or the input ends. */
  readonly flushMs?: number | undefined;
  readonly autoParallelBytes?: number | undefined;
  /** The machine's cores as `auto` plans for them (default os.availableParallelism(); tests pretend more). */
  readonly cores?: number | undefined;
  /** Resolves when the run should stop early (a signal): see the module comment. */
  readonly stop?: Promise<unknown>;
  /**
   * Rewrites the input's lines before they are cut into blocks (CIDR
   * expansion, --grep: lines.ts); `cutLast` says whether the input's last
   * line was cut by an interruption.
   */
  readonly lines?: (input: AsyncIterable<Uint8Array>, cutLast: () => boolean) => AsyncIterable<Uint8Array>;
}

export interface BatchSummary {
  /** Physical input lines, rows written, rows with an error. */
  readonly lines: number;
  readonly rows: number;
  readonly invalid: number;
  /** First invalid line (1-based line number in the input) and its message. */
  readonly firstInvalid: { readonly line: number; readonly message: string } | null;
  /** Threads used at the end of the run (1 = main thread only). */
  readonly jobs: number;
  /** True when the reader of our output went away (EPIPE): the run stopped early. */
  readonly stopped: boolean;
  /** True when `stop` fired: the output holds the rows of the blocks read until then, and is complete. */
  readonly interrupted: boolean;
}

class OutputClosed extends Error {}

/** The input, telling `count` the size of each chunk as it passes. */
async function* countBytes(input: AsyncIterable<Uint8Array | string>, count: (n: number) => void): AsyncGenerator<Uint8Array | string> {
  for await (const chunk of input) {
    count(typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length);
    yield chunk;
  }
}

/**
 * The threads `auto` runs a large input on, on a machine with `cores` cores:
 * all of them. Until the threads shared one memory (space.ts: one copy of
 * the columns, one store of rendered runs), two jobs lost to one on two
 * cores and `auto` stayed on one there (docs/design.md, "Fifteenth round");
 * since, two jobs take 0.96-1.13 s against 1.15-1.42 s for one on the
 * bench's million lines ("Nineteenth round").
 */
export function autoThreads(cores: number): number {
  return Math.max(1, cores);
}

/** The most threads a run may use: `--jobs N`, or for `auto` what autoThreads gives this machine. */
export function threadsOfRun(jobs: number | 'auto', cores: number = availableParallelism()): number {
  return typeof jobs === 'number' ? jobs : autoThreads(cores);
}

/**
 * How many threads a run uses from its start: `--jobs N`, or for `auto`
 * {@link autoThreads} when the input's size is known and at least
 * `autoBytes` (else 1; a stream may go parallel later, once it proves large).
 */
export function threadsAtStart(jobs: number | 'auto', totalBytes: number | null, autoBytes: number = AUTO_PARALLEL_BYTES, cores: number = availableParallelism()): number {
  if (typeof jobs === 'number') return jobs;
  return totalBytes !== null && totalBytes >= autoBytes ? autoThreads(cores) : 1;
}

/**
 * The worker threads a run will want from its start, started now (before the
 * snapshot is opened, so that their start overlaps the load), or null when it
 * starts none. Throws a CliError when `--jobs N` asks for workers and the worker
 * script is missing; in auto mode that leaves the run on one thread (null).
 */
export function workersAtStart(jobs: number | 'auto', totalBytes: number | null, autoBytes?: number, workerUrl?: URL, cores?: number): WorkerPool | null {
  const threads = threadsAtStart(jobs, totalBytes, autoBytes, cores);
  if (threads <= 1) return null;
  try {
    return new WorkerPool(threads - 1, workerUrl);
  } catch (e) {
    if (jobs !== 'auto') throw e;
    return null;
  }
}

export async function runBatch(o: BatchRunOptions): Promise<BatchSummary> {
  const autoBytes = o.autoParallelBytes ?? AUTO_PARALLEL_BYTES;
  const cores = o.cores ?? availableParallelism();
  const wantAtStart = o.workers != null || threadsAtStart(o.jobs, o.totalBytes, autoBytes, cores) > 1;
  const poolSize = threadsOfRun(o.jobs, cores);
  const blockBytes = o.blockBytes ?? BLOCK_BYTES;
  // Input and output buffers circulate between the threads instead of being reallocated.
  const inputs = new BufferPool(4 * poolSize + 4, 2 * blockBytes);
  const outputs = new BufferPool(4 * poolSize + 4, 0);
  // Rows go into output regions of the shared memory and are written out from there (space.ts).
  const regions = o.space !== undefined ? new OutputRegions(o.space.layout.outAt.length) : undefined;
  const local = new LocalExecutor(o.processor, inputs, outputs, regions);
  let pool: WorkerPool | null = null;
  /** The awaitWorkers test hook: wait until the pool's workers are ready (a failure is the run's to report). */
  const awaitPool = async (): Promise<void> => {
    if (o.awaitWorkers === true && pool !== null) await pool.whenReady().catch(() => undefined);
  };
  const makePool = (): Executor => {
    pool = o.workers ?? new WorkerPool(poolSize - 1, o.workerUrl);
    const config = o.space !== undefined ? { ...o.config, space: o.space } : o.config;
    pool.setup(config, inputs, outputs, regions);
    return new HybridExecutor(pool, local);
  };
  let executor: Executor = local;
  let parallel = false;
  let autoFailed = false;
  // Auto mode without a built worker script (running from sources) stays on one thread.
  const goParallel = (): void => {
    try {
      executor = makePool();
      parallel = true;
    } catch (e) {
      if (o.jobs !== 'auto') throw e;
      autoFailed = true;
    }
  };
  if (wantAtStart) goParallel();
  await awaitPool();
  const progress = o.progress ? new Progress(o.err, o.totalBytes) : null;

  // Output errors arrive as events; EPIPE means the reader is gone (e.g. `| head`).
  let outError: unknown = undefined;
  const onOutError = (e: unknown): void => {
    if (outError === undefined) outError = e;
  };
  // Worker threads pipe their stdout into process.stdout, one 'error' listener each, past the
  // stream's limit (node lifts it only for its own pipes): ours would then warn, so the limit
  // counts it while it is on.
  const maxListeners = o.out.getMaxListeners();
  const errorListeners = o.out.listenerCount('error');
  if (maxListeners > 0 && errorListeners >= maxListeners) o.out.setMaxListeners(errorListeners + 1);
  o.out.on('error', onOutError);
  const recycle = typeof (o.out as { fd?: unknown }).fd === 'number';
  const write = async (chunk: string | Uint8Array, written?: () => void): Promise<void> => {
    if (outError === undefined) await writeAsync(o.out, chunk, written).catch(onOutError);
    if (outError !== undefined) throw new OutputClosed();
  };

  let lines = 0;
  let rows = 0;
  let invalid = 0;
  let firstInvalid: BatchSummary['firstInvalid'] = null;
  let bytesRead = 0;
  /** Input bytes read (before any line rewriting), and those of the blocks written: progress is in input bytes. */
  let inputRead = 0;
  let bytesDone = 0;
  const queue: { result: Promise<BlockResult>; inputEnd: number }[] = [];
  /** --output json: the last row written has no line end yet (it comes with the next row's `,`, or with the closing `]`). */
  let rowLineOpen = false;

  const drainOne = async (): Promise<void> => {
    const head = queue.shift()!;
    const r = await head.result;
    if (r.invalid > 0 && firstInvalid === null) firstInvalid = { line: lines + r.firstInvalidLine, message: r.firstInvalidMessage };
    if (o.output === 'json' && r.rows > 0) {
      await write(rows === 0 ? '\n' : ',\n');
      rowLineOpen = true;
    }
    if (r.region >= 0 && !recycle) {
      // A generic Writable may keep the chunk: it gets a copy, and the region is free at once.
      const copy = Buffer.from(r.bytes);
      regions?.give(r.region);
      if (copy.length > 0) await write(copy);
    } else if (r.region >= 0) {
      // The region goes back once the stream is done with it (fd-backed streams copy to the kernel).
      if (r.bytes.length > 0) await write(r.bytes, () => regions?.give(r.region));
      else regions?.give(r.region);
    } else if (r.bytes.length > 0) {
      // The buffer goes back for reuse once the stream is done with it (only for fd-backed
      // streams, which copy to the kernel; a generic Writable may keep the chunk).
      const buffer = r.bytes.buffer as ArrayBuffer;
      await write(r.bytes, recycle ? () => outputs.give(buffer) : undefined);
    }
    lines += r.lines;
    rows += r.rows;
    invalid += r.invalid;
    bytesDone = head.inputEnd;
    progress?.update(rows, bytesDone);
  };

  let stopped = false;
  let interrupted = false;
  // On `stop` the input ends early; the lines read by then are finished, a cut last line is dropped.
  const input = o.stop === undefined ? o.input : untilStopped(o.input, o.stop.then(() => void (interrupted = true)));
  try {
    await write(o.output === 'json' ? '[' : o.header);
    const text = dropLeadingBom(countBytes(input, (n) => (inputRead += n)));
    /** The block in hand is a flush: the input went quiet. */
    let flushed = false;
    const blocks = readBlocks(o.lines === undefined ? text : o.lines(text, () => interrupted), blockBytes, {
      alloc: (n) => inputs.take(n),
      onRead: (n) => (bytesRead += n),
      dropLastLine: () => interrupted,
      flushMs: o.flushMs ?? FLUSH_MS,
      onFlush: () => (flushed = true),
    });
    /** The UTC day the rows of the blocks in hand are for: the threads share their cached network runs for it. */
    let day = -1;
    for await (const block of blocks) {
      // 1. Auto mode on a stream: go parallel once the input proves large.
      if (!parallel && !autoFailed && o.jobs === 'auto' && poolSize > 1 && bytesRead >= autoBytes) {
        goParallel();
        await awaitPool();
      }
      // 2. A new UTC day (the run's start, or midnight): once no thread has a block in hand, the
      //    shared places of runs with network fields (allocation_age_days) are dropped (records.ts).
      const today = utcDay();
      if (today !== day) {
        while (queue.length > 0) await drainOne();
        o.processor.resetDay(today);
        day = today;
      }
      // 3. Submit (a flush may be empty); a rejection is observed when its turn comes (no unhandled
      //    rejection meanwhile). The input read so far is taken for the progress bar (rewritten lines differ in size).
      if (block.length > 0) {
        const inputEnd = inputRead;
        const result = executor.run(block, day);
        result.catch(() => undefined);
        queue.push({ result, inputEnd });
      }
      // 4. One event-loop turn per block: worker replies and write callbacks (which
      //    hand buffers back for reuse) are seen before the next block is placed.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (queue.length >= 3 * executor.parallelism) await drainOne();
      // 5. The input went quiet: every row in hand is written before it is read again, and with
      //    --output json the last one's line is ended, for a reader that takes whole lines; the
      //    next row's `,` then comes on a line of its own.
      if (flushed) {
        flushed = false;
        while (queue.length > 0) await drainOne();
        if (rowLineOpen) {
          await write('\n');
          rowLineOpen = false;
        }
      }
    }
    while (queue.length > 0) await drainOne();
    await write(o.output === 'json' ? (rowLineOpen ? '\n]\n' : ']\n') : '');
  } catch (e) {
    if (!(e instanceof OutputClosed)) throw e;
    if ((outError as NodeJS.ErrnoException).code !== 'EPIPE') throw outError;
    stopped = true;
  } finally {
    o.out.off('error', onOutError);
    o.out.setMaxListeners(maxListeners);
    for (const q of queue) q.result.catch(() => undefined);
    await executor.close();
  }
  if (progress !== null && stopped) progress.clear();
  else if (progress !== null) {
    progress.update(rows, bytesDone, true);
    progress.finish(rows);
  }
  return { lines, rows, invalid, firstInvalid, jobs: parallel ? poolSize : 1, stopped, interrupted };
}
