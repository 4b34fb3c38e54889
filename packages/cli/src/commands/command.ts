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
  run(args: ParsedArgs, io: CliIo): Promise<number>;
}

/** The `--help` text of a command. */
export function commandHelp(c: Command): string {
  const parts = [`Usage: ${c.usage}`, '', c.summary];
  if (c.details !== undefined) parts.push('', c.details);
  parts.push('', 'Flags:', flagHelp(c.spec), '', 'Examples:', ...c.examples.map((e) => `  ${e}`));
  return `${parts.join('\n')}\n`;
}
