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
 * @module
 */
import { IpIntelError, corrupt } from '../errors.js';
import { isEvidenceKey } from '../result/evidence.js';
import { crc32, type Checksum } from './checksum.js';
import {
  COLUMNS,
  FLAG_DEFLATE,
  FLAG_FILTERS,
  HEADER_SIZE,
  KNOWN_FLAGS,
  SNAPSHOT_MAGIC,
  SNAPSHOT_VERSION,
  TYPE_SIZE,
  V6_COLUMNS,
  type ColumnName,
  type ColumnRef,
  type SnapshotMeta,
  type V6ColumnName,
} from './format.js';
import { isColumnFilter, undoFilter, type ColumnFilter } from './filters.js';
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
  /** IPv6 ranges (main table + sub-tables), from the column sizes: known before the IPv6 columns are decoded. */
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

/** What the 32-byte header says. */
export interface Header {
  readonly flags: number;
  readonly storedSize: number;
  readonly metaSize: number;
  readonly metaChecksum: number;
}

/**
 * Checks the header (magic, version, flags, its own checksum) and that the
 * file is exactly as long as it says. Needs the first 32 bytes only.
 */
export function parseHeader(head: Uint8Array, fileSize: number): Header {
  if (fileSize < HEADER_SIZE || head.length < HEADER_SIZE) {
    throw corrupt(`file is ${fileSize} bytes, shorter than the ${HEADER_SIZE}-byte header`, 'header');
  }
  for (let i = 0; i < SNAPSHOT_MAGIC.length; i++) {
    if (head[i] !== SNAPSHOT_MAGIC[i]) {
      const gz = head[0] === 0x1f && head[1] === 0x8b ? ' (it is gzip: decompress it first)' : '';
      throw corrupt(`not an ipintel snapshot: bad magic bytes${gz}`, 'header');
    }
  }
  const dv = new DataView(head.buffer, head.byteOffset, HEADER_SIZE);
  const version = dv.getUint16(8, true);
  if (dv.getUint32(28, true) !== crc32(head.subarray(0, 28))) throw corrupt('header checksum mismatch', 'header');
  if (version > SNAPSHOT_VERSION || version === 0) {
    throw new IpIntelError(
      'snapshot_version',
      `snapshot format version ${version} is not supported by this reader (it reads version ${SNAPSHOT_VERSION}); upgrade @ipintel/core`,
      'header',
    );
  }
  if (version < SNAPSHOT_VERSION) {
    throw new IpIntelError(
      'snapshot_version',
      `snapshot format version ${version} is older than this reader reads (version ${SNAPSHOT_VERSION}): rebuild it with \`ipintel build\` or update @ipintel/data`,
      'header',
    );
  }
  const flags = dv.getUint16(10, true);
  if ((flags & ~KNOWN_FLAGS) !== 0) {
    throw new IpIntelError('snapshot_version', `snapshot uses flags 0x${flags.toString(16)} unknown to this reader`, 'header');
  }
  if (dv.getUint32(12, true) !== HEADER_SIZE) throw corrupt('unexpected header size', 'header');
  const storedSize = dv.getUint32(16, true);
  const metaSize = dv.getUint32(20, true);
  const expected = HEADER_SIZE + storedSize;
  if (fileSize < expected) throw corrupt(`file is truncated: ${fileSize} of ${expected} bytes`, 'header');
  if (fileSize > expected) throw corrupt(`file has ${fileSize - expected} unexpected trailing bytes`, 'header');
  if (4 + metaSize > storedSize) throw corrupt('meta length exceeds the payload', 'header');
  return { flags, storedSize, metaSize, metaChecksum: dv.getUint32(24, true) };
}

/** One column to read: where its blob lies in the file and what it must become. */
export interface PlannedColumn {
  readonly name: ColumnName;
  /** Offset of the blob from the start of the file. */
  readonly at: number;
  readonly stored: number;
  readonly rawSize: number;
  readonly deflate: boolean;
  /** The filter to undo after inflating (filters.ts), or null. */
  readonly filter: ColumnFilter | null;
  readonly checksum: number;
}

/** Header and meta: what a reader needs before the columns. */
export interface Prelude {
  readonly meta: SnapshotMeta;
  /** In file order. */
  readonly columns: readonly PlannedColumn[];
}

/**
 * A typed-array view of a column's raw bytes (copied first if misaligned),
 * with its filter undone in place: the bytes are the reader's own (inflated,
 * or copied from the caller's buffer).
 */
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

/** IPv6 ranges: main-table ranges plus sub-table ranges (the ids are 3 bytes each). */
function ranges6Of(w1Count: number, subLeafBytes: number): number {
  return w1Count + Math.floor(subLeafBytes / 3);
}

/** The IPv4 range count of checked columns, counted once on first use unless `known` (a sharing thread's count). */
function ranges4Of(main: MainColumns, known: number | undefined): Pick<DecodedSnapshot, 'ranges4' | 'ranges4Known'> {
  let n = known;
  return { ranges4: () => (n ??= rangeCount4(main['v4.dir'], main['v4.blk'])), ranges4Known: () => n };
}

/** A decoded snapshot whose columns, the IPv6 ones included, are all there and checked. */
function eager(meta: SnapshotMeta, columns: Columns, ranges4: number | undefined): DecodedSnapshot {
  const v6 = columns as V6Columns;
  return { meta, columns, ...ranges4Of(columns, ranges4), ranges6: ranges6Of(v6['v6.w1'].length, v6['v6.subleaf'].length), v6: () => v6, v6Stored: () => null };
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

/** Column `name` as the meta's column table describes it (`base`: where the blobs start in the file), its reference checked. */
function planColumn(meta: SnapshotMeta, name: ColumnName, base: number): PlannedColumn {
  const ref: ColumnRef | undefined = meta.columns[name];
  const type = COLUMNS[name];
  if (!ref || ref.type !== type) throw corrupt(`column ${name} is missing or has the wrong type`, name);
  const ints = [ref.count, ref.offset, ref.stored, ref.checksum].every((x) => Number.isSafeInteger(x) && x >= 0);
  if (!ints) throw corrupt(`column ${name} has a malformed reference`, name);
  const rawSize = ref.count * TYPE_SIZE[type];
  if (!ref.deflate && ref.stored !== rawSize) throw corrupt(`column ${name} has ${ref.stored} bytes for ${ref.count} elements`, name);
  const filter = ref.filter ?? null;
  if (filter !== null) {
    if (!isColumnFilter(filter)) throw new IpIntelError('snapshot_version', `column ${name} uses a filter unknown to this reader (${String(filter)})`, name);
    if (type !== 'u16' && type !== 'u32') throw corrupt(`column ${name} is not an integer column of 2 or 4 bytes and cannot be filtered`, name);
  }
  return { name, at: base + ref.offset, stored: ref.stored, rawSize, deflate: ref.deflate === true, filter, checksum: ref.checksum };
}

/**
 * Checks the meta region (`4 + metaSize` bytes right after the header)
 * against the header's checksum, parses it, and plans the column reads: every
 * column present with its type, blobs tiling the rest of the payload exactly.
 */
export function parsePrelude(header: Header, metaRegion: Uint8Array): Prelude {
  require(metaRegion.length === 4 + header.metaSize && crc32(metaRegion) === header.metaChecksum, 'meta checksum mismatch (the file is damaged)', 'meta');
  const len = new DataView(metaRegion.buffer, metaRegion.byteOffset, 4).getUint32(0, true);
  require(len === header.metaSize, 'meta length does not match the header', 'meta');
  let meta: SnapshotMeta;
  try {
    meta = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(metaRegion.subarray(4))) as SnapshotMeta;
  } catch {
    throw corrupt('meta is not valid UTF-8 JSON', 'meta');
  }
  require(typeof meta === 'object' && meta !== null && typeof meta.columns === 'object' && meta.columns !== null, 'meta has no columns', 'meta');
  require(typeof meta.build_date === 'string' && Array.isArray(meta.sources), 'meta lacks build date or sources', 'meta');
  require(typeof meta.country_names === 'object' && meta.country_names !== null, 'meta lacks country names', 'meta');
  require(Array.isArray(meta.unavailable) && meta.unavailable.every(isEvidenceKey), 'meta lacks a valid list of unavailable signals', 'meta');
  const base = HEADER_SIZE + 4 + header.metaSize;
  const columns: PlannedColumn[] = [];
  for (const name of Object.keys(COLUMNS) as ColumnName[]) {
    const c = planColumn(meta, name, base);
    if (c.deflate && (header.flags & FLAG_DEFLATE) === 0) throw corrupt(`column ${name} is deflated but the header says nothing is`, name);
    if (c.filter !== null && (header.flags & FLAG_FILTERS) === 0) throw corrupt(`column ${name} is filtered but the header says nothing is`, name);
    columns.push(c);
  }
  // The blobs tile the payload: no gap, no overlap, nothing after the last.
  columns.sort((a, b) => a.at - b.at);
  let next = base;
  for (const c of columns) {
    require(c.at === next, `column ${c.name} does not start where the previous one ends`, c.name);
    next += c.stored;
  }
  require(next === HEADER_SIZE + header.storedSize, 'columns do not fill the payload exactly', 'payload');
  return { meta, columns };
}

/** Checks a column's stored blob against its length and checksum (`checksum`: a faster CRC-32, e.g. Node's native one). */
export function checkBlob(c: PlannedColumn, blob: Uint8Array, checksum: Checksum = crc32): void {
  if (blob.length !== c.stored || checksum(blob) !== c.checksum) throw blobMismatch(c);
}

/** The error for a column whose stored blob is short or fails its checksum. */
export function blobMismatch(c: PlannedColumn): IpIntelError {
  return corrupt(`column ${c.name} checksum mismatch (the file is damaged)`, c.name);
}

/** The error for a column whose stream does not inflate. */
export function inflateFailed(c: PlannedColumn, e: unknown): IpIntelError {
  return corrupt(`column ${c.name} does not inflate: ${(e as Error).message}`, c.name);
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
  require(typeof meta.country_names === 'object' && meta.country_names !== null, 'shared meta lacks country names', 'meta');
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
  // The IPv6 range count from the column sizes: known before the columns are decoded.
  const size = (name: V6ColumnName): number => planned.find((c) => c.name === name)!.rawSize;
  const lazy = deferredV6(planned, blobs, inflate, main['leaf.ids'].length / 3, own);
  return { meta, columns: main, ...ranges4Of(main, ranges4), ranges6: ranges6Of(size('v6.w1') / 4, size('v6.subleaf')), ...lazy };
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
