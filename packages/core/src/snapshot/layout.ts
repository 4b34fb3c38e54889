/**
 * A snapshot file's layout: the 32-byte header, the meta after it, and the
 * column plan the meta gives (where each column's blob lies, what it must
 * become), with the checks of each and the errors of a column's blob. What a
 * reader needs before it decodes any column (decode.ts does that).
 *
 * @module
 */
import { isIsoUtcTime } from '../clock.js';
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
  type ColumnName,
  type ColumnRef,
  type SnapshotMeta,
} from './format.js';
import { isColumnFilter, type ColumnFilter } from './filters.js';
import { require } from './validate.js';

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

/** The most a deflate stream expands (258-byte matches at about two bits each, plus block overhead: ~1,032). */
export const MAX_DEFLATE_RATIO = 1032;

/** Column `name` as the meta's column table describes it (`base`: where the blobs start in the file), its reference checked. */
export function planColumn(meta: SnapshotMeta, name: ColumnName, base: number): PlannedColumn {
  const ref: ColumnRef | undefined = meta.columns[name];
  const type = COLUMNS[name];
  if (!ref || ref.type !== type) throw corrupt(`column ${name} is missing or has the wrong type`, name);
  const ints = [ref.count, ref.offset, ref.stored, ref.checksum].every((x) => Number.isSafeInteger(x) && x >= 0);
  if (!ints) throw corrupt(`column ${name} has a malformed reference`, name);
  const rawSize = ref.count * TYPE_SIZE[type];
  if (!ref.deflate && ref.stored !== rawSize) throw corrupt(`column ${name} has ${ref.stored} bytes for ${ref.count} elements`, name);
  // Deflate expands at most ~1,032 times: a larger claim is a damaged or crafted meta, refused
  // before any buffer of that size is asked for (a loader would fail there with a bare RangeError).
  if (ref.deflate && rawSize > ref.stored * MAX_DEFLATE_RATIO + MAX_DEFLATE_RATIO) {
    throw corrupt(`column ${name} claims ${rawSize} bytes, more than its ${ref.stored} stored bytes can inflate to`, name);
  }
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
  require(isIsoUtcTime(meta.build_date), `meta's build date ${JSON.stringify(meta.build_date.slice(0, 40))} is not an ISO UTC time`, 'meta');
  require(hasCountryNames(meta), 'meta lacks country names (an object of strings)', 'meta');
  require(isUnavailableList(meta.unavailable), 'meta lacks a valid list of unavailable signals', 'meta');
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

/**
 * The error for a column whose stream does not inflate, or inflates past
 * the column's size: Node's zlib stops there (`maxOutputLength`) with
 * ERR_BUFFER_TOO_LARGE, so that a small blob that inflates to gigabytes is
 * refused at once instead of filling the memory first.
 */
export function inflateFailed(c: PlannedColumn, e: unknown): IpIntelError {
  if (stoppedAtSize(e)) return inflatedTooLong(c);
  return corrupt(`column ${c.name} does not inflate: ${(e as Error).message}`, c.name);
}

/** Whether an inflate failed because the stream passed the size it was bounded by (Node's zlib `maxOutputLength`). */
export function stoppedAtSize(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === 'ERR_BUFFER_TOO_LARGE';
}

/** The error for a column whose stream holds more bytes than the column (found as it inflates, before the rest is). */
export function inflatedTooLong(c: PlannedColumn): IpIntelError {
  return corrupt(`column ${c.name} inflates to more than ${c.rawSize} bytes, expected ${c.rawSize}`, c.name);
}

/** Whether the meta's country names are an object of strings (answers carry them as `geo.country`, a string or null). */
export function hasCountryNames(meta: SnapshotMeta): boolean {
  const names: unknown = meta.country_names;
  return typeof names === 'object' && names !== null && !Array.isArray(names) && Object.values(names).every((v) => typeof v === 'string');
}

/** Whether `v` is a meta's list of unavailable signals: evidence keys. */
export function isUnavailableList(v: unknown): boolean {
  return Array.isArray(v) && v.every(isEvidenceKey);
}
