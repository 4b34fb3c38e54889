/**
 * `ipintel batch [FILE|-]`: checks one address per line, streaming, and
 * writes one row per line in order (NDJSON, CSV or a JSON array). Flag
 * handling and input opening live here; the pipeline is batch/run.ts.
 *
 * @module
 */
import { createReadStream, fstatSync, statSync } from 'node:fs';
import type { ResultFormat } from '@ipintel/core';
import { resultForLeaf } from '@ipintel/core/internal';
import { HELP_FLAG, stringFlag, type ParsedArgs } from '../args.js';
import { BlockProcessor } from '../batch/block.js';
import { CIDR_LIMIT, CIDR_LIMIT_MAX, CidrExpander } from '../batch/cidr.js';
import { selectColumns } from '../batch/columns.js';
import { GREP_LINES } from '../batch/grep.js';
import { mapLines, type LineMap } from '../batch/lines.js';
import { renderSummary, summaryColumns, SummarySink } from '../batch/summary.js';
import { RowTemplate, type OutputKind, type RenderOptions } from '../batch/template.js';
import { loadForBatch } from '../batch/load.js';
import { rowsSpace } from '../batch/records.js';
import { FLUSH_MS, runBatch, threadsOfRun, workersAtStart, type BatchSummary } from '../batch/run.js';
import type { WorkerPool } from '../batch/pool.js';
import { CliError, EXIT_INVALID_INPUT, EXIT_IO, EXIT_OK, EXIT_SIGINT, EXIT_SIGTERM, UsageError } from '../errors.js';
import { interruption, isTTY, writeAsync, type CliIo, type InStream, type StopSignal } from '../io.js';
import { missingSourcesWarning, SNAPSHOT_FLAG, snapshotPath } from '../snapshot.js';
import type { Command } from './command.js';

const READ_CHUNK = 1024 * 1024;
const MAX_JOBS = 256;

/** Test hooks: where the worker script is, and smaller thresholds. */
export interface BatchHooks {
  workerUrl?: URL;
  blockBytes?: number;
  autoParallelBytes?: number;
  /** Wait for the workers before the first block, so that tiny inputs reach them. */
  awaitWorkers?: boolean;
  /** The cores `--jobs auto` plans for, instead of this machine's (auto runs one thread a core on a large input). */
  cores?: number;
  /** Leave the IPv4 index's check to the first worker however long it takes to start (so that tests run that path; batch/load.ts). */
  indexOnWorker?: boolean;
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

/** A whole number from..to, or a usage error naming the flag. */
function parseCount(v: string, flag: string, from: number, to: number): number {
  const n = Number(v);
  if (!/^[0-9]+$/.test(v) || n < from || n > to) throw new UsageError(`${flag} must be a whole number ${from.toLocaleString('en-US')}..${to.toLocaleString('en-US')} (got ${JSON.stringify(v)})`, 'batch');
  return n;
}

/** What --summary changes, checked against the flags it cannot go with. */
function summaryMode(args: ParsedArgs): { readonly json: boolean; readonly top: number } | null {
  const top = stringFlag(args, 'top');
  if (args.flags['summary'] === undefined) {
    if (top !== undefined) throw new UsageError('--top goes with --summary', 'batch');
    return null;
  }
  const output = stringFlag(args, 'output');
  if (output !== undefined && output !== 'json') throw new UsageError('--summary prints a table, or JSON with --output json (not ndjson or csv)', 'batch');
  for (const f of ['fields', 'format'] as const) if (stringFlag(args, f) !== undefined) throw new UsageError(`--summary counts native results: --${f} does not go with it`, 'batch');
  return { json: output === 'json', top: top === undefined ? 10 : parseCount(top, '--top', 1, 1_000_000) };
}

async function run(args: ParsedArgs, io: CliIo): Promise<number> {
  const summary = summaryMode(args);
  const grep = args.flags['grep'] !== undefined;
  const limitFlag = stringFlag(args, 'cidr-limit');
  if (grep && limitFlag !== undefined) throw new UsageError('--cidr-limit does not go with --grep (which finds addresses, not CIDR blocks)', 'batch');
  const cidr = grep ? null : new CidrExpander(limitFlag === undefined ? CIDR_LIMIT : parseCount(limitFlag, '--cidr-limit', 1, CIDR_LIMIT_MAX));
  const lineMap: LineMap = grep ? GREP_LINES : cidr!;
  const format = (stringFlag(args, 'format') ?? 'native') as ResultFormat;
  const output = summary === null ? ((stringFlag(args, 'output') ?? 'ndjson') as OutputKind) : 'ndjson';
  const fieldsFlag = stringFlag(args, 'fields');
  const fields = fieldsFlag === undefined ? undefined : selectColumns(format, fieldsFlag);
  const jobs = parseJobs(stringFlag(args, 'jobs'));
  const path = snapshotPath(stringFlag(args, 'snapshot'));
  const input = openInput(args.positionals[0], io);
  // Workers start before the snapshot opens: their start overlaps the load (batch/pool.ts).
  const workers = workersAtStart(jobs, input.size, batchHooks.autoParallelBytes, batchHooks.workerUrl, batchHooks.cores);
  try {
    return await runOpened(args, io, { summary, cidr, lineMap, format, output, fields, jobs, path, input, workers });
  } finally {
    await workers?.close();
  }
}

interface Prepared {
  readonly summary: ReturnType<typeof summaryMode>;
  readonly cidr: CidrExpander | null;
  readonly lineMap: LineMap;
  readonly format: ResultFormat;
  readonly output: OutputKind;
  readonly fields: RenderOptions['fields'];
  readonly jobs: number | 'auto';
  readonly path: string;
  readonly input: Input;
  readonly workers: WorkerPool | null;
}

async function runOpened(args: ParsedArgs, io: CliIo, p: Prepared): Promise<number> {
  const { summary, cidr, input } = p;
  // SIGINT/SIGTERM: finish the rows in hand, close the output, exit 130/143 (issue 11 row 14); from
  // before the load (which waits on the thread pool), so that a signal during it stops the run the same way.
  let caught: StopSignal | undefined;
  const interrupt = interruption(io);
  const stop = interrupt.signal.then((signal) => {
    caught = signal;
  });
  let run: { result: BatchSummary; signalNames: string[]; sink: SummarySink | null };
  try {
    run = await loadAndRun(args, io, p, stop);
  } finally {
    interrupt.dispose();
  }
  const { result, signalNames, sink } = run;
  if (result.interrupted || result.stopped || cidr?.tooLarge != null) input.close();
  if (cidr?.tooLarge != null) {
    const { text, size } = cidr.tooLarge;
    throw new UsageError(
      `${text} holds ${size.toLocaleString('en-US')} addresses, more than --cidr-limit ${cidr.limit.toLocaleString('en-US')} ` +
        `(the output stops before it, after ${result.rows.toLocaleString('en-US')} rows): raise --cidr-limit (at most ${CIDR_LIMIT_MAX.toLocaleString('en-US')}) or split the block`,
      'batch',
    );
  }
  if (sink !== null && summary !== null) {
    const s = sink.summary(result.rows, result.invalid, signalNames);
    await writeAsync(io.stdout, summary.json ? `${JSON.stringify(s, null, 2)}\n` : renderSummary(s, summary.top));
  }
  if (result.interrupted) {
    io.stderr.write(`ipintel batch: stopped by ${caught} after ${result.rows.toLocaleString('en-US')} rows; the output is complete up to there\n`);
    return caught === 'SIGTERM' ? EXIT_SIGTERM : EXIT_SIGINT;
  }
  // The reader went away (`| head`): stop quietly, as other filters do.
  if (result.stopped) return EXIT_OK;
  if (result.invalid > 0) {
    const first = result.firstInvalid!;
    const expanded = cidr !== null && cidr.blocks > 0 ? ' (line numbers count each address of an expanded CIDR block as a line)' : '';
    io.stderr.write(
      `ipintel batch: ${result.invalid.toLocaleString('en-US')} of ${result.rows.toLocaleString('en-US')} rows were not IP addresses ` +
        `(first: line ${first.line}: ${first.message})${expanded}\n`,
    );
    return EXIT_INVALID_INPUT;
  }
  return EXIT_OK;
}

/** The load and the run itself (runOpened holds the signal handling around both). */
async function loadAndRun(args: ParsedArgs, io: CliIo, p: Prepared, stop: Promise<void>): Promise<{ result: BatchSummary; signalNames: string[]; sink: SummarySink | null }> {
  const { summary, lineMap, format, output, fields, jobs, path, input, workers } = p;
  // Straight into the memory the run's threads will share (batch/load.ts).
  const { intel, indexChecked, ...loaded } = await loadForBatch(path, workers, batchHooks.indexOnWorker === true);
  // --summary renders NDJSON rows of the columns it counts into a counting sink (batch/summary.ts);
  // the boolean signals are named from a result of this snapshot, so the counts follow the result shape.
  const sample = resultForLeaf(intel, 0, '0.0.0.0', 4);
  const signalNames = Object.entries(sample.signals).filter(([, v]) => typeof v === 'boolean').map(([k]) => k);
  const render: RenderOptions = { format, output, fields: summary !== null ? summaryColumns(signalNames) : fields };
  const template = new RowTemplate(render);
  // The memory the run's threads share (the snapshot's columns, the kernel's, the rendered runs), for as many as it may use.
  const space = rowsSpace(intel, template, threadsOfRun(jobs, batchHooks.cores), loaded);
  const sink = summary === null ? null : new SummarySink();
  // The IPv4 index's checks, which a worker may be running meanwhile (batch/load.ts): passed before any address is looked up,
  // and before the warning, which a refused snapshot does not get.
  await indexChecked;
  const warning = missingSourcesWarning('batch', intel);
  if (warning !== null) io.stderr.write(warning);
  const result = await runBatch({
    input: input.stream,
    totalBytes: input.size,
    out: sink ?? io.stdout,
    err: io.stderr,
    output,
    header: template.header(),
    processor: new BlockProcessor(intel, template, space, 0),
    config: { snapshotPath: path, render },
    // Workers read the main thread's columns from the shared memory instead of loading the file again.
    space,
    jobs,
    workers,
    awaitWorkers: batchHooks.awaitWorkers,
    progress: isTTY(io.stderr) && args.flags['no-progress'] === undefined,
    workerUrl: batchHooks.workerUrl,
    blockBytes: batchHooks.blockBytes,
    autoParallelBytes: batchHooks.autoParallelBytes,
    cores: batchHooks.cores,
    stop,
    lines: (text, cutLast) => mapLines(text, lineMap, cutLast),
  });
  return { result, signalNames, sink };
}

export const batchCommand: Command = {
  summary: 'Check many addresses, one per line, from a file or stdin (streaming); or count them (--summary).',
  usage:
    'ipintel batch [FILE|-] [--output ndjson|csv|json] [--fields LIST] [--format native|thirdparty] [--summary [--top N]] [--grep] [--cidr-limit N] [--jobs N|auto] [--snapshot PATH] [--no-progress]',
  details: [
    'Reads FILE, or stdin when FILE is "-" or absent. One address per line; space, tab and CR',
    'around it are trimmed (as check trims an argument), nothing else; blank lines and lines',
    'starting with # are skipped. Every other line gives exactly one row, in input order. A line',
    'that is not an address gives a row with an "error" ({ip, error: {code, message}}; the',
    'error.* columns in CSV) and is counted on stderr; the run goes on. Exit code 0 when every',
    'row was answered, 1 when some were invalid; on Ctrl-C / SIGTERM the rows read so far are',
    'finished and the output closed (a JSON array included), exit 130 / 143. A slow input is',
    `answered as it comes: lines that waited ${FLUSH_MS} ms for more input are checked and written at`,
    'once, so `tail -f access.log | ipintel batch --grep` streams.',
    '',
    'A line that is a CIDR block (10.0.0.0/24, 2001:db8::/120; host bits zero) gives one row per',
    'address in it, in order. A block larger than --cidr-limit (default 65,536 addresses: a /16',
    'of IPv4, a /112 of IPv6) stops the run before it (the rows before are written) with a usage',
    'error, exit 2. --grep instead takes the addresses written anywhere in each line (log lines:',
    'IPv4, IPv6, with :port or [brackets]), one row each; lines without one give no row.',
    '',
    'Outputs: ndjson (one JSON object per line), csv (header + flattened columns such as',
    'geo.country_code and risk.score; risk.reasons joined with ";"), json (one array, streamed).',
    '--fields selects flattened columns (a group name such as "geo" selects all of its columns);',
    'with ndjson/json the rows become flat objects keyed by column name.',
    '--summary prints counts instead of rows: per country, ASN, connection type, signal and risk',
    'level, as tables (the --top N entries of each, default 10) or, with --output json, as one',
    'JSON object with every entry.',
    'A progress bar with rate and ETA is drawn on stderr when it is a terminal.',
    '--jobs N: N threads check lines (the main thread and N-1 workers); auto = 1 for inputs',
    'under ~3 MB (about 200,000 lines), else one per core.',
  ].join('\n'),
  examples: [
    'ipintel batch ips.txt > results.ndjson                     # NDJSON, all fields',
    'ipintel batch ips.txt --output csv --fields ip,geo.country_code,risk.score > out.csv',
    'cat ips.txt | ipintel batch - --format thirdparty --output json   # one JSON array',
    'ipintel batch big.txt --jobs 4 --output csv > out.csv     # four threads',
    'echo 192.0.2.0/28 | ipintel batch                          # 16 rows, one per address',
    'ipintel batch access.log --grep --summary                 # who is in this log?',
    'ipintel batch ips.txt --summary --output json | jq .countries',
  ],
  spec: {
    name: 'batch',
    positionals: { min: 0, max: 1, name: 'FILE' },
    flags: {
      output: { type: 'string', value: 'KIND', choices: ['ndjson', 'csv', 'json'], description: 'Output format (default ndjson; with --summary: a table, or json).' },
      fields: { type: 'string', value: 'LIST', description: 'Comma-separated flattened columns or groups to output (default: all).' },
      format: { type: 'string', value: 'SHAPE', choices: ['native', 'thirdparty'], description: 'Result shape (default native).' },
      summary: { type: 'boolean', description: 'Print counts per country, ASN, connection type, signal and risk level instead of rows.' },
      top: { type: 'string', value: 'N', description: 'With --summary: entries per table (default 10; JSON has all).' },
      grep: { type: 'boolean', description: 'Take the addresses written anywhere in each line (logs), one row each.' },
      'cidr-limit': { type: 'string', value: 'N', description: `Largest CIDR block expanded, in addresses (default ${CIDR_LIMIT.toLocaleString('en-US')}, at most ${CIDR_LIMIT_MAX.toLocaleString('en-US')}).` },
      jobs: { type: 'string', value: 'N', description: 'Threads that check lines: a number, or auto (default: 1 for inputs under ~3 MB, else one per core).' },
      snapshot: SNAPSHOT_FLAG,
      'no-progress': { type: 'boolean', description: 'Do not draw the progress bar on a terminal.' },
      help: HELP_FLAG,
    },
  },
  // A Ctrl-C while the CLI loads stops the run as one during it does: before any line is read, the output closed.
  takesStartupSignal: true,
  run,
};
