/**
 * The one error type of @ipintel/export: a code a caller can branch on and
 * a message meant for a person.
 *
 * @module
 */

export type ExportErrorCode =
  /** A field name that no exported field has. */
  | 'unknown_field'
  /** A signal name that is not a boolean signal of the result. */
  | 'unknown_signal'
  /** An option of the wrong type or out of range. */
  | 'invalid_option'
  /** The data does not fit the format (an MMDB over 4 GiB or its data section over 2 GiB, a map over 16 million entries). */
  | 'too_large'
  /**
   * The file cannot be written (a missing directory, no permission, a full disk, a directory at
   * the path); the message names the path given, `cause` is the file system's error.
   */
  | 'write_failed'
  /**
   * exportToFileAsync was stopped (its `interrupts` reported SIGINT or SIGTERM) before the file
   * was replaced: the temporary file is removed and the file at the path is as it was.
   */
  | 'interrupted';

export class ExportError extends Error {
  override readonly name = 'ExportError';
  readonly code: ExportErrorCode;
  constructor(code: ExportErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
