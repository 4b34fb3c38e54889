/**
 * The streams a command talks to. Commands never touch `process.*` directly,
 * so tests run them in-process with in-memory streams and the binary passes
 * the real ones (see main.ts).
 *
 * @module
 */
import type { SignalLatch } from './signal-latch.js';

/** A writable that may be a terminal (process.stdout / process.stderr are). */
export type OutStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** A readable that may be a terminal or a file descriptor (process.stdin is). */
export type InStream = NodeJS.ReadableStream & { isTTY?: boolean; fd?: number };

/** The signals a long-running command finishes cleanly on. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

export interface CliIo {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  /** Where `batch -` reads from (default: process.stdin). */
  readonly stdin?: InStream;
  /**
   * Subscribes to the first SIGINT or SIGTERM (the handler runs once);
   * returns the unsubscribe function. Long-running commands (batch, serve)
   * use it to finish cleanly; absent, they are never interrupted. Tests
   * pass their own trigger.
   */
  readonly onInterrupt?: (handler: (signal: StopSignal) => void) => () => void;
  /**
   * The clock, ms since the epoch (default Date.now): what snapshot and source ages are judged
   * against, and the clock `serve` counts quotas by (its per-day and per-month periods).
   */
  readonly now?: () => number;
}

/**
 * Process signals as CliIo.onInterrupt: the first SIGINT/SIGTERM goes to the
 * handler (and both listeners are removed, so a second Ctrl-C ends the
 * process the default way). With `startup` (the latch main.ts puts on before
 * the modules load, signal-latch.ts), a signal it caught is that first one:
 * the handler hears it at once, and no listener is put on.
 */
export function processInterrupts(handler: (signal: StopSignal) => void, startup?: SignalLatch): () => void {
  const early = startup?.caught;
  if (early !== undefined) {
    startup!.stop();
    handler(early);
    return () => undefined;
  }
  const off = (): void => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  };
  const onInt = (): void => {
    off();
    handler('SIGINT');
  };
  const onTerm = (): void => {
    off();
    handler('SIGTERM');
  };
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  // Ours are on before the latch's come off: a signal between the two never has its default action.
  startup?.stop();
  return off;
}

/** The io of the real process; `startup` as for {@link processInterrupts}. */
export function processIo(startup?: SignalLatch): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, onInterrupt: (handler) => processInterrupts(handler, startup) };
}

/**
 * A promise that resolves with the first interrupt (never, without
 * `onInterrupt`), and the function that stops listening.
 */
export function interruption(io: CliIo): { readonly signal: Promise<StopSignal>; readonly dispose: () => void } {
  let dispose = (): void => undefined;
  const signal = new Promise<StopSignal>((resolve) => {
    if (io.onInterrupt !== undefined) dispose = io.onInterrupt(resolve);
  });
  return { signal, dispose };
}

export function isTTY(s: { isTTY?: boolean }): boolean {
  return s.isTTY === true;
}

/**
 * Writes and resolves once the stream can take more (backpressure), or
 * rejects if the stream reports an error first. `written` runs once the
 * stream no longer needs `chunk`.
 */
export function writeAsync(out: NodeJS.WritableStream, chunk: string | Uint8Array, written?: () => void): Promise<void> {
  const ok = written === undefined ? out.write(chunk) : out.write(chunk, (err) => err == null && written());
  if (ok) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (err?: Error): void => {
      out.off('drain', onDrain);
      out.off('error', onError);
      if (err === undefined) resolve();
      else reject(err);
    };
    const onDrain = (): void => done();
    const onError = (e: Error): void => done(e);
    out.on('drain', onDrain);
    out.on('error', onError);
  });
}

/**
 * {@link writeAsync} for a command's whole output, where a reader that went
 * away (EPIPE: `ipintel check ... | head -1`) is no failure: the output was
 * wanted only so far. Other write errors reject (exit 4).
 */
export async function writeOutput(out: NodeJS.WritableStream, text: string): Promise<void> {
  try {
    await writeAsync(out, text);
  } catch (e) {
    if ((e as NodeJS.ErrnoException | null)?.code !== 'EPIPE') throw e;
  }
}
