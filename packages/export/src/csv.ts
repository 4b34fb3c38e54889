/**
 * A snapshot as CSV ranges: one row per CIDR block (so ClickHouse's
 * `ip_trie` dictionary, which keys on prefixes, can load it), with the
 * block's first and last address as text and as integers (for range joins in
 * engines without an IP type, such as DuckDB without its inet extension),
 * then the chosen fields, named as `ipintel batch` names its columns.
 *
 * Rows: IPv4 blocks in address order, then IPv6 blocks. Addresses without a
 * record (all chosen fields null, or none of the chosen signals) have no
 * row. ::ffff:0:0/96 (IPv4-mapped) has no IPv6 rows: `check()` answers those
 * addresses from the IPv4 rows (and ClickHouse stores IPv4 keys there).
 *
 * Cells follow the rule of every CSV ipintel writes (core's csvCell, as
 * `ipintel batch` writes them): RFC 4180 quoting, booleans true/false, lists
 * joined with `;`, null an empty cell and an empty text `""`, so loaders
 * that tell them apart (DuckDB, ClickHouse) read NULL and '' back.
 *
 * @module
 */
import type { IpIntel } from '@ipintel/core';
import { csvCell } from '@ipintel/core/internal';
import { formatIPv4, formatIPv6, wordsToBigInt } from '@ipintel/core/writer';
import { forEachCidr } from './cidr.js';
import { ExportError } from './errors.js';
import { prepare, type ExportOptions } from './options.js';
import { valuesInOrder } from './project.js';
import { recordRanges, type Ranges } from './ranges.js';

/** The columns of every row, before the fields. */
export const CSV_RANGE_COLUMNS = ['cidr', 'version', 'first_ip', 'last_ip', 'first_int', 'last_int'] as const;

export interface CsvExport {
  /** Rows written (CIDR blocks), header excluded. */
  readonly rows: number;
  readonly records: number;
  readonly ranges: { readonly v4: number; readonly v6: number };
}

const MAPPED_FIRST = Uint32Array.of(0, 0, 0xffff, 0);
const MAPPED_LAST = Uint32Array.of(0, 0, 0xffff, 0xffffffff);
const CHUNK = 1 << 20;

function text(w: number, a: Uint32Array): string {
  return w === 1 ? formatIPv4(a[0]!) : formatIPv6([a[0]!, a[1]!, a[2]!, a[3]!]);
}

function integer(w: number, a: Uint32Array): string {
  if (w === 1) return String(a[0]);
  return wordsToBigInt(a).toString();
}

/** a <= b over w words. */
function lte(a: Uint32Array, b: Uint32Array, w: number): boolean {
  for (let k = 0; k < w; k++) if (a[k] !== b[k]) return a[k]! < b[k]!;
  return true;
}

/** x - 1 (x > 0) and x + 1 (x < max), as new arrays. */
function step(x: Uint32Array, w: number, by: 1 | -1): Uint32Array {
  const out = x.slice(0, w);
  for (let k = w - 1; k >= 0; k--) {
    const v = out[k]! + by;
    out[k] = v >>> 0;
    if (v >= 0 && v <= 0xffffffff) break;
  }
  return out;
}

/**
 * Writes the CSV (header and rows) through `write`, in chunks of about 1 MB.
 * Throws ExportError for an unknown field or signal.
 *
 * @example
 * const out = createWriteStream('ranges.csv'); exportCsv(intel, {}, (s) => out.write(s));
 */
export function exportCsv(intel: IpIntel, options: ExportOptions | undefined, write: (chunk: string) => void): CsvExport {
  // Checked before the work: else a TypeError once the first chunk is made.
  if (typeof write !== 'function') throw new ExportError('invalid_option', 'write must be a function taking each chunk of the CSV');
  const chunks = csvChunks(intel, options);
  for (;;) {
    const next = chunks.next();
    if (next.done) return next.value;
    write(next.value);
  }
}

/**
 * The CSV (header and rows) as chunks of about 1 MB, made as they are
 * asked for, so a writer can pause between them (exportToFileAsync);
 * returns what exportCsv returns. The options are checked, and every
 * record's cells made, at the call, before the first chunk.
 */
export function csvChunks(intel: IpIntel, options: ExportOptions | undefined): Generator<string, CsvExport, void> {
  const p = prepare(intel, options);
  const values = valuesInOrder(p, p.fields);
  const cells = Array.from({ length: p.records }, (_, r) => values(r).map(csvCell).join(','));
  return csvRows(intel, p, cells);
}

function* csvRows(intel: IpIntel, p: ReturnType<typeof prepare>, cells: readonly string[]): Generator<string, CsvExport, void> {
  let buf = `${[...CSV_RANGE_COLUMNS, ...p.fields.map((f) => f.name)].join(',')}\n`;
  let rows = 0;
  const emitRange = (w: number, version: string, first: Uint32Array, last: Uint32Array, record: number): void => {
    const tail = `${cells[record]!}\n`;
    forEachCidr(first, last, w, (start, length) => {
      const end = blockEnd(start, w, 32 * w - length);
      const from = text(w, start);
      buf += `${from}/${length},${version},${from},${text(w, end)},${integer(w, start)},${integer(w, end)},${tail}`;
      rows++;
    });
  };
  // A generator over ranges, not blocks: a range's blocks (at most 2 per bit of the address) go
  // into the chunk together, and the chunk is handed out once it is over CHUNK.
  function* family(r: Ranges, version: 4 | 6): Generator<string, void, void> {
    const w = r.words;
    const n = r.values.length;
    const max = new Uint32Array(w).fill(0xffffffff);
    for (let i = 0; i < n; i++) {
      const record = r.values[i]!;
      if (record < 0) continue;
      const first = r.starts.slice(i * w, i * w + w);
      const last = i + 1 < n ? step(r.starts.subarray((i + 1) * w, (i + 2) * w), w, -1) : max;
      if (version === 6 && lte(first, MAPPED_LAST, w) && lte(MAPPED_FIRST, last, w)) {
        // Leave out the IPv4-mapped block: the parts before and after it.
        if (!lte(MAPPED_FIRST, first, w)) emitRange(w, '6', first, step(MAPPED_FIRST, w, -1), record);
        if (!lte(last, MAPPED_LAST, w)) emitRange(w, '6', step(MAPPED_LAST, w, 1), last, record);
      } else {
        emitRange(w, String(version), first, last, record);
      }
      if (buf.length >= CHUNK) {
        yield buf;
        buf = '';
      }
    }
  }
  const recordOf = (leaf: number): number => p.recordOf[leaf]!;
  const v4 = recordRanges(intel, 4, recordOf);
  yield* family(v4, 4);
  const v6 = recordRanges(intel, 6, recordOf);
  yield* family(v6, 6);
  if (buf.length > 0) yield buf;
  return { rows, records: p.records, ranges: { v4: v4.values.length, v6: v6.values.length } };
}

/** start + 2^size - 1 (the block's last address), as a new array. */
function blockEnd(start: Uint32Array, w: number, size: number): Uint32Array {
  const out = start.slice(0, w);
  // The low `size` bits of an aligned start are zero: set them.
  for (let k = w - 1; k >= 0 && size > 0; k--) {
    const bits = Math.min(32, size);
    out[k] = (out[k]! | (2 ** bits - 1)) >>> 0;
    size -= bits;
  }
  return out;
}
