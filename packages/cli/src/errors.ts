/**
 * Exit codes and the one place that turns a failure into a message.
 *
 * Exit codes are part of the CLI's contract (docs/cli.md):
 *   0 all inputs answered        1 some inputs were not addresses (rows carry the error)
 *   2 usage error (bad flag)     3 snapshot missing, corrupt or of another version
 *   4 input/output error         5 a command's package failed to load
 *  70 internal error (a bug; the stack is printed)
 * 130 / 143 stopped by SIGINT / SIGTERM (128 + the signal's number), after
 *     finishing cleanly (batch: complete rows, a closed JSON array)
 * build, serve and keys use the same codes (1 for a failure of their own).
 *
 * @module
 */
import { IpIntelError } from '@ipintel/core';
import type { OutStream } from './io.js';

export const EXIT_OK = 0;
export const EXIT_INVALID_INPUT = 1;
export const EXIT_USAGE = 2;
export const EXIT_SNAPSHOT = 3;
export const EXIT_IO = 4;
export const EXIT_UNAVAILABLE = 5;
/** A bug: an exception nobody expected (EX_SOFTWARE). */
export const EXIT_INTERNAL = 70;
/** Stopped by SIGINT (Ctrl-C) after finishing cleanly: 128 + 2, as shells report it. */
export const EXIT_SIGINT = 130;
/** Stopped by SIGTERM after finishing cleanly: 128 + 15. */
export const EXIT_SIGTERM = 143;

/** A problem with how the command was called; printed with a pointer to `--help`. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The command whose help to point at (`ipintel <command> --help`), if any. */
  readonly command: string | undefined;
  constructor(message: string, command?: string) {
    super(message);
    this.command = command;
  }
}

/** A failure with a known exit code and a message meant for the user. */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly exitCode: number;
  constructor(message: string, exitCode: number) {
    super(message);
    this.exitCode = exitCode;
  }
}

const SNAPSHOT_CODES = new Set(['snapshot_corrupt', 'snapshot_version', 'snapshot_not_found']);

/** The exit code for a library error: 3 for a snapshot that is missing, corrupt or of another version, else 1. */
export function libraryExitCode(err: IpIntelError): number {
  return SNAPSHOT_CODES.has(err.code) ? EXIT_SNAPSHOT : EXIT_INVALID_INPUT;
}

/**
 * An error thrown in a batch worker, as the CliError the main thread reports:
 * a worker's own exceptions reach the main thread as plain Errors (their class
 * is lost), so the exit code is decided where the class is still known.
 */
export function workerFailure(err: unknown): { message: string; exitCode: number } {
  if (err instanceof CliError) return { message: err.message, exitCode: err.exitCode };
  if (err instanceof IpIntelError) return { message: err.message, exitCode: libraryExitCode(err) };
  return { message: `internal error in a batch worker: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`, exitCode: EXIT_INTERNAL };
}

/** Prints `err` on stderr as `ipintel <command>: <message>` and returns the exit code. */
export function reportError(err: unknown, stderr: OutStream, command: string): number {
  const prefix = command === '' ? 'ipintel' : `ipintel ${command}`;
  if (err instanceof UsageError) {
    const help = err.command ?? command;
    stderr.write(`${prefix}: ${err.message}\nRun "ipintel ${help === '' ? '' : `${help} `}--help" for usage.\n`);
    return EXIT_USAGE;
  }
  if (err instanceof CliError) {
    stderr.write(`${prefix}: ${err.message}\n`);
    return err.exitCode;
  }
  if (err instanceof IpIntelError) {
    stderr.write(`${prefix}: ${err.message}\n`);
    return libraryExitCode(err);
  }
  const e = err as NodeJS.ErrnoException;
  if (e !== null && typeof e === 'object' && typeof e.code === 'string' && typeof e.syscall === 'string') {
    stderr.write(`${prefix}: ${e.message}\n`);
    return EXIT_IO;
  }
  stderr.write(`${prefix}: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return EXIT_INTERNAL;
}
