/**
 * `ipintel check <ip...>`: checks addresses given as arguments.
 *
 * Output: on a terminal, pretty JSON (an object for one address, an array for
 * several); otherwise compact JSON, one line per address (NDJSON), so scripts
 * can pipe it. `--pretty` / `--compact` override the detection. An argument
 * that is not an address gets `{ip, error: {code, message}}` in its place and
 * a message on stderr; the exit code is then 1. Space, tab and CR around an
 * argument are trimmed, exactly as batch trims lines (address-text.ts).
 *
 * @module
 */
import { IpIntelError, type CheckResult, type ResultFormat } from '@ipintel/core';
import { HELP_FLAG, stringFlag, type ParsedArgs } from '../args.js';
import { CliError, EXIT_INVALID_INPUT, EXIT_OK, UsageError } from '../errors.js';
import { trimAddress } from '../address-text.js';
import { explanationTable } from '../explain-table.js';
import { isTTY, writeOutput, type CliIo } from '../io.js';
import { missingSourcesWarning, openSnapshot, SNAPSHOT_FLAG, snapshotPath } from '../snapshot.js';
import type { Command } from './command.js';

async function run(args: ParsedArgs, io: CliIo): Promise<number> {
  if (args.flags['pretty'] !== undefined && args.flags['compact'] !== undefined) {
    throw new UsageError('--pretty and --compact exclude each other', 'check');
  }
  const format = (stringFlag(args, 'format') ?? 'native') as ResultFormat;
  const explain = args.flags['explain'] !== undefined;
  if (explain && format !== 'native') throw new UsageError('--explain goes with the native format', 'check');
  const intel = openSnapshot(snapshotPath(stringFlag(args, 'snapshot')));
  const warning = missingSourcesWarning('check', intel);
  if (warning !== null) io.stderr.write(warning);
  const pretty = args.flags['pretty'] !== undefined || (args.flags['compact'] === undefined && isTTY(io.stdout));
  // --explain on a terminal (no --pretty/--compact) prints a table per address.
  const tables = explain && args.flags['pretty'] === undefined && args.flags['compact'] === undefined && isTTY(io.stdout);
  let bad = 0;
  const results = args.positionals.map((ip) => {
    try {
      return intel.check(trimAddress(ip), { format, explain });
    } catch (e) {
      if (!(e instanceof IpIntelError)) throw e;
      // A missing or foreign sidecar is not the address's fault: stop with the library's message.
      if (e.code.startsWith('explain_')) throw new CliError(`${e.code}: ${e.message}`, 1);
      // Nor is a snapshot found damaged when its IPv6 index is decoded (on the first IPv6 address): exit 3, as at open.
      if (e.code === 'snapshot_corrupt') throw e;
      bad++;
      io.stderr.write(`ipintel check: ${e.message}\n`);
      return { ip, error: e.toJSON() };
    }
  });
  let text: string;
  if (tables) text = results.map((r) => ('error' in r ? `${r.ip}: ${r.error.message}\n` : explanationTable(r as CheckResult))).join('\n');
  else if (!pretty) text = results.map((r) => `${JSON.stringify(r)}\n`).join('');
  else text = `${JSON.stringify(results.length === 1 ? results[0] : results, null, 2)}\n`;
  await writeOutput(io.stdout, text);
  return bad === 0 ? EXIT_OK : EXIT_INVALID_INPUT;
}

export const checkCommand: Command = {
  summary: 'Check one or more IP addresses and print the results as JSON.',
  usage: 'ipintel check <ip...> [--format native|thirdparty] [--explain] [--snapshot PATH] [--pretty|--compact]',
  details: [
    'On a terminal the output is pretty JSON: one object, or an array for several addresses.',
    'Piped, it is compact: one JSON object per line, in argument order (NDJSON).',
    'An argument that is not an address prints {ip, error: {code, message}} in its place and a',
    'message on stderr. Exit code: 0 when all were answered, 1 when one was not an address.',
    '--explain adds why each field has its value (source, matched prefix, data date, rule) from',
    'the explain sidecar next to the snapshot: a table on a terminal, `explanation` in the JSON',
    'when piped or with --pretty/--compact. Without a sidecar it fails (exit 1, explain_unavailable).',
  ].join('\n'),
  examples: [
    'ipintel check 8.8.8.8                                  # pretty JSON on a terminal',
    'ipintel check 1.1.1.1 2606:4700::1111 --format thirdparty',
    'ipintel check 8.8.8.8 | jq .risk.score                  # compact when piped',
    'ipintel check 185.220.101.1 --explain                   # which source and rule said what',
  ],
  spec: {
    name: 'check',
    positionals: { min: 1, max: Number.POSITIVE_INFINITY, name: 'IP address' },
    flags: {
      format: { type: 'string', value: 'SHAPE', choices: ['native', 'thirdparty'], description: 'Result shape (default native).' },
      explain: { type: 'boolean', description: 'Say which source, prefix, data date and rule decided each field.' },
      snapshot: SNAPSHOT_FLAG,
      pretty: { type: 'boolean', description: 'Pretty JSON even when piped.' },
      compact: { type: 'boolean', description: 'One compact JSON line per address even on a terminal.' },
      help: HELP_FLAG,
    },
  },
  run,
};
