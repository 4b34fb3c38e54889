/**
 * The one error type of @ipintel/core. Every failure the library reports is an
 * `IpIntelError` with a stable `code`, so callers branch on `err.code`, never
 * on message text.
 *
 * @module
 */

/**
 * Every stable error code, with when it is thrown (docs/api.md shows the same
 * table; a test holds the two together). Adding one is a minor change;
 * renaming one is breaking.
 */
export const ERROR_CODES = {
  invalid_ip: 'the input is not an IPv4 or IPv6 address in an accepted text form',
  invalid_format: 'an option has a value outside its documented set (e.g. `format`)',
  invalid_input: "a call's argument has the wrong type (a batch that is not iterable, options that are not an object)",
  snapshot_corrupt: 'the snapshot bytes are truncated, altered or inconsistent',
  snapshot_version: 'the snapshot was written by a newer (or unknown) format version',
  snapshot_not_found: 'no snapshot file at the given or default path',
  explain_unavailable: 'an explanation was asked for but no explain sidecar was given or found next to the snapshot',
  explain_mismatch: 'the explain sidecar belongs to another build of the snapshot, or does not re-derive its answer',
  explain_corrupt: 'the explain sidecar bytes are truncated, altered or of an unknown format version',
} as const;

/** Stable error codes (see {@link ERROR_CODES}). */
export type IpIntelErrorCode = keyof typeof ERROR_CODES;

/** Longest part of a caller's input quoted back in a message. */
const QUOTE_LIMIT = 64;

/** Quotes untrusted input for an error message: JSON-escaped and truncated. */
export function quoteInput(input: unknown): string {
  if (typeof input !== 'string') return `a value of type ${input === null ? 'null' : typeof input}`;
  const cut = input.length > QUOTE_LIMIT ? `${input.slice(0, QUOTE_LIMIT)}…` : input;
  return JSON.stringify(cut);
}

/**
 * The mark every copy of {@link IpIntelError} puts on its errors. A process
 * can hold several copies of the class: the ES and CommonJS builds (a `require`
 * and an `import` of the package in one program), each CommonJS entry
 * (`@ipintel/core`, `/portable`) bundled on its own, two installed versions.
 * A registered symbol is the same in all of them, so `instanceof` holds
 * across copies.
 */
const BRAND: unique symbol = Symbol.for('@ipintel/core:IpIntelError');

/**
 * @example
 * try { intel.check('1.2.3') } catch (e) { if (e instanceof IpIntelError) e.code } // => 'invalid_ip'
 */
export class IpIntelError extends Error {
  /** True for an error any copy of this class made (see BRAND), by its mark rather than its prototype chain. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }

  override readonly name = 'IpIntelError';
  readonly code: IpIntelErrorCode;
  /** Where the problem was found (a section name, an input index, a path). */
  readonly at: string | undefined;

  constructor(code: IpIntelErrorCode, message: string, at?: string) {
    super(message);
    this.code = code;
    this.at = at;
  }

  /** The mark `instanceof` reads: on the prototype, so it is no own property of an error (nor in its JSON). */
  get [BRAND](): true {
    return true;
  }

  /** Plain form for JSON bodies and batch elements. */
  toJSON(): { code: IpIntelErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

/** The error for input that is not an address; the message quotes the input. */
export function invalidIp(input: unknown, why: string): IpIntelError {
  return new IpIntelError('invalid_ip', `${quoteInput(input)} is not a valid IP address: ${why}`);
}

/** The error for a snapshot that cannot be trusted. */
export function corrupt(why: string, at?: string): IpIntelError {
  return new IpIntelError('snapshot_corrupt', `snapshot is corrupt: ${why}`, at);
}
