/**
 * `runCli(argv, io)`: the whole CLI as a function. Parses the command's flags
 * (one parser, args.ts, for every command), answers `help` / `--help` /
 * `--version`, runs the command and turns any failure into a message and an
 * exit code (see errors.ts). main.ts calls it with the process's streams;
 * tests call it with in-memory ones.
 *
 * `build`, `serve`, `keys` and `export` are CLI commands like the others
 * (their flags, help and errors live here); they load @ipintel/builder,
 * @ipintel/server or @ipintel/export only when they run (commands/load.ts).
 *
 * @module
 */
import { parseArgs } from './args.js';
import { batchCommand } from './commands/batch.js';
import { buildCommand } from './commands/build.js';
import { checkCommand } from './commands/check.js';
import { exportCommand } from './commands/export.js';
import { commandHelp, type Command } from './commands/command.js';
import { infoCommand } from './commands/info.js';
import { keysCommand } from './commands/keys.js';
import { serveCommand } from './commands/serve.js';
import { EXIT_OK, reportError, UsageError } from './errors.js';
import { processIo, writeOutput, type CliIo } from './io.js';
import { VERSION } from './version.js';

export const COMMANDS: Readonly<Record<string, Command>> = {
  check: checkCommand,
  batch: batchCommand,
  info: infoCommand,
  export: exportCommand,
  build: buildCommand,
  serve: serveCommand,
  keys: keysCommand,
};

/**
 * Whether the command `argv` names takes a signal that came while the CLI
 * started as its own (Command.takesStartupSignal; main.ts).
 *
 * @example
 * takesStartupSignal(['batch', 'ips.txt']) // => true
 * takesStartupSignal(['serve']) // => false
 */
export function takesStartupSignal(argv: readonly string[]): boolean {
  const name = argv[0];
  return name !== undefined && Object.hasOwn(COMMANDS, name) && COMMANDS[name]!.takesStartupSignal === true;
}

/** The top-level help: every command with its summary. */
export function mainHelp(): string {
  const names = [...Object.keys(COMMANDS), 'help'];
  const summary = (n: string): string => COMMANDS[n]?.summary ?? 'Show help for a command ("ipintel help batch").';
  const width = Math.max(...names.map((n) => n.length));
  return [
    'Usage: ipintel <command> [flags]',
    '',
    'IP intelligence from a local snapshot: geolocation, network, abuse signals and a risk score.',
    '',
    'Commands:',
    ...names.map((n) => `  ${n.padEnd(width)}  ${summary(n)}`),
    '',
    'Flags:',
    '  -h, --help     Show help (also "ipintel <command> --help").',
    '      --version  Print the version.',
    '',
    'Examples:',
    '  ipintel check 8.8.8.8',
    '  ipintel batch ips.txt --output csv > out.csv',
    '  ipintel info',
    '',
    'The snapshot is --snapshot PATH, else $IPINTEL_SNAPSHOT, else the one in the @ipintel/data package.',
    '',
  ].join('\n');
}

async function help(topic: string | undefined, io: CliIo): Promise<number> {
  if (topic === undefined) {
    await writeOutput(io.stdout, mainHelp());
    return EXIT_OK;
  }
  const c = Object.hasOwn(COMMANDS, topic) ? COMMANDS[topic] : undefined;
  if (c !== undefined) {
    await writeOutput(io.stdout, commandHelp(c));
    return EXIT_OK;
  }
  throw new UsageError(`unknown command ${JSON.stringify(topic)}`, '');
}

/**
 * Runs the CLI and resolves to the exit code. Never rejects.
 *
 * @example
 * await runCli(['check', '8.8.8.8', '--compact'], { stdout, stderr }) // => 0
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  const cmdName = name !== undefined && Object.hasOwn(COMMANDS, name) ? name : '';
  try {
    if (name === undefined) {
      io.stderr.write(mainHelp());
      return 2;
    }
    if (name === '--version' || name === '-V') {
      if (rest.length > 0) throw new UsageError(`--version takes no arguments`, '');
      await writeOutput(io.stdout, `${VERSION}\n`);
      return EXIT_OK;
    }
    if (name === 'help' || name === '--help' || name === '-h') {
      if (rest.length > 1) throw new UsageError('help takes at most one command name', '');
      return await help(rest[0], io);
    }
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (command !== undefined) {
      const args = parseArgs(rest, command.spec);
      if (args.flags['help'] !== undefined) {
        await writeOutput(io.stdout, commandHelp(command));
        return EXIT_OK;
      }
      return await command.run(args, io);
    }
    throw new UsageError(name.startsWith('-') ? `unknown flag ${name}` : `unknown command ${JSON.stringify(name)}`, '');
  } catch (e) {
    return reportError(e, io.stderr, cmdName);
  }
}
