/**
 * The shape every built-in command has, so the dispatcher can parse flags,
 * print `--help` and run it the same way for all of them.
 *
 * @module
 */
import { flagHelp, type CommandSpec, type ParsedArgs } from '../args.js';
import type { CliIo } from '../io.js';

export interface Command {
  readonly spec: CommandSpec;
  /** One line for the command list. */
  readonly summary: string;
  /** `ipintel check <ip...> [flags]` */
  readonly usage: string;
  /** Longer explanation (output, rules), printed under the usage. */
  readonly details?: string;
  /** Example invocations, each with a comment. */
  readonly examples: readonly string[];
  /**
   * A SIGINT/SIGTERM that came while the CLI started (main.ts latches them,
   * signal-latch.ts) is this command's first signal, heard through
   * io.onInterrupt as soon as it listens: batch stops cleanly on it. Absent:
   * such a signal has its default action once the command is known, as it
   * had before there was a latch.
   */
  readonly takesStartupSignal?: true;
  run(args: ParsedArgs, io: CliIo): Promise<number>;
}

/** The `--help` text of a command. */
export function commandHelp(c: Command): string {
  const parts = [`Usage: ${c.usage}`, '', c.summary];
  if (c.details !== undefined) parts.push('', c.details);
  parts.push('', 'Flags:', flagHelp(c.spec), '', 'Examples:', ...c.examples.map((e) => `  ${e}`));
  return `${parts.join('\n')}\n`;
}
