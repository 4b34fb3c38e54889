/**
 * `ipintel export`: the snapshot as an MMDB file or CSV ranges, through
 * @ipintel/export (loaded only when the command runs). Prints what it wrote
 * (size, records, ranges, time) unless --quiet.
 *
 * @module
 */
import { extname } from 'node:path';
import type { ExportFormat, ExportSummary } from '@ipintel/export';
import { HELP_FLAG, stringFlag, type ParsedArgs } from '../args.js';
import { CliError, EXIT_IO, EXIT_OK, UsageError } from '../errors.js';
import { expandFields, listItems } from '../fields.js';
import { writeAsync, type CliIo } from '../io.js';
import { interruptsWhileWriting } from '../write-interrupts.js';
import { openSnapshot, SNAPSHOT_FLAG, snapshotPath } from '../snapshot.js';
import type { Command } from './command.js';
import { loadExport } from './load.js';

const FORMATS: readonly ExportFormat[] = ['mmdb', 'csv'];

/** --format, else the extension of --out (.mmdb, .csv). */
function formatOf(args: ParsedArgs, out: string): ExportFormat {
  const flag = stringFlag(args, 'format');
  if (flag !== undefined) return flag as ExportFormat;
  const ext = extname(out).slice(1).toLowerCase();
  if ((FORMATS as readonly string[]).includes(ext)) return ext as ExportFormat;
  throw new UsageError(`give --format mmdb or --format csv (the name ${JSON.stringify(out)} does not end in .mmdb or .csv)`, 'export');
}

const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;
const count = (n: number): string => n.toLocaleString('en-US');

/** The summary line(s): what was written, how big, how long. */
export function exportSummary(s: ExportSummary): string {
  const shape = s.format === 'mmdb' ? `MMDB, ${s.recordSize}-bit records, ${count(s.nodes!)} tree nodes` : `CSV, ${count(s.rows!)} rows (CIDR blocks)`;
  return (
    `wrote ${s.path}: ${mb(s.bytes)} (${shape})\n` +
    `  ${count(s.records)} distinct records over ${count(s.ranges.v4)} IPv4 + ${count(s.ranges.v6)} IPv6 ranges, in ${(s.ms / 1000).toFixed(1)} s\n`
  );
}

async function run(args: ParsedArgs, io: CliIo): Promise<number> {
  const outFlag = stringFlag(args, 'out');
  if (outFlag === undefined) throw new UsageError('give --out PATH (the file to write)', 'export');
  // As given, not resolve()d: resolving dropped a trailing slash (`--out old.mmdb/` replaced the
  // file old.mmdb, where the library, as a shell's `>`, says ENOTDIR) and made the messages name
  // an absolute path instead of PATH as given. A relative path is the working folder's either way.
  const out = outFlag;
  const format = formatOf(args, outFlag);
  const fieldsFlag = stringFlag(args, 'fields');
  const signalsFlag = stringFlag(args, 'signals');
  const path = snapshotPath(stringFlag(args, 'snapshot'));
  const ex = await loadExport('export');
  const intel = openSnapshot(path);
  const sample = ex.sampleResult(intel);
  // Names are checked here, with the one --fields rule; the package gets exact names.
  const all = ex.exportableFields(sample).map((f) => f.name);
  const fields = fieldsFlag === undefined ? undefined : expandFields(all, fieldsFlag, 'export');
  let signals: string[] | undefined;
  if (signalsFlag !== undefined) {
    const known = ex.signalNames(sample);
    signals = listItems(signalsFlag);
    const unknown = signals.find((s) => !known.includes(s));
    if (unknown !== undefined) throw new UsageError(`unknown signal ${JSON.stringify(unknown)}; signals: ${known.join(', ')}`, 'export');
    if (signals.length === 0) throw new UsageError('--signals lists no signal', 'export');
  }
  let summary: ExportSummary;
  // Listened for only while the file is written (see write-interrupts.ts): before, Ctrl-C ends the process at once.
  const interrupts = interruptsWhileWriting(io);
  try {
    summary = await ex.exportToFileAsync(intel, format, out, { ...(fields === undefined ? {} : { fields }), ...(signals === undefined ? {} : { signals }) }, { interrupts: interrupts.subscribe });
  } catch (e) {
    // Stopped while writing: the temporary file is gone and --out is as it was; exit 130/143, as batch.
    if (e instanceof ex.ExportError && e.code === 'interrupted') throw new CliError(e.message, interrupts.exitCode());
    // A file that cannot be written is an input/output error, as for every command; the message names --out.
    if (e instanceof ex.ExportError && e.code === 'write_failed') throw new CliError(e.message, EXIT_IO);
    if (e instanceof ex.ExportError) throw new CliError(`failed: ${e.message}`, 1);
    throw e;
  }
  if (args.flags['quiet'] === undefined) await writeAsync(io.stdout, exportSummary(summary));
  return EXIT_OK;
}

export const exportCommand: Command = {
  summary: 'Export the snapshot as an MMDB file or CSV ranges, for tools that read those.',
  usage: 'ipintel export --out PATH [--format mmdb|csv] [--fields LIST] [--signals LIST] [--snapshot PATH] [--quiet]',
  details: [
    'Writes the snapshot in a format other tools read: an MMDB file (MaxMind DB 2.0: nginx,',
    'Envoy, Logstash, any MMDB reader) or CSV ranges (one row per CIDR block: ClickHouse ip_trie,',
    'DuckDB, a spreadsheet). The format is --format, else the extension of --out. The file is',
    'written beside PATH and renamed over it when complete. Records are shaped like the native',
    'result (geo, network, signals, evidence, risk); null fields are left out. --fields keeps only',
    'the listed fields or groups (the names of "ipintel batch --fields"); --signals keeps only',
    'the addresses where one of the listed boolean signals is true. Keys, rules and the ClickHouse',
    'and DuckDB recipes: docs/export.md. Exit code 0 when written, 1 when the export failed, 2 for',
    'a usage error, 4 when the file cannot be written, 130/143 when SIGINT/SIGTERM stopped it while',
    'it wrote the file (the temporary file is removed, PATH left as it was).',
  ].join('\n'),
  examples: [
    'ipintel export --out ipintel.mmdb                                   # every field',
    'ipintel export --out country.mmdb --fields geo.country_code,network.asn',
    'ipintel export --out anon.mmdb --signals is_tor,is_vpn,is_proxy     # only those addresses',
    'ipintel export --format csv --out ranges.csv --fields geo,signals',
  ],
  spec: {
    name: 'export',
    positionals: { min: 0, max: 0, name: '' },
    flags: {
      out: { type: 'string', value: 'PATH', description: 'File to write (required).' },
      format: { type: 'string', value: 'FORMAT', choices: FORMATS, description: 'Output format (default: from the extension of --out).' },
      fields: { type: 'string', value: 'LIST', description: 'Comma-separated fields or groups to keep (default: all).' },
      signals: { type: 'string', value: 'LIST', description: 'Keep only addresses where one of these boolean signals is true (is_tor, is_vpn, ...).' },
      snapshot: SNAPSHOT_FLAG,
      quiet: { type: 'boolean', description: 'No summary.' },
      help: HELP_FLAG,
    },
  },
  run,
};
