/**
 * `ipintel batch [FILE|-]`: checks one address per line, streaming, and
 * writes one row per line in order (NDJSON, CSV or a JSON array). Flag
 * handling and input opening live here; the pipeline is batch/run.ts.
 *
 * @module
 */
import { createReadStream, fstatSync, statSync } from 'node:fs';
import type { ResultFormat } from '@ipintel/core';
import { HELP_FLAG, stringFlag, type ParsedArgs } from '../args.js';
import { BlockProcessor } from '../batch/block.js';
import { selectColumns } from '../batch/columns.js';
import { RowTemplate, type OutputKind, type RenderOptions } from '../batch/template.js';
import { runBatch } from '../batch/run.js';
import { CliError, EXIT_INVALID_INPUT, EXIT_IO, EXIT_OK, EXIT_SIGINT, EXIT_SIGTERM, UsageError } from '../errors.js';
import { interruption, isTTY, type CliIo, type InStream, type StopSignal } from '../io.js';
import { missingSourcesWarning, openSnapshot, SNAPSHOT_FLAG, snapshotPath } from '../snapshot.js';
import type { Command } from './command.js';

const READ_CHUNK = 1024 * 1024;
const MAX_JOBS = 256;

/** Test hooks: where the worker script is, and smaller thresholds. */
export interface BatchHooks {
  workerUrl?: URL;
  blockBytes?: number;
  autoParallelBytes?: number;
}
export const batchHooks: BatchHooks = {};

interface Input {
  readonly stream: AsyncIterable<Uint8Array | string>;
  readonly size: number | null;
  /** Stops reading (a file stream is destroyed, stdin is paused and let go). */
  close(): void;
}

function openInput(arg: string | undefined, io: CliIo): Input {
  if (arg !== undefined && arg !== '-') {
    let st;
    try {
      st = statSync(arg);
    } catch (e) {
      throw new CliError(`cannot read ${arg}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`, EXIT_IO);
    }
    if (st.isDirectory()) throw new CliError(`cannot read ${arg}: it is a directory`, EXIT_IO);
    const stream = createReadStream(arg, { highWaterMark: READ_CHUNK });
    return { stream, size: st.isFile() ? st.size : null, close: () => stream.destroy() };
  }
  const stdin: InStream = io.stdin ?? process.stdin;
  if (arg === undefined && isTTY(stdin)) throw new UsageError('no input: give a FILE, or pipe addresses to stdin (or use "-")', 'batch');
  let size: number | null = null;
  if (typeof stdin.fd === 'number') {
    try {
      const st = fstatSync(stdin.fd);
      if (st.isFile()) size = st.size;
    } catch {
      // Not a real descriptor: size unknown.
    }
  }
  const close = (): void => {
    const s = stdin as InStream & { destroy?: () => void };
    if (typeof s.destroy === 'function') s.destroy();
  };
  return { stream: stdin as AsyncIterable<Uint8Array | string>, size, close };
}

function parseJobs(v: string | undefined): number | 'auto' {
  if (v === undefined || v === 'auto') return 'auto';
  const n = Number(v);
  if (!/^[0-9]+$/.test(v) || n < 1 || n > MAX_JOBS) throw new UsageError(`--jobs must be "auto" or a whole number 1..${MAX_JOBS} (got ${JSON.stringify(v)})`, 'batch');
  return n;
}

async function run(args: ParsedArgs, io: CliIo): Promise<number> {
  const format = (stringFlag(args, 'format') ?? 'native') as ResultFormat;
  const output = (stringFlag(args, 'output') ?? 'ndjson') as OutputKind;
  const fieldsFlag = stringFlag(args, 'fields');
  const render: RenderOptions = { format, output, fields: fieldsFlag === undefined ? undefined : selectColumns(format, fieldsFlag) };
  const jobs = parseJobs(stringFlag(args, 'jobs'));
  const path = snapshotPath(stringFlag(args, 'snapshot'));
  const input = openInput(args.positionals[0], io);
  const template = new RowTemplate(render);
  const intel = openSnapshot(path);
  const warning = missingSourcesWarning('batch', intel);
  if (warning !== null) io.stderr.write(warning);
  // SIGINT/SIGTERM: finish the rows in hand, close the output, exit 130/143 (issue 11 row 14).
  let caught: StopSignal | undefined;
  const interrupt = interruption(io);
  const stop = interrupt.signal.then((signal) => {
    caught = signal;
  });
  const summary = await runBatch({
    input: input.stream,
    totalBytes: input.size,
    out: io.stdout,
    err: io.stderr,
    output,
    header: template.header(),
    processor: new BlockProcessor(intel, template),
    config: { snapshotPath: path, render },
    // Workers read the main thread's columns from shared memory instead of loading the file again.
    share: () => intel.share(),
    jobs,
    progress: isTTY(io.stderr) && args.flags['no-progress'] === undefined,
    workerUrl: batchHooks.workerUrl,
    blockBytes: batchHooks.blockBytes,
    autoParallelBytes: batchHooks.autoParallelBytes,
    stop,
  }).finally(() => interrupt.dispose());
  if (summary.interrupted || summary.stopped) input.close();
  if (summary.interrupted) {
    io.stderr.write(`ipintel batch: stopped by ${caught} after ${summary.rows.toLocaleString('en-US')} rows; the output is complete up to there\n`);
    return caught === 'SIGTERM' ? EXIT_SIGTERM : EXIT_SIGINT;
  }
  // The reader went away (`| head`): stop quietly, as other filters do.
  if (summary.stopped) return EXIT_OK;
  if (summary.invalid > 0) {
    const first = summary.firstInvalid!;
    io.stderr.write(
      `ipintel batch: ${summary.invalid.toLocaleString('en-US')} of ${summary.rows.toLocaleString('en-US')} rows were not IP addresses ` +
        `(first: line ${first.line}: ${first.message})\n`,
    );
    return EXIT_INVALID_INPUT;
  }
  return EXIT_OK;
}

export const batchCommand: Command = {
  summary: 'Check many addresses, one per line, from a file or stdin (streaming).',
  usage: 'ipintel batch [FILE|-] [--output ndjson|csv|json] [--fields LIST] [--format native|thirdparty] [--jobs N|auto] [--snapshot PATH]',
  details: [
    'Reads FILE, or stdin when FILE is "-" or absent. One address per line; space, tab and CR',
    'around it are trimmed (as check trims an argument), nothing else; blank lines and lines',
    'starting with # are skipped. Every other line gives exactly one row, in input order. A line',
    'that is not an address gives a row with an "error" ({ip, error: {code, message}}; the',
    'error.* columns in CSV) and is counted on stderr; the run goes on. Exit code 0 when every',
    'row was answered, 1 when some were invalid; on Ctrl-C / SIGTERM the rows read so far are',
    'finished and the output closed (a JSON array included), exit 130 / 143.',
    '',
    'Outputs: ndjson (one JSON object per line), csv (header + flattened columns such as',
    'geo.country_code and risk.score; risk.reasons joined with ";"), json (one array, streamed).',
    '--fields selects flattened columns (a group name such as "geo" selects all of its columns);',
    'with ndjson/json the rows become flat objects keyed by column name.',
    'A progress bar with rate and ETA is drawn on stderr when it is a terminal.',
    '--jobs N: N threads check lines (the main thread and N-1 workers); auto = 1 for inputs',
    'under ~3 MB (about 200,000 lines), else one per core.',
  ].join('\n'),
  examples: [
    'ipintel batch ips.txt > results.ndjson                     # NDJSON, all fields',
    'ipintel batch ips.txt --output csv --fields ip,geo.country_code,risk.score > out.csv',
    'cat ips.txt | ipintel batch - --format thirdparty --output json   # one JSON array',
    'ipintel batch big.txt --jobs 4 --output csv > out.csv     # four threads',
  ],
  spec: {
    name: 'batch',
    positionals: { min: 0, max: 1, name: 'FILE' },
    flags: {
      output: { type: 'string', value: 'KIND', choices: ['ndjson', 'csv', 'json'], description: 'Output format (default ndjson).' },
      fields: { type: 'string', value: 'LIST', description: 'Comma-separated flattened columns or groups to output (default: all).' },
      format: { type: 'string', value: 'SHAPE', choices: ['native', 'thirdparty'], description: 'Result shape (default native).' },
      jobs: { type: 'string', value: 'N', description: 'Threads that check lines: a number, or auto (default: 1 for small inputs, else one per core).' },
      snapshot: SNAPSHOT_FLAG,
      'no-progress': { type: 'boolean', description: 'Do not draw the progress bar on a terminal.' },
      help: HELP_FLAG,
    },
  },
  run,
};
