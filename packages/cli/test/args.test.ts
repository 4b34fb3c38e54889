import { describe, expect, it } from 'vitest';
import { HELP_FLAG, parseArgs, type CommandSpec } from '../src/args.js';
import { UsageError } from '../src/errors.js';

const spec: CommandSpec = {
  name: 'demo',
  positionals: { min: 0, max: 2, name: 'FILE' },
  flags: {
    output: { type: 'string', choices: ['a', 'b'], description: '' },
    name: { type: 'string', description: '' },
    snapshot: { type: 'string', value: 'PATH', description: '' },
    feeds: { type: 'string', value: 'DIR', description: '' },
    quiet: { type: 'boolean', short: 'q', description: '' },
    help: HELP_FLAG,
  },
};

const fails = (argv: string[], message: RegExp): void => {
  let err: unknown;
  try {
    parseArgs(argv, spec);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(UsageError);
  expect((err as Error).message).toMatch(message);
};

describe('parseArgs', () => {
  it('reads long, inline, short, boolean flags and positionals', () => {
    const a = parseArgs(['x', '--output', 'a', '--name=n=1', '-q', '-'], spec);
    expect(a.flags).toEqual({ output: 'a', name: 'n=1', quiet: true });
    expect(a.positionals).toEqual(['x', '-']);
  });

  it('refuses an empty path or folder (it would name the working folder), inline or not; other values may be empty', () => {
    fails(['--snapshot='], /--snapshot needs a value \(PATH\), got an empty one/);
    fails(['--feeds', ''], /--feeds needs a value \(DIR\), got an empty one/);
    expect(parseArgs(['--name='], spec).flags).toEqual({ name: '' });
    expect(parseArgs(['--snapshot', ' '], spec).flags).toEqual({ snapshot: ' ' });
  });

  it('treats everything after -- as positional', () => {
    expect(parseArgs(['--', '--output', '-q'], spec).positionals).toEqual(['--output', '-q']);
  });

  it('rejects unknown flags, long and short', () => {
    fails(['--nope'], /unknown flag --nope/);
    fails(['-x'], /unknown flag -x/);
    fails(['-qq'], /unknown flag -qq/);
  });

  it('rejects a missing value, a value outside the choices, a value for a boolean, a repeat', () => {
    fails(['--name'], /--name needs a value/);
    fails(['--name', '--quiet'], /--name needs a value/);
    fails(['--output', 'c'], /--output must be one of a, b/);
    fails(['--quiet=yes'], /--quiet takes no value/);
    fails(['-q', '--quiet'], /given more than once/);
  });

  it('checks the positional count, except with --help', () => {
    fails(['a', 'b', 'c'], /too many arguments/);
    expect(() => parseArgs([], { ...spec, positionals: { min: 1, max: 1, name: 'FILE' } })).toThrow(/missing FILE/);
    expect(parseArgs(['--help'], { ...spec, positionals: { min: 1, max: 1, name: 'FILE' } }).flags['help']).toBe(true);
  });
});
