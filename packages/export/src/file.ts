/**
 * Writing an export to a file: written beside the target and renamed over
 * it once complete, so a reader never sees half a file and a failed export
 * leaves the old one in place. Reports what it wrote and how long it took.
 *
 * The temporary file exists only while the file is written: an MMDB is
 * built in memory first (it is held whole anyway), CSV rows are made as
 * they are written. exportToFileAsync pauses between chunks of about 1 MB,
 * so the `interrupts` of its caller (ipintel export: SIGINT, SIGTERM) are
 * heard and the write stopped with the temporary file removed.
 *
 * @module
 */
import type { IpIntel } from '@ipintel/core';
import { csvChunks } from './csv.js';
import { ExportError } from './errors.js';
import { exportMmdb } from './mmdb/export.js';
import type { ExportOptions } from './options.js';
import { checkIntel } from './project.js';
import { checkWritable, replaceFile, replaceFileAsync, type SteppedFill, type WriteInterrupts } from './replace-file.js';

export type { WriteInterrupts } from './replace-file.js';

export type ExportFormat = 'mmdb' | 'csv';

export interface ExportSummary {
  readonly format: ExportFormat;
  readonly path: string;
  /** Size of the written file. */
  readonly bytes: number;
  /** Wall-clock time of the export, file writing included. */
  readonly ms: number;
  /** Distinct records (answers) in the file. */
  readonly records: number;
  /** Ranges after merging neighbours with the same record. */
  readonly ranges: { readonly v4: number; readonly v6: number };
  /** CSV: rows (CIDR blocks). */
  readonly rows?: number;
  /** MMDB: search tree nodes and record size in bits. */
  readonly nodes?: number;
  readonly recordSize?: number;
}

/** What the file holds (records, ranges, tree nodes or rows), from the export that filled it. */
type Holds = Omit<ExportSummary, 'bytes' | 'ms' | 'path' | 'format'>;

/** The MMDB's bytes are written in slices of this size, with a pause after each (exportToFileAsync). */
const MMDB_SLICE = 1 << 20;

/**
 * Exports the snapshot to `path` as `format`. Throws ExportError: for bad
 * options, data that do not fit the format, and `write_failed` (naming
 * `path`, the file system's error as `cause`) when the file cannot be
 * written.
 *
 * @example
 * exportToFile(intel, 'mmdb', 'ipintel.mmdb', { fields: ['geo.country_code'] }).bytes
 */
export function exportToFile(intel: IpIntel, format: ExportFormat, path: string, options?: ExportOptions): ExportSummary {
  const started = performance.now();
  const fill = prepareFile(intel, format, path, options);
  const { result: holds, bytes } = replaceFile(path, (write) => runToEnd(fill(write)));
  return { format, path, bytes, ms: performance.now() - started, ...holds };
}

/**
 * exportToFile, pausing for the event loop after each chunk of about 1 MB
 * it writes. With `interrupts` (see WriteInterrupts), an interruption
 * while the file is written stops it: the temporary file is removed, the
 * file at `path` is left as it was, and the promise rejects with
 * ExportError `interrupted`.
 *
 * @example
 * await exportToFileAsync(intel, 'csv', 'ranges.csv', {}, { interrupts: (stop) => subscribe(stop) })
 */
export async function exportToFileAsync(
  intel: IpIntel,
  format: ExportFormat,
  path: string,
  options?: ExportOptions,
  control: { readonly interrupts?: WriteInterrupts } = {},
): Promise<ExportSummary> {
  const started = performance.now();
  const interrupts = interruptsOf(control);
  const fill = prepareFile(intel, format, path, options);
  const { result: holds, bytes } = await replaceFileAsync(path, fill, interrupts === undefined ? {} : { interrupts });
  return { format, path, bytes, ms: performance.now() - started, ...holds };
}

/**
 * exportToFileAsync's `control.interrupts`, checked before the work: `null`
 * as `control` failed as a TypeError, and an `interrupts` that is not a
 * function as one only once the export was computed.
 */
function interruptsOf(control: unknown): WriteInterrupts | undefined {
  if (control === undefined) return undefined;
  if (control === null || typeof control !== 'object') throw new ExportError('invalid_option', 'the control argument must be an object ({ interrupts })');
  const interrupts: unknown = (control as { interrupts?: unknown }).interrupts;
  if (interrupts !== undefined && typeof interrupts !== 'function') throw new ExportError('invalid_option', 'control.interrupts must be a function');
  return interrupts as WriteInterrupts | undefined;
}

/**
 * Checks the arguments and that `path` can be written (at once, before
 * the work), builds what is built in memory (an MMDB), and returns what
 * writes the file through `write`, yielding after each chunk.
 */
function prepareFile(intel: IpIntel, format: ExportFormat, path: string, options: ExportOptions | undefined): SteppedFill<Holds> {
  checkIntel(intel);
  if (format !== 'mmdb' && format !== 'csv') throw new ExportError('invalid_option', `format must be "mmdb" or "csv", got ${JSON.stringify(format)}`);
  // Checked before anything is written: a number would become the file "42.tmp-<pid>" first.
  if (typeof path !== 'string' || path === '') throw new ExportError('invalid_option', `path must be a non-empty string, got ${JSON.stringify(path)}`);
  // A path that cannot be written fails now, not after the export is computed.
  checkWritable(path);
  if (format === 'mmdb') {
    const m = exportMmdb(intel, options);
    return function* (write) {
      for (let at = 0; at < m.bytes.length; at += MMDB_SLICE) {
        write(m.bytes.subarray(at, at + MMDB_SLICE));
        yield;
      }
      return { records: m.records, ranges: m.ranges, nodes: m.nodeCount, recordSize: m.recordSize };
    };
  }
  const chunks = csvChunks(intel, options);
  return function* (write) {
    for (;;) {
      const next = chunks.next();
      if (next.done) return { records: next.value.records, ranges: next.value.ranges, rows: next.value.rows };
      write(Buffer.from(next.value));
      yield;
    }
  };
}

/** A generator's return value, its pauses passed over (the synchronous exportToFile). */
function runToEnd<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}
