/**
 * `ipintel build`: compiles the public feeds into a snapshot with
 * @ipintel/builder's buildSnapshot(), loaded only when the command runs.
 * A progress line on a terminal's stderr; the summary (build/summary.ts) on
 * stdout unless --quiet.
 *
 * @module
 */
import { resolve } from 'node:path';
import { defaultSnapshotPath, IpIntelError } from '@ipintel/core';
import type { BuildOptions } from '@ipintel/builder';
import { HELP_FLAG, stringFlag, type ParsedArgs } from '../args.js';
import { buildSummary, measureLoad } from '../build/summary.js';
import { CliError, EXIT_IO, EXIT_OK, UsageError } from '../errors.js';
import { isTTY, writeAsync, type CliIo } from '../io.js';
import { parseIsoDate, parseSeconds } from '../values.js';
import { interruptsWhileWriting } from '../write-interrupts.js';
import type { Command } from './command.js';
import { loadBuilder } from './load.js';

type Options = { -readonly [K in keyof BuildOptions]: BuildOptions[K] };

/** The default output: where open() looks ($IPINTEL_SNAPSHOT, else the @ipintel/data package), so a rebuild replaces what is read. */
function defaultOut(): string {
  try {
    return defaultSnapshotPath();
  } catch (e) {
    if (e instanceof IpIntelError) throw new UsageError(`give --out PATH (${e.message})`, 'build');
    throw e;
  }
}

/** BuildOptions from the flags; every usage error is found here, before the builder loads. */
export function buildOptions(args: ParsedArgs): Options {
  const fetch = args.flags['fetch'] !== undefined;
  const feeds = stringFlag(args, 'feeds');
  const mirror = stringFlag(args, 'mirror');
  const timeout = stringFlag(args, 'timeout');
  const save = stringFlag(args, 'save-feeds');
  if (feeds !== undefined && fetch) throw new UsageError('choose one of --feeds and --fetch', 'build');
  if ((mirror !== undefined || timeout !== undefined || save !== undefined) && !fetch) {
    throw new UsageError('--mirror, --timeout and --save-feeds go with --fetch', 'build');
  }
  // --out as given, as `export` takes it: resolve() dropped a trailing slash (`--out old.ipintel/`
  // replaced the file old.ipintel, where a shell's `>` says ENOTDIR), and messages name it as typed.
  const options: Options = { out: stringFlag(args, 'out') ?? defaultOut() };
  if (feeds !== undefined) options.feeds = resolve(feeds);
  if (fetch) {
    options.fetch = {
      ...(mirror === undefined ? {} : { mirror }),
      ...(timeout === undefined ? {} : { timeoutMs: parseSeconds(timeout, '--timeout', 'build') }),
      // The folder of the previous save holds each feed's last good copy.
      ...(save === undefined ? {} : { lastGood: resolve(save) }),
    };
    if (save !== undefined) options.saveFeeds = resolve(save);
  }
  const date = stringFlag(args, 'build-date');
  if (date !== undefined) options.buildDate = parseIsoDate(date, '--build-date', 'build');
  const attribution = stringFlag(args, 'attribution-url');
  if (attribution !== undefined) options.attributionUrl = attribution;
  if (args.flags['no-explain'] !== undefined) options.explain = false;
  return options;
}

/** BuildError codes that are input/output errors (exit 4, as for every command: export, batch). */
const IO_CODES: ReadonlySet<string> = new Set(['write_failed', 'manifest_unreadable', 'feeds_not_found']);

/** The builder's error classes, as the loaded module exports them. */
type ErrorClass = abstract new (...args: never[]) => { readonly code: string };

/**
 * The exit code of a failed build: 4 for a file that cannot be written or
 * read (the output; the --feeds folder and a feed file in it, as `batch`
 * for its input; the --save-feeds folder's manifest and the files it
 * lists), else 1 (a download that failed is the build failing, not this
 * machine's input). `classes` are the ones the loaded builder exports.
 */
export function buildFailureExit(e: unknown, classes: { readonly BuildError: ErrorClass; readonly AcquireError: ErrorClass }): number {
  const io = (e instanceof classes.BuildError && IO_CODES.has(e.code)) || (e instanceof classes.AcquireError && e.code === 'read_failed');
  return io ? EXIT_IO : 1;
}

async function run(args: ParsedArgs, io: CliIo): Promise<number> {
  const options = buildOptions(args);
  const quiet = args.flags['quiet'] !== undefined;
  const builder = await loadBuilder('build');
  const tty = isTTY(io.stderr) && !quiet;
  if (tty) options.progress = (m) => void io.stderr.write(`\r\x1b[K${m}`);
  // Listened for only while a file is written (see write-interrupts.ts): before, Ctrl-C ends the process at once.
  const interrupts = interruptsWhileWriting(io);
  options.interrupts = interrupts.subscribe;
  let report;
  try {
    report = await builder.buildSnapshot(options);
  } catch (e) {
    // Stopped while writing: that file is as it was, with no temporary file beside it; exit 130/143, as batch.
    if (e instanceof builder.BuildError && e.code === 'interrupted') throw new CliError(e.message, interrupts.exitCode());
    const hint = options.fetch !== undefined && options.saveFeeds === undefined && (e as { feed?: unknown }).feed !== undefined
      ? ' (with --save-feeds DIR a feed that fails is read from its last good copy in DIR)'
      : '';
    throw new CliError(`failed: ${(e as Error).message}${hint}`, buildFailureExit(e, builder));
  } finally {
    if (tty) io.stderr.write('\r\x1b[K');
  }
  if (!quiet) await writeAsync(io.stdout, buildSummary(report, measureLoad(report.out), (io.now ?? Date.now)()));
  return EXIT_OK;
}

export const buildCommand: Command = {
  summary: 'Compile the public feeds into a snapshot file.',
  usage: 'ipintel build [--feeds DIR | --fetch [--save-feeds DIR] [--mirror URL] [--timeout SECONDS]] [--out PATH] [flags]',
  details: [
    'Compiles public feeds into a snapshot. Geo and ASN always come from the npm data packages',
    '(DB-IP City Lite, ip-location-db ASN); every other signal from the feeds found in DIR (laid',
    'out like shared/feeds) or downloaded. The output file is replaced atomically, and only when',
    'the build succeeded; a source that shrank by more than half since the last build fails it.',
    'A symbolic link at --out stays a link: the file it leads to is replaced. A device, named pipe',
    'or socket there is refused, and a file that cannot be written fails the build naming --out.',
    'With --fetch --save-feeds DIR the downloaded files are written to DIR (laid out like a feeds',
    'folder; only the files its sources.json lists, when it has one), and a feed whose download',
    'fails is read from its last good copy in DIR: the summary names it and its older date stays.',
    'The explain sidecar (what each source said, for check --explain) is written next to the',
    'snapshot as <out>.explain unless --no-explain.',
    'abuse.ch (ThreatFox) serves its exports only with your free Auth-Key (https://auth.abuse.ch/):',
    'with $ABUSE_CH_AUTH_KEY set, --fetch sends it to abuse.ch hosts only, and never prints it.',
    'Exit code 0 when built, 1 when the build failed (the last snapshot stays), 2 for a usage error,',
    '4 when a file cannot be written (the last snapshot stays too), or the --feeds folder, a feed file',
    'in it, or the --save-feeds manifest or a file it lists cannot be read, 130/143 when SIGINT/SIGTERM stopped it while it wrote a file',
    '(that file stays as it was, with no temporary file beside it).',
  ].join('\n'),
  examples: ['ipintel build --feeds data/feeds --out world.ipintel', 'ipintel build --fetch --save-feeds feeds --timeout 120'],
  spec: {
    name: 'build',
    positionals: { min: 0, max: 0, name: '' },
    flags: {
      feeds: { type: 'string', value: 'DIR', description: 'Build offline from DIR.' },
      fetch: { type: 'boolean', description: 'Download every feed from its official URL.' },
      mirror: { type: 'string', value: 'URL', description: 'With --fetch: download <URL>/<feed path> instead.' },
      timeout: { type: 'string', value: 'SECONDS', description: 'With --fetch: per-feed timeout (default 60).' },
      'save-feeds': { type: 'string', value: 'DIR', description: 'With --fetch: write the downloads to DIR; a feed that fails is read from DIR.' },
      out: { type: 'string', value: 'PATH', description: 'Output file (default: $IPINTEL_SNAPSHOT, else the @ipintel/data package\'s world.ipintel, where open() looks).' },
      'build-date': { type: 'string', value: 'ISO', description: 'Build date to record (default $SOURCE_DATE_EPOCH, else the newest source date).' },
      'attribution-url': { type: 'string', value: 'URL', description: 'Link carried in every result\'s "attribution".' },
      'no-explain': { type: 'boolean', description: 'Do not write the explain sidecar <out>.explain (and remove an old one).' },
      quiet: { type: 'boolean', description: 'No progress, no summary.' },
      help: HELP_FLAG,
    },
  },
  run,
};
