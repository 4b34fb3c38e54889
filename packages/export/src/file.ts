/**
 * Writing an export to a file: written beside the target and renamed over
 * it once complete, so a reader never sees half a file and a failed export
 * leaves the old one in place. Reports what it wrote and how long it took.
 *
 * @module
 */
import { closeSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import type { IpIntel } from '@ipintel/core';
import { exportCsv } from './csv.js';
import { ExportError } from './errors.js';
import { exportMmdb } from './mmdb/export.js';
import type { ExportOptions } from './options.js';

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
 * Exports the snapshot to `path` as `format`. Throws ExportError for bad
 * options, and the file system's error when the file cannot be written.
 *
 * @example
 * exportToFile(intel, 'mmdb', 'ipintel.mmdb', { fields: ['geo.country_code'] }).bytes
 */
export function exportToFile(intel: IpIntel, format: ExportFormat, path: string, options?: ExportOptions): ExportSummary {
  if (format !== 'mmdb' && format !== 'csv') throw new ExportError('invalid_option', `format must be "mmdb" or "csv", got ${JSON.stringify(format)}`);
  // Checked before anything is written: a number would become the file "42.tmp-<pid>" first.
  if (typeof path !== 'string' || path === '') throw new ExportError('invalid_option', `path must be a non-empty string, got ${JSON.stringify(path)}`);
  const started = performance.now();
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  // The partial file goes unless it became the target: a failure anywhere before the rename
  // completes (writing, closing, or the rename itself, e.g. onto a directory) must not leave
  // hundreds of MB beside the target.
  let open = true;
  let renamed = false;
  try {
    let summary: Omit<ExportSummary, 'bytes' | 'ms' | 'path' | 'format'>;
    if (format === 'mmdb') {
      const m = exportMmdb(intel, options);
      writeAll(fd, m.bytes);
      summary = { records: m.records, ranges: m.ranges, nodes: m.nodeCount, recordSize: m.recordSize };
    } else {
      const c = exportCsv(intel, options, (chunk) => writeAll(fd, Buffer.from(chunk)));
      summary = { records: c.records, ranges: c.ranges, rows: c.rows };
    }
    open = false;
    closeSync(fd);
    renameSync(tmp, path);
    renamed = true;
    return { format, path, bytes: statSync(path).size, ms: performance.now() - started, ...summary };
  } finally {
    if (!renamed) {
      // A second close after a failed one would throw EBADF over the error that matters.
      if (open) closeSync(fd);
      rmSync(tmp, { force: true });
    }
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let at = 0;
  while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
}
