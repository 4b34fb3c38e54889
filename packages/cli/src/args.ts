/**
 * A tiny strict argument parser shared by every command, so all of them
 * agree on syntax and all reject what they do not know.
 *
 * Accepted: `--name value`, `--name=value`, boolean `--name`, the short
 * aliases a command declares (`-h`), `--` (everything after is positional)
 * and `-` (a positional: stdin). Rejected with a UsageError: unknown flags,
 * a missing value, a value for a boolean, a value outside `choices`, a flag
 * given twice, too few or too many positionals.
 *
 * @module
 */
import { UsageError } from './errors.js';

export interface FlagSpec {
  readonly type: 'boolean' | 'string';
  /** One-letter alias, without the dash. */
  readonly short?: string;
  /** Allowed values of a string flag. */
  readonly choices?: readonly string[];
  /** Placeholder in help text, e.g. `PATH`. */
  readonly value?: string;
  readonly description: string;
}

export interface CommandSpec {
  /** `check`, `batch`, ... (for messages). */
  readonly name: string;
  readonly flags: Readonly<Record<string, FlagSpec>>;
  readonly positionals: { readonly min: number; readonly max: number; readonly name: string };
}

export interface ParsedArgs {
  /** Flag values by long name: string for string flags, `true` for booleans given. */
  readonly flags: Readonly<Record<string, string | true>>;
  readonly positionals: readonly string[];
}

/** Every command accepts `--help` / `-h`. */
export const HELP_FLAG: FlagSpec = { type: 'boolean', short: 'h', description: 'Show this help.' };

function lookupShort(spec: CommandSpec, letter: string): string | undefined {
  for (const [name, f] of Object.entries(spec.flags)) if (f.short === letter) return name;
  return undefined;
}

/** Parses `argv` (the arguments after the command name) against `spec`. */
export function parseArgs(argv: readonly string[], spec: CommandSpec): ParsedArgs {
  const flags: Record<string, string | true> = {};
  const positionals: string[] = [];
  const fail = (msg: string): never => {
    throw new UsageError(msg, spec.name);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-' || !arg.startsWith('-')) {
      positionals.push(arg);
      continue;
    }
    // 1. Name (and inline value) of a long or short flag.
    let name: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq < 0 ? undefined : arg.slice(eq + 1);
      if (!Object.hasOwn(spec.flags, name)) fail(`unknown flag --${name}`);
    } else {
      if (arg.length !== 2) fail(`unknown flag ${arg} (short flags take one letter; long flags start with --)`);
      name = lookupShort(spec, arg[1]!);
      if (name === undefined) fail(`unknown flag ${arg}`);
    }
    const flag = spec.flags[name!]!;
    if (Object.hasOwn(flags, name!)) fail(`--${name} given more than once`);
    // 2. Its value.
    if (flag.type === 'boolean') {
      if (inline !== undefined) fail(`--${name} takes no value`);
      flags[name!] = true;
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('-') && next !== '-')) fail(`--${name} needs a value${flag.value === undefined ? '' : ` (${flag.value})`}`);
      value = next!;
      i++;
    }
    // An empty path (`--snapshot=`, `--out ""`) would resolve to the working folder: say what is missing instead.
    if (value === '' && (flag.value === 'PATH' || flag.value === 'DIR')) fail(`--${name} needs a value (${flag.value}), got an empty one`);
    if (flag.choices !== undefined && !flag.choices.includes(value)) {
      fail(`--${name} must be one of ${flag.choices.join(', ')} (got ${JSON.stringify(value)})`);
    }
    flags[name!] = value;
  }
  // 3. Positional count (not enforced when asking for help).
  if (flags['help'] === undefined) {
    const { min, max, name } = spec.positionals;
    if (positionals.length < min) fail(`missing ${name}`);
    if (positionals.length > max) fail(max === 0 ? `unexpected argument ${JSON.stringify(positionals[0])}` : `too many arguments (at most ${max} ${name})`);
  }
  return { flags, positionals };
}

/** The value of a string flag, or undefined. */
export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags[name];
  return typeof v === 'string' ? v : undefined;
}

/** Renders the flags of a command as help lines. */
export function flagHelp(spec: CommandSpec): string {
  const rows = Object.entries(spec.flags).map(([name, f]) => {
    const left = `${f.short === undefined ? '    ' : `-${f.short}, `}--${name}${f.type === 'string' ? ` ${f.value ?? 'VALUE'}` : ''}`;
    return [left, f.description + (f.choices === undefined ? '' : ` (${f.choices.join('|')})`)] as const;
  });
  const width = Math.max(...rows.map(([l]) => l.length));
  return rows.map(([l, d]) => `  ${l.padEnd(width)}  ${d}`).join('\n');
}
