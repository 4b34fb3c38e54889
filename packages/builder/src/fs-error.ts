/**
 * A file system error in words, for the builder's messages:
 * "ENOENT: no such file or directory". The file system's own message names
 * the path it tried (a temporary file, a joined path), which the messages
 * name themselves; the error stays their `cause`.
 *
 * @module
 */
import { getSystemErrorMap } from 'node:util';

/** "CODE: description" for an error of the file system (it carries a code and a syscall), else null. */
export function fsErrorText(e: unknown): string | null {
  const err = e as NodeJS.ErrnoException;
  if (!(e instanceof Error) || typeof err.code !== 'string' || typeof err.syscall !== 'string') return null;
  const description = err.errno === undefined ? undefined : getSystemErrorMap().get(err.errno)?.[1];
  return `${err.code}${description === undefined ? '' : `: ${description}`}`;
}
