/**
 * The load options' types, checked when a snapshot is loaded. Each one is
 * read later, some only on a rare call (`explain` on the first explained
 * check, `inflate` on the first IPv6 one): unchecked, a wrong value showed
 * up as a raw `TypeError` far from its cause, or as a wrong answer (a
 * number as `attributionUrl` in every result, `preload: 'yes'` read as
 * false). A wrong type is `invalid_input` at the load, naming the option.
 *
 * @module
 */
import { IpIntelError, quoteInput } from './errors.js';
import type { Inflate } from './snapshot/decode.js';

/** What `loadSnapshot`, `open`, `openSync` and `fromShared` take (intel.ts re-exports it). */
export interface LoadOptions {
  /** Inflater for the payload and the explain sidecar (default: Node's native zlib from `@ipintel/core`, fflate's from `@ipintel/core/portable`). */
  readonly inflate?: Inflate;
  /** Clock in ms since the epoch, for `allocation_age_days` (default `Date.now`). */
  readonly now?: () => number;
  /** Overrides the snapshot's attribution URL (a server sets its own `/attribution`). */
  readonly attributionUrl?: string;
  /**
   * The explain sidecar of this snapshot (`<snapshot>.explain`), or a
   * function that reads it: used only by `check(ip, { explain: true })`,
   * on the first such call. Node's `open(path)` reads the file next to the
   * snapshot (or `explainPath`) by default.
   */
  readonly explain?: Uint8Array | (() => Uint8Array);
  /**
   * Decode every column at load (default `false`). Without it the IPv6
   * index columns (31 MB of the world snapshot's 110) are checksummed at
   * load but inflated and checked on the first call that needs them (an
   * IPv6 `check`, `match`...; `share()` hands them on as stored, and each
   * thread that opens the shared snapshot decodes its own): an IPv4-only workload never pays
   * for them, and the first IPv6 call pays once (~60-100 ms for the world
   * snapshot). Pass `true` where a first-call pause or a late refusal would
   * hurt: a server (which must refuse a damaged file before it replaces the
   * one in service) or a build that proves its output. Either way a file
   * that fails a checksum is refused at load.
   */
  readonly preload?: boolean;
}

export type Kind = 'function' | 'string' | 'boolean' | 'Uint8Array or function';

/** Each option and what it must be when given. */
export const LOAD_OPTION_KINDS: Readonly<Record<keyof LoadOptions, Kind>> = {
  inflate: 'function',
  now: 'function',
  attributionUrl: 'string',
  explain: 'Uint8Array or function',
  preload: 'boolean',
};

function fits(value: unknown, kind: Kind): boolean {
  if (kind === 'Uint8Array or function') return value instanceof Uint8Array || typeof value === 'function';
  return typeof value === kind;
}

/**
 * The options as given when each has its documented type (`undefined`
 * counts as not given; `null` for the whole object means none); otherwise
 * `invalid_input`. `kinds` says what each option must be (an entry that
 * takes more options, as Node's `open` does, passes its own). Options it
 * does not name are left alone.
 */
export function checkLoadOptions<O extends LoadOptions>(options: O | null | undefined, fn: string, kinds: Readonly<Record<string, Kind>> = LOAD_OPTION_KINDS): O | undefined {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object') throw new IpIntelError('invalid_input', `${fn}'s options must be an object, got ${quoteInput(options)}`);
  for (const [key, kind] of Object.entries(kinds)) {
    const value: unknown = (options as Record<string, unknown>)[key];
    if (value !== undefined && !fits(value, kind)) throw new IpIntelError('invalid_input', `options.${key} of ${fn} must be of type ${kind}, got ${quoteInput(value)}`);
  }
  return options;
}
