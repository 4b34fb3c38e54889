/**
 * The streams a command talks to. Commands never touch `process.*` directly,
 * so tests run them in-process with in-memory streams and the binary passes
 * the real ones (see main.ts).
 *
 * @module
 */

/** A writable that may be a terminal (process.stdout / process.stderr are). */
export type OutStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** A readable that may be a terminal or a file descriptor (process.stdin is). */
export type InStream = NodeJS.ReadableStream & { isTTY?: boolean; fd?: number };

export interface CliIo {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  /** Where `batch -` reads from (default: process.stdin). */
  readonly stdin?: InStream;
}

/** The io of the real process. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
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
    const done = (err?: unknown): void => {
      out.off('drain', onDrain);
      out.off('error', onError);
      if (err === undefined) resolve();
      else reject(err);
    };
    const onDrain = (): void => done();
    const onError = (e: unknown): void => done(e);
    out.on('drain', onDrain);
    out.on('error', onError);
  });
}
