/**
 * Shared pieces of the `serve` and `keys` commands: the io they write to,
 * strict flag parsing (unknown flags are errors) and durations.
 *
 * @module
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface CommandIO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** Stops a long-running command (serve) as SIGINT would; for hosts and tests. */
  readonly signal?: AbortSignal;
}

/** Exit code for a usage error (bad flag or argument). */
export const USAGE_ERROR = 2;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** What parseFlags returns. */
export interface ParsedFlags {
  readonly values: Record<string, string | boolean | undefined>;
  readonly positionals: string[];
}

/** Parses flags strictly; throws UsageError with a readable message. */
export function parseFlags(argv: string[], options: Options, allowPositionals: boolean): ParsedFlags {
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals, strict: true });
    return { values: values as ParsedFlags['values'], positionals };
  } catch (e) {
    throw new UsageError((e as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
}

/** A string flag's value, or undefined. */
export function str(flags: ParsedFlags, name: string): string | undefined {
  const v = flags.values[name];
  return typeof v === 'string' ? v : undefined;
}

/**
 * Parses a duration: a number of seconds, or a number with ms, s, m or h.
 *
 * @example
 * parseDuration('90s') // => 90000
 * parseDuration('500ms') // => 500
 */
export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (m === null) throw new UsageError(`${flag} takes a duration such as 60, 60s, 500ms, 2m or 1h; got ${JSON.stringify(text)}`);
  const unit = m[2] ?? 's';
  const scale = unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000;
  return Math.round(Number(m[1]) * scale);
}

/** Parses a TCP port. */
export function parsePort(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 65_535) throw new UsageError(`--port takes a number from 0 to 65535; got ${JSON.stringify(text)}`);
  return n;
}

export function write(stream: NodeJS.WritableStream, text: string): void {
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}
