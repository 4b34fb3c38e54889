/**
 * Writing an export to a file: written beside the target and renamed over
 * it once complete, so a reader never sees half a file and a failed export
 * leaves the old one in place. Reports what it wrote and how long it took.
 *
 * @module
 */
import type { IpIntel } from '@ipintel/core';
import { exportCsv } from './csv.js';
import { ExportError } from './errors.js';
import { exportMmdb } from './mmdb/export.js';
import type { ExportOptions } from './options.js';
import { replaceFile } from './replace-file.js';

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
  if (format !== 'mmdb' && format !== 'csv') throw new ExportError('invalid_option', `format must be "mmdb" or "csv", got ${JSON.stringify(format)}`);
  // Checked before anything is written: a number would become the file "42.tmp-<pid>" first.
  if (typeof path !== 'string' || path === '') throw new ExportError('invalid_option', `path must be a non-empty string, got ${JSON.stringify(path)}`);
  const started = performance.now();
  // What the file holds (records, ranges, tree nodes or rows), from the export that filled it.
  const { result: holds, bytes } = replaceFile(path, (write): Omit<ExportSummary, 'bytes' | 'ms' | 'path' | 'format'> => {
    if (format === 'mmdb') {
      const m = exportMmdb(intel, options);
      write(m.bytes);
      return { records: m.records, ranges: m.ranges, nodes: m.nodeCount, recordSize: m.recordSize };
    }
    const c = exportCsv(intel, options, (chunk) => write(Buffer.from(chunk)));
    return { records: c.records, ranges: c.ranges, rows: c.rows };
  });
  return { format, path, bytes, ms: performance.now() - started, ...holds };
}
