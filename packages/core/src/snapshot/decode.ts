/**
 * The snapshot reader: file bytes -> typed-array views, after checking
 * everything a lookup relies on. Pure: bytes in, no I/O.
 *
 * A file is refused with `snapshot_corrupt` when it is truncated, longer than
 * its header says, fails a checksum, or breaks an index invariant; and with
 * `snapshot_version` when a newer writer made it. It never yields a snapshot
 * that could answer wrongly.
 *
 * The IPv6 index columns (V6_COLUMNS) may wait for their first use: their
 * checksums are checked at load like every column's, but their inflate and
 * invariant checks happen on the first call that needs them (deferredV6), so
 * an IPv4-only workload never pays for them. A file whose IPv6 columns pass
 * their checksums but break an invariant (a writer bug or a crafted file) is
 * then refused by that call, and by every later IPv6 call, with the same
 * `snapshot_corrupt` error a full load gives.
 *
 * The file's layout (header, meta, column plan, a blob's checks) is read by
 * layout.ts, re-exported here.
 *
 * @module
 */
import { isIsoUtcTime } from '../clock.js';
import { IpIntelError, corrupt } from '../errors.js';
import { crc32, type Checksum } from './checksum.js';
import { COLUMNS, HEADER_SIZE, TYPE_SIZE, V6_COLUMNS, type ColumnName, type SnapshotMeta, type V6ColumnName } from './format.js';
import { undoFilter, type ColumnFilter } from './filters.js';
import { checkBlob, hasCountryNames, inflateFailed, isUnavailableList, parseHeader, parsePrelude, planColumn, type PlannedColumn, type Prelude } from './layout.js';
import {
  INDEX4_NAMES,
  require,
  validateIndex4,
  validateTables,
  validateV6,
  type Columns,
  type MainColumns,
  type V6Columns,
} from './validate.js';
import { rangeCount4 } from './v4-index.js';

export type { Columns, MainColumns, V6Columns } from './validate.js';
// The file's layout (layout.ts): re-exported, so that readers import one module.
export { blobMismatch, checkBlob, inflateFailed, inflatedTooLong, parseHeader, parsePrelude, type Header, type PlannedColumn, type Prelude } from './layout.js';

/** Inflates one deflate-raw column to exactly `rawSize` bytes (lets Node pass its native zlib). */
export type Inflate = (stored: Uint8Array, rawSize: number) => Uint8Array;

export interface DecodedSnapshot {
  readonly meta: SnapshotMeta;
  /** Checked at load (it may hold the IPv6 columns too: use `v6()` for those). */
  readonly columns: MainColumns;
  /**
   * IPv4 ranges (runs of one answer): counted on the first call (a walk of
   * the index, ~0.1 s for a world snapshot, which the load does not pay),
   * or known from the thread that shared the snapshot.
   */
  readonly ranges4: () => number;
  /** The IPv4 range count if it was counted (or handed over) already, else undefined; counts nothing. */
  readonly ranges4Known: () => number | undefined;
  /** IPv6 ranges, from the meta (or the column sizes): known before the IPv6 columns are decoded. */
  readonly ranges6: number;
  /**
   * The IPv6 index columns, checked: decoded at load, or on the first call
   * (deferredV6). Throws `snapshot_corrupt` when they break an invariant,
   * on that call and every later one.
   */
  readonly v6: () => V6Columns;
  /**
   * The IPv6 columns' stored blobs (checked) while they wait for their
   * first use, so that `share()` can hand them on undecoded; null once `v6`
   * has run (decoded, or refused) or when they never waited.
   */
  readonly v6Stored: () => ReadonlyMap<V6ColumnName, Uint8Array> | null;
}

const V6_NAMES: ReadonlySet<ColumnName> = new Set(V6_COLUMNS);

/** Whether a column waits for its first use: the IPv6 index's, unless the caller preloads. */
export function isDeferred(name: ColumnName, preload: boolean): boolean {
  return !preload && V6_NAMES.has(name);
}

/** Whether finishSnapshot takes a column's stored blob as it is: stored raw, or waiting for its first use. */
export function keptAsStored(c: PlannedColumn, preload: boolean): boolean {
  return !c.deflate || isDeferred(c.name, preload);
}

/**
 * A column's typed view over its raw bytes (a copy when they are not
 * aligned for the type), its filter undone in place. Throws
 * `snapshot_corrupt` when the bytes are not `rawSize` long.
 */
export function columnView(name: ColumnName, raw: Uint8Array, rawSize: number, filter: ColumnFilter | null): Columns[ColumnName] {
  if (raw.length !== rawSize) throw corrupt(`column ${name} inflates to ${raw.length} bytes, expected ${rawSize}`, name);
  const type = COLUMNS[name];
  const size = TYPE_SIZE[type];
  const bytes = raw.byteOffset % size === 0 ? raw : new Uint8Array(raw); // a copy (Buffer#slice would be a view)
  const n = rawSize / size;
  if (type === 'u8') return bytes;
  if (type === 'f32') return new Float32Array(bytes.buffer, bytes.byteOffset, n);
  const col = type === 'u16' ? new Uint16Array(bytes.buffer, bytes.byteOffset, n) : new Uint32Array(bytes.buffer, bytes.byteOffset, n);
  if (filter !== null) undoFilter(filter, col); // parsePrelude lets filters stand on u16 and u32 columns only
  return col;
}

/**
 * IPv6 ranges: the meta's `ranges_v6` (the ranges as built), else, for a file
 * written before it, the index's entries: main-table ranges plus sub-table
 * ranges (the ids are 3 bytes each), where a range spanning several /32
 * groups counts once per group. A meta count that is no whole number from 1
 * to the entries (every range has at least one) is `snapshot_corrupt`.
 */
function ranges6Of(meta: SnapshotMeta, w1Count: number, subLeafBytes: number): number {
  const entries = w1Count + Math.floor(subLeafBytes / 3);
  const built = meta.ranges_v6;
  if (built === undefined) return entries;
  require(Number.isSafeInteger(built) && built >= 1 && built <= entries, `meta's ranges_v6 (${String(built)}) is not a count from 1 to the IPv6 index's ${entries} entries`, 'meta');
  return built;
}

/** The IPv4 range count of checked columns, counted once on first use unless `known` (a sharing thread's count). */
function ranges4Of(main: MainColumns, known: number | undefined): Pick<DecodedSnapshot, 'ranges4' | 'ranges4Known'> {
  let n = known;
  return { ranges4: () => (n ??= rangeCount4(main['v4.dir'], main['v4.blk'])), ranges4Known: () => n };
}

/** A decoded snapshot whose columns, the IPv6 ones included, are all there and checked. */
function eager(meta: SnapshotMeta, columns: Columns, ranges4: number | undefined): DecodedSnapshot {
  const v6 = columns as V6Columns;
  return { meta, columns, ...ranges4Of(columns, ranges4), ranges6: ranges6Of(meta, v6['v6.w1'].length, v6['v6.subleaf'].length), v6: () => v6, v6Stored: () => null };
}

/**
 * The IPv6 columns from their stored blobs (checksums already checked),
 * inflated, viewed and checked on the first call (`v6`). The result, or the
 * `snapshot_corrupt` error, is kept: later calls return or throw the same.
 * The blobs are dropped once decoded. `own`: the blobs are the reader's own
 * copies; when not (a shared snapshot's, other threads read them too), a
 * column stored raw is copied before its filter is undone in place.
 */
function deferredV6(
  planned: readonly PlannedColumn[],
  blobs: Map<ColumnName, Uint8Array>,
  inflate: Inflate,
  nLeaf: number,
  own: boolean,
): Pick<DecodedSnapshot, 'v6' | 'v6Stored'> {
  let done: V6Columns | undefined;
  let failure: IpIntelError | undefined;
  const v6 = (): V6Columns => {
    if (done !== undefined) return done;
    if (failure !== undefined) throw failure;
    try {
      const cols = {} as Record<ColumnName, Columns[ColumnName]>;
      for (const c of planned) {
        const blob = blobs.get(c.name)!;
        const raw = storedToRaw(c, own || c.deflate ? blob : new Uint8Array(blob), inflate);
        cols[c.name] = columnView(c.name, raw, c.rawSize, c.filter);
      }
      validateV6(cols as V6Columns, nLeaf);
      done = cols as V6Columns;
    } catch (e) {
      if (!(e instanceof IpIntelError)) throw e; // e.g. out of memory: the blobs stay for another try
      failure = e;
    }
    blobs.clear();
    if (failure !== undefined) throw failure;
    return done!;
  };
  const stored = (): ReadonlyMap<V6ColumnName, Uint8Array> | null => (blobs.size > 0 ? (blobs as Map<V6ColumnName, Uint8Array>) : null);
  return { v6, v6Stored: stored };
}

/** A checked stored blob's raw bytes: inflated, or the blob itself when stored raw. */
function storedToRaw(c: PlannedColumn, blob: Uint8Array, inflate: Inflate): Uint8Array {
  if (!c.deflate) return blob;
  try {
    return inflate(blob, c.rawSize);
  } catch (e) {
    throw inflateFailed(c, e);
  }
}

/**
 * Checks a column's stored blob and turns it into what finishSnapshot takes:
 * its raw bytes (inflated when deflated), or, for a column that waits for its
 * first use (`isDeferred`), a copy of the stored blob.
 */
export function columnBytes(c: PlannedColumn, blob: Uint8Array, inflate: Inflate, checksum: Checksum = crc32, preload = true): Uint8Array {
  checkBlob(c, blob, checksum);
  // A copy when kept as is: aligned, and independent of the caller's buffer (which may be the whole file).
  if (keptAsStored(c, preload)) return new Uint8Array(blob);
  return storedToRaw(c, blob, inflate);
}

/** The typed-array class of each column type. */
export const ARRAY_OF = { u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, f32: Float32Array } as const;

/** Column `name` of a shared snapshot's columns, checked to be there with its element type. Throws `snapshot_corrupt`. */
export function sharedColumn<N extends ColumnName>(columns: Readonly<Record<string, unknown>>, name: N): Columns[N] {
  const col = columns[name];
  require(col instanceof ARRAY_OF[COLUMNS[name]], `shared column ${name} is missing or has the wrong type`, name);
  return col as Columns[N];
}

/**
 * Checks columns that did not come from bytes (a snapshot shared between
 * threads): every column present with its element type, and every invariant
 * a lookup relies on. With `v6Stored` (the IPv6 columns as stored, not yet
 * decoded by the sharing side), those are checked against the meta's
 * lengths and checksums (`checksum`: the entry's CRC-32, native in Node)
 * now and decoded with `inflate` on first use, as a file's are; `columns`
 * then holds the others. Without `index4`, the IPv4 index is left to the
 * caller (checkSharedIndex4, on another thread), who must have it checked
 * before any lookup.
 */
export function checkDecoded(
  meta: SnapshotMeta,
  columns: Readonly<Record<string, unknown>>,
  v6Stored?: Readonly<Record<string, unknown>>,
  inflate?: Inflate,
  checksum: Checksum = crc32,
  index4 = true,
): DecodedSnapshot {
  require(typeof meta === 'object' && meta !== null && typeof meta.build_date === 'string' && Array.isArray(meta.sources), 'shared meta is malformed', 'meta');
  require(isIsoUtcTime(meta.build_date), `shared meta's build date ${JSON.stringify(meta.build_date.slice(0, 40))} is not an ISO UTC time`, 'meta');
  require(hasCountryNames(meta), 'shared meta lacks country names (an object of strings)', 'meta');
  // Optional in a shared meta (absent: every signal available), but a list of evidence keys when there.
  require(meta.unavailable === undefined || isUnavailableList(meta.unavailable), 'shared meta has no valid list of unavailable signals', 'meta');
  const out = {} as Record<ColumnName, Columns[ColumnName]>;
  for (const name of Object.keys(COLUMNS) as ColumnName[]) {
    if (v6Stored !== undefined && V6_NAMES.has(name)) continue;
    out[name] = sharedColumn(columns, name);
  }
  const main = out as unknown as MainColumns;
  validateTables(main);
  if (index4) validateIndex4(main);
  if (v6Stored === undefined) {
    validateV6(out as Columns, main['leaf.ids'].length / 3);
    return eager(meta, out as Columns, undefined);
  }
  return sharedLazy(meta, main, undefined, v6Stored, inflate, checksum);
}

/**
 * A decoded snapshot of columns already checked (a thread's own `share()`,
 * see fromSharedTrusted): every column present, or the IPv6 ones as their
 * stored blobs (`v6Stored`), decoded with `inflate` on first use.
 */
export function trustedDecoded(
  meta: SnapshotMeta,
  columns: Columns | MainColumns,
  ranges4: number | undefined,
  v6Stored?: Readonly<Record<string, unknown>>,
  inflate?: Inflate,
): DecodedSnapshot {
  if (v6Stored === undefined) return eager(meta, columns as Columns, ranges4);
  return sharedLazy(meta, columns, ranges4, v6Stored, inflate, undefined);
}

/** The IPv6 columns of a shared snapshot that waited for their first use: planned from the meta, decoded on first use (their blobs checked now with `checksum`, unless it is undefined: trusted). */
function sharedLazy(
  meta: SnapshotMeta,
  main: MainColumns,
  ranges4: number | undefined,
  v6Stored: Readonly<Record<string, unknown>>,
  inflate: Inflate | undefined,
  checksum: Checksum | undefined,
): DecodedSnapshot {
  if (inflate === undefined) throw new IpIntelError('invalid_input', 'a shared snapshot whose IPv6 index waits for its first use needs an inflater (the `inflate` load option)');
  require(typeof meta.columns === 'object' && meta.columns !== null, 'shared meta has no columns', 'meta');
  const planned = V6_COLUMNS.map((name) => planColumn(meta, name, 0));
  const blobs = new Map<ColumnName, Uint8Array>();
  for (const c of planned) {
    const blob = v6Stored[c.name];
    require(blob instanceof Uint8Array, `shared stored column ${c.name} is missing or not bytes`, c.name);
    if (checksum !== undefined) checkBlob(c, blob as Uint8Array, checksum);
    blobs.set(c.name, blob as Uint8Array);
  }
  return withDeferredV6(meta, main, ranges4, planned, blobs, inflate, false);
}

/** A decoded snapshot whose IPv6 columns (`planned`, as `blobs`) are decoded on first use (deferredV6; `own` as there). */
function withDeferredV6(
  meta: SnapshotMeta,
  main: MainColumns,
  ranges4: number | undefined,
  planned: readonly PlannedColumn[],
  blobs: Map<ColumnName, Uint8Array>,
  inflate: Inflate,
  own: boolean,
): DecodedSnapshot {
  // The IPv6 index's size, for the range count: known before the columns are decoded.
  const size = (name: V6ColumnName): number => planned.find((c) => c.name === name)!.rawSize;
  const lazy = deferredV6(planned, blobs, inflate, main['leaf.ids'].length / 3, own);
  return { meta, columns: main, ...ranges4Of(main, ranges4), ranges6: ranges6Of(meta, size('v6.w1') / 4, size('v6.subleaf')), ...lazy };
}

/**
 * A column another thread is decoding (node.ts: the largest one, inflated on
 * a helper thread while `openSync` decodes the rest): called for its raw
 * bytes once finishSnapshot needs them.
 */
export type LateColumn = () => Uint8Array;

/**
 * Typed-array views over each column's raw bytes, validated. With `later`
 * (an inflater), the IPv6 columns of `raw` are their checked stored blobs
 * (`isDeferred`), decoded on first use with it; without, every column is raw
 * and checked now. A `LateColumn` of the IPv4 index (INDEX4_NAMES) is taken
 * only after the tables' checks, so that it has the longest time to arrive;
 * any other is taken in its turn. The errors are the ones of a load with
 * every column at hand: a late column's faults are looked for first when
 * something after it in that order fails (its blob, then its size, then the
 * tables, the IPv4 index and the IPv6 index).
 */
export function finishSnapshot(prelude: Prelude, raw: ReadonlyMap<ColumnName, Uint8Array | LateColumn>, later?: Inflate): DecodedSnapshot {
  const columns = {} as Record<ColumnName, Columns[ColumnName]>;
  const kept = new Map<ColumnName, Uint8Array>();
  const deferred: PlannedColumn[] = [];
  const late: PlannedColumn[] = [];
  const bytesOf = (c: PlannedColumn): Uint8Array => {
    const bytes = raw.get(c.name)!;
    return typeof bytes === 'function' ? bytes() : bytes;
  };
  const view = (c: PlannedColumn): void => {
    columns[c.name] = columnView(c.name, bytesOf(c), c.rawSize, c.filter);
  };
  // Something failed at column `at` (Infinity: a table check): the late columns' own faults first.
  const lateFirst = (e: unknown, at: number): never => {
    for (const c of late) {
      const bytes = bytesOf(c);
      if (prelude.columns.indexOf(c) < at) columnView(c.name, bytes, c.rawSize, c.filter);
    }
    throw e;
  };
  prelude.columns.forEach((c, i) => {
    if (later !== undefined && isDeferred(c.name, false)) {
      kept.set(c.name, raw.get(c.name) as Uint8Array);
      deferred.push(c);
    } else if (typeof raw.get(c.name) === 'function' && INDEX4_NAMES.has(c.name)) late.push(c);
    else {
      try {
        view(c);
      } catch (e) {
        lateFirst(e, i);
      }
    }
  });
  const main = columns as unknown as MainColumns;
  try {
    validateTables(main);
  } catch (e) {
    lateFirst(e, Infinity);
  }
  for (const c of late) view(c);
  validateIndex4(main);
  if (later === undefined) {
    validateV6(columns as Columns, main['leaf.ids'].length / 3);
    return eager(prelude.meta, columns as Columns, undefined);
  }
  return withDeferredV6(prelude.meta, main, undefined, deferred, kept, later, true);
}

/**
 * The meta of snapshot bytes (build date, sources, column table), after the
 * header and meta checksums: no column is inflated. For tools that only need
 * what a snapshot was built from.
 */
export function readSnapshotMeta(bytes: Uint8Array): SnapshotMeta {
  return preludeOf(bytes).meta;
}

/** Header and prelude of in-memory bytes. */
function preludeOf(bytes: Uint8Array): Prelude {
  const header = parseHeader(bytes, bytes.length);
  return parsePrelude(header, bytes.subarray(HEADER_SIZE, HEADER_SIZE + 4 + header.metaSize));
}

/**
 * Decodes and validates snapshot bytes: every checksum, and every column but
 * the IPv6 index's unless `preload` (those on first use, see `v6`). Throws
 * `IpIntelError` (`snapshot_corrupt`, `snapshot_version`).
 *
 * @example
 * const { meta } = decodeSnapshot(bytes, fflateInflate); meta.build_date // => '2026-08-22T00:00:00.000Z'
 */
export function decodeSnapshot(bytes: Uint8Array, inflate: Inflate, checksum: Checksum = crc32, preload = false): DecodedSnapshot {
  const prelude = preludeOf(bytes);
  const raw = new Map<ColumnName, Uint8Array>();
  for (const c of prelude.columns) raw.set(c.name, columnBytes(c, bytes.subarray(c.at, c.at + c.stored), inflate, checksum, preload));
  return finishSnapshot(prelude, raw, preload ? undefined : inflate);
}
