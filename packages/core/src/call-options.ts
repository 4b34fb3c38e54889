/**
 * What a caller passes to `check()` and `checkBatch()` besides the address:
 * the options, read strictly (anything unexpected is a typed
 * `IpIntelError`, never a TypeError), and how a batch element that is not a
 * string is echoed in its error. Apart from intel.ts, which is the
 * snapshot's answers.
 *
 * @module
 */
import { IpIntelError, quoteInput } from './errors.js';
import type { CheckOptions, ResultFormat } from './types.js';

/** Whether an explanation is asked for; anything but a boolean is `invalid_input`. */
export function explainOf(options: CheckOptions | undefined | null): boolean {
  const explain = options?.explain;
  if (explain === undefined || explain === false) return false;
  if (explain === true) return true;
  throw new IpIntelError('invalid_input', `explain must be a boolean, got ${quoteInput(explain)}`);
}

/**
 * The format asked for. `null` and `undefined` options mean no options; any
 * other non-object is `invalid_input` (a typed error, never a TypeError).
 */
export function formatOf(options: unknown): ResultFormat {
  if (options === undefined || options === null) return 'native';
  if (typeof options !== 'object') throw new IpIntelError('invalid_input', `options must be an object, got ${quoteInput(options)}`);
  const format = (options as CheckOptions).format;
  if (format === undefined || format === 'native') return 'native';
  if (format === 'thirdparty') return 'thirdparty';
  throw new IpIntelError('invalid_format', `format must be "native" or "thirdparty", got ${quoteInput(format)}`);
}

/**
 * How a batch element that is not a string is echoed in its error: never by
 * calling the element's own code (`toString` may throw, recurse 20,000 arrays
 * deep or not exist), so building the error cannot fail.
 */
export function echoOf(input: unknown): string {
  switch (typeof input) {
    case 'string':
      return input;
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'undefined':
      return String(input);
    case 'symbol':
      return '[symbol]';
    default:
      return input === null ? 'null' : `[${typeof input}]`;
  }
}

/**
 * checkBatch's argument, if it is an iterable; `invalid_input` otherwise. A
 * String object is iterable too, by character: a string where a list was meant.
 */
export function batchIterable(ips: unknown): Iterable<unknown> {
  if (ips === null || typeof ips !== 'object' || ips instanceof String || typeof (ips as Record<symbol, unknown>)[Symbol.iterator] !== 'function') {
    throw new IpIntelError('invalid_input', `checkBatch expects an iterable of strings, got ${quoteInput(ips)}`);
  }
  return ips as Iterable<unknown>;
}

/** The elements of checkBatch's iterable (an array as it is); one whose iterator breaks the protocol (a non-object result) is `invalid_input`. */
export function batchElements(ips: Iterable<unknown>): readonly unknown[] {
  if (Array.isArray(ips)) return ips;
  try {
    return Array.from(ips);
  } catch (e) {
    if (e instanceof TypeError) throw new IpIntelError('invalid_input', `checkBatch could not iterate its argument: ${e.message}`);
    throw e;
  }
}
