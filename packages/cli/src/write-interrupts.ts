/**
 * SIGINT and SIGTERM while `export` or `build` writes a file: the writer
 * (@ipintel/export's exportToFileAsync, @ipintel/builder's writes)
 * subscribes while its temporary file exists, and on a signal removes it,
 * leaves the file it would replace as it was, and fails with code
 * `interrupted`; the command then exits 130/143, as `batch` does when
 * stopped (docs/cli.md, "Exit codes").
 *
 * Only then: a listener defers a signal until the thread is free, and the
 * work before the write is long and synchronous (an MMDB built in memory,
 * a snapshot encoded), so outside the write Ctrl-C keeps its default
 * action and ends the process at once, with no temporary file to leave.
 *
 * @module
 */
import { EXIT_SIGINT, EXIT_SIGTERM } from './errors.js';
import type { CliIo, StopSignal } from './io.js';

export interface WriteInterrupts {
  /** For the writer: subscribes `stop` to the first SIGINT/SIGTERM; returns the unsubscribe function. */
  readonly subscribe: (stop: (by: string) => void) => () => void;
  /** The exit code for the signal that stopped the write: 130 (SIGINT) or 143 (SIGTERM). */
  exitCode(): number;
}

/**
 * The writer's subscription over `io.onInterrupt` (none without it: the
 * write is never interrupted, as in-process tests without a trigger).
 */
export function interruptsWhileWriting(io: CliIo): WriteInterrupts {
  let caught: StopSignal | undefined;
  return {
    subscribe: (stop) => {
      // A signal heard by an earlier write (the build's snapshot, as it was renamed) stops the next one at once.
      if (caught !== undefined) {
        stop(caught);
        return () => undefined;
      }
      if (io.onInterrupt === undefined) return () => undefined;
      return io.onInterrupt((signal) => {
        caught ??= signal;
        stop(signal);
      });
    },
    exitCode: () => (caught === 'SIGTERM' ? EXIT_SIGTERM : EXIT_SIGINT),
  };
}
