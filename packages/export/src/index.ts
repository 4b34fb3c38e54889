/**
 * @ipintel/export: an ipintel snapshot as files other tools read — a MaxMind
 * DB (MMDB) file for nginx, Envoy, Logstash or any MMDB reader, and CSV
 * ranges for ClickHouse's ip_trie dictionaries, DuckDB or a spreadsheet.
 * The `ipintel export` command is its command line. Rules, keys and
 * examples: docs/export.md.
 *
 * @module
 */
export { exportMmdb, DATABASE_TYPE, type MmdbExport } from './mmdb/export.js';
export { exportCsv, CSV_RANGE_COLUMNS, type CsvExport } from './csv.js';
export { exportToFile, exportToFileAsync, type ExportFormat, type ExportSummary, type WriteInterrupts } from './file.js';
export { exportableFields, signalNames, NOT_EXPORTED, NUMBER_TYPES, type ExportField, type MmdbNumberType } from './fields.js';
export { sampleResult } from './project.js';
export type { ExportOptions } from './options.js';
export { ExportError, type ExportErrorCode } from './errors.js';
