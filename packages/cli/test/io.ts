/**
 * In-memory streams for running `runCli` in-process: collected stdout and
 * stderr text, optional TTY flags, stdin from a string or buffer.
 */
import { Readable, Writable } from 'node:stream';
import { runCli } from '../src/cli.js';
import type { CliIo, InStream, OutStream } from '../src/io.js';

export interface Captured {
  readonly io: CliIo;
  readonly stdout: () => string;
  readonly stderr: () => string;
}

function sink(tty: boolean): { stream: OutStream; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
      cb();
    },
  }) as Writable & { isTTY?: boolean; columns?: number };
  if (tty) {
    stream.isTTY = true;
    stream.columns = 100;
  }
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

export function captureIo(opts: { stdin?: string | Buffer; stdoutTTY?: boolean; stderrTTY?: boolean; stdinTTY?: boolean; now?: number } = {}): Captured {
  const out = sink(opts.stdoutTTY === true);
  const err = sink(opts.stderrTTY === true);
  const stdin = Readable.from(opts.stdin === undefined ? [] : [Buffer.from(opts.stdin)]) as Readable & InStream;
  if (opts.stdinTTY === true) stdin.isTTY = true;
  const now = opts.now;
  return { io: { stdout: out.stream, stderr: err.stream, stdin, ...(now !== undefined ? { now: () => now } : {}) }, stdout: out.text, stderr: err.text };
}

/** Runs `ipintel ...argv` in-process on captured streams: exit code, stdout, stderr. */
export async function runCaptured(argv: readonly string[], opts: Parameters<typeof captureIo>[0] = {}) {
  const c = captureIo(opts);
  const code = await runCli([...argv], c.io);
  return { code, out: c.stdout(), err: c.stderr() };
}

/** Runs `ipintel batch - --snapshot SNAP ...args` in-process on `input`: exit code, stdout, stderr. */
export function runBatch(snap: string, input: string | Buffer, args: readonly string[] = [], opts: Omit<Parameters<typeof captureIo>[0], 'stdin'> = {}) {
  return runCaptured(['batch', '-', '--snapshot', snap, ...args], { ...opts, stdin: input });
}
