/**
 * The snapshot reader: file bytes -> typed-array views, after checking
 * everything a lookup relies on. Pure: bytes in, no I/O.
 *
 * A file is refused with `snapshot_corrupt` when it is truncated, longer than
 * its header says, fails a checksum, or breaks an index invariant; and with
 * `snapshot_version` when a newer writer made it. It never yields a snapshot
 * that could answer wrongly.
 *
 * @module
 */
import { inflateSync } from 'fflate';
import { IpIntelError, corrupt } from '../errors.js';
import { murmur3 } from './checksum.js';
import {
  COLUMNS,
  CONNECTION_CODES,
  EVIDENCE_CODES,
  FLAG_DEFLATE,
  HEADER_SIZE,
  KNOWN_FLAGS,
  NULL_STRING,
  RPKI_CODES,
  SNAPSHOT_MAGIC,
  SNAPSHOT_VERSION,
  SUB_TABLE_BIT,
  TYPE_SIZE,
  type ColumnName,
  type ColumnRef,
  type SnapshotMeta,
} from './format.js';

/** Inflates one deflate-raw column to exactly `rawSize` bytes (lets Node pass its native zlib). */
export type Inflate = (stored: Uint8Array, rawSize: number) => Uint8Array;
/** Asynchronous {@link Inflate}: columns are inflated concurrently (Node's zlib thread pool). */
export type InflateAsync = (stored: Uint8Array, rawSize: number) => Promise<Uint8Array>;

type Columns = { [K in ColumnName]: (typeof COLUMNS)[K] extends 'u8'
  ? Uint8Array
  : (typeof COLUMNS)[K] extends 'u16'
    ? Uint16Array
    : (typeof COLUMNS)[K] extends 'f32'
      ? Float32Array
      : Uint32Array };

export interface DecodedSnapshot {
  readonly meta: SnapshotMeta;
  readonly columns: Columns;
}

const defaultInflate: Inflate = (stored, rawSize) => inflateSync(stored, { out: new Uint8Array(rawSize) });

function readHeader(bytes: Uint8Array): { flags: number; storedSize: number; metaSize: number; checksum: number } {
  if (bytes.length < HEADER_SIZE) throw corrupt(`file is ${bytes.length} bytes, shorter than the ${HEADER_SIZE}-byte header`, 'header');
  for (let i = 0; i < SNAPSHOT_MAGIC.length; i++) {
    if (bytes[i] !== SNAPSHOT_MAGIC[i]) {
      const gz = bytes[0] === 0x1f && bytes[1] === 0x8b ? ' (it is gzip: decompress it first)' : '';
      throw corrupt(`not an ipintel snapshot: bad magic bytes${gz}`, 'header');
    }
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset, HEADER_SIZE);
  const version = dv.getUint16(8, true);
  if (dv.getUint32(28, true) !== murmur3(bytes.subarray(0, 28))) throw corrupt('header checksum mismatch', 'header');
  if (version > SNAPSHOT_VERSION || version === 0) {
    throw new IpIntelError(
      'snapshot_version',
      `snapshot format version ${version} is not supported by this reader (it reads version ${SNAPSHOT_VERSION}); upgrade @ipintel/core`,
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
  if (bytes.length < expected) throw corrupt(`file is truncated: ${bytes.length} of ${expected} bytes`, 'header');
  if (bytes.length > expected) throw corrupt(`file has ${bytes.length - expected} unexpected trailing bytes`, 'header');
  return { flags, storedSize, metaSize, checksum: dv.getUint32(24, true) };
}

/** The stored blob of a column, after checking its reference against the payload. */
function blobOf(blobs: Uint8Array, name: ColumnName, ref: ColumnRef | undefined): { blob: Uint8Array; rawSize: number; deflate: boolean } {
  const type = COLUMNS[name];
  if (!ref || ref.type !== type) throw corrupt(`column ${name} is missing or has the wrong type`, name);
  const { count, offset, stored } = ref;
  const ints = [count, offset, stored].every((x) => Number.isSafeInteger(x) && x >= 0);
  if (!ints || offset + stored > blobs.length) throw corrupt(`column ${name} lies outside the payload`, name);
  const rawSize = count * TYPE_SIZE[type];
  if (!ref.deflate && stored !== rawSize) throw corrupt(`column ${name} has ${stored} bytes for ${count} elements`, name);
  return { blob: blobs.subarray(offset, offset + stored), rawSize, deflate: ref.deflate === true };
}

/** A typed-array view of a column's raw bytes (copied first if misaligned). */
function view(name: ColumnName, raw: Uint8Array, rawSize: number): Columns[ColumnName] {
  if (raw.length !== rawSize) throw corrupt(`column ${name} inflates to ${raw.length} bytes, expected ${rawSize}`, name);
  const type = COLUMNS[name];
  const size = TYPE_SIZE[type];
  const bytes = raw.byteOffset % size === 0 ? raw : new Uint8Array(raw); // a copy (Buffer#slice would be a view)
  const n = rawSize / size;
  switch (type) {
    case 'u8':
      return bytes;
    case 'u16':
      return new Uint16Array(bytes.buffer, bytes.byteOffset, n);
    case 'f32':
      return new Float32Array(bytes.buffer, bytes.byteOffset, n);
    default:
      return new Uint32Array(bytes.buffer, bytes.byteOffset, n);
  }
}

function require(ok: boolean, why: string, at: string): void {
  if (!ok) throw corrupt(why, at);
}

function allBelow(a: Uint32Array | Uint8Array, limit: number, name: string, allowNullString = false): void {
  let bad = -1;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    if (x >= limit && !(allowNullString && x === NULL_STRING)) bad = x;
  }
  if (bad >= 0) throw corrupt(`${name} holds ${bad}, out of range (< ${limit})`, name);
}

function nonDecreasing(a: Uint32Array, name: string): void {
  let ok = true;
  for (let i = 1; i < a.length; i++) ok = ok && a[i]! >= a[i - 1]!;
  require(ok, `${name} is not sorted`, name);
}

/** Checks every invariant the lookup and the result assembly rely on. */
function validate(c: Columns): void {
  const nGeo = c['geo.country'].length;
  const nNet = c['net.asn'].length;
  const nSig = c['sig.flags'].length;
  const nLeaf = c['leaf.geo'].length;
  const nStr = c['str.offsets'].length - 1;
  // 1. Tables: equal column lengths, string ids and enum codes in range.
  require(nStr >= 0, 'string table has no offsets', 'str.offsets');
  nonDecreasing(c['str.offsets'], 'str.offsets');
  require(c['str.offsets'][nStr]! === c['str.bytes'].length && c['str.offsets'][0] === 0, 'string offsets do not match the bytes', 'str.offsets');
  for (const n of ['geo.country_code', 'geo.region', 'geo.city', 'geo.timezone', 'geo.latitude', 'geo.longitude'] as const) {
    require(c[n].length === nGeo, `${n} has the wrong length`, n);
  }
  for (const n of ['net.as_org', 'net.flags', 'net.rpki', 'net.allocation_day', 'net.registration_country'] as const) {
    require(c[n].length === nNet, `${n} has the wrong length`, n);
  }
  for (const n of ['sig.connection_type', 'sig.connection_evidence', 'sig.datacenter_provider', 'sig.relay_provider', 'sig.verified_bot_name'] as const) {
    require(c[n].length === nSig, `${n} has the wrong length`, n);
  }
  for (const n of [
    'geo.country', 'geo.country_code', 'geo.region', 'geo.city', 'geo.timezone', 'net.as_org',
    'net.registration_country', 'sig.datacenter_provider', 'sig.relay_provider', 'sig.verified_bot_name',
  ] as const) {
    allBelow(c[n], nStr, n, true);
  }
  allBelow(c['net.rpki'], RPKI_CODES.length, 'net.rpki');
  allBelow(c['sig.connection_type'], CONNECTION_CODES.length, 'sig.connection_type');
  allBelow(c['sig.connection_evidence'], EVIDENCE_CODES.length, 'sig.connection_evidence');
  require(c['leaf.net'].length === nLeaf && c['leaf.sig'].length === nLeaf, 'leaf columns differ in length', 'leaf');
  allBelow(c['leaf.geo'], nGeo, 'leaf.geo');
  allBelow(c['leaf.net'], nNet, 'leaf.net');
  allBelow(c['leaf.sig'], nSig, 'leaf.sig');
  // 2. IPv4 index: 65537 offsets ending at the range count, low parts increasing within each /16.
  const o4 = c['v4.offsets'];
  const low = c['v4.low'];
  require(o4.length === 65537 && o4[0] === 0 && o4[65536] === low.length, 'IPv4 offsets do not match the ranges', 'v4.offsets');
  require(c['v4.leaf'].length === low.length && low.length > 0 && low[0] === 0, 'IPv4 ranges must start at 0.0.0.0', 'v4.low');
  nonDecreasing(o4, 'v4.offsets');
  let increasing = true;
  for (let b = 0; b < 65536; b++) {
    const end = o4[b + 1]!;
    for (let i = o4[b]! + 1; i < end; i++) increasing = increasing && low[i]! > low[i - 1]!;
  }
  require(increasing, 'IPv4 starts are not increasing', 'v4.low');
  allBelow(c['v4.leaf'], nLeaf, 'v4.leaf');
  // 3. IPv6 index: groups by first word, second words increasing, sub-tables well formed.
  const w0 = c['v6.w0'];
  const groups = c['v6.groups'];
  const w1 = c['v6.w1'];
  const leaf6 = c['v6.leaf'];
  const sub = c['v6.sub'];
  const subW = c['v6.subw'];
  const subLeaf = c['v6.subleaf'];
  require(w0.length > 0 && w0[0] === 0 && groups.length === w0.length + 1, 'IPv6 groups are malformed', 'v6.groups');
  require(groups[0] === 0 && groups[w0.length] === w1.length && leaf6.length === w1.length && w1[0] === 0, 'IPv6 ranges must start at ::', 'v6.w1');
  let wordsOk = true;
  let groupsOk = true;
  let startsOk = true;
  for (let g = 0; g < w0.length; g++) {
    wordsOk = wordsOk && (g === 0 || w0[g]! > w0[g - 1]!);
    const end = groups[g + 1]!;
    groupsOk = groupsOk && end > groups[g]!;
    for (let i = groups[g]! + 1; i < end; i++) startsOk = startsOk && w1[i]! > w1[i - 1]!;
  }
  require(wordsOk, 'IPv6 first words are not increasing', 'v6.w0');
  require(groupsOk, 'IPv6 group is empty', 'v6.groups');
  require(startsOk, 'IPv6 starts are not increasing', 'v6.w1');
  const nSub = sub.length - 1;
  require(nSub >= 0 && sub[0] === 0 && sub[nSub] === subLeaf.length && subW.length === 2 * subLeaf.length, 'IPv6 sub-tables are malformed', 'v6.sub');
  nonDecreasing(sub, 'v6.sub');
  for (let k = 0; k < nSub; k++) {
    const from = sub[k]!;
    require(sub[k + 1]! > from && subW[2 * from] === 0 && subW[2 * from + 1] === 0, 'IPv6 sub-table must start at its block', 'v6.sub');
    for (let j = from + 1; j < sub[k + 1]!; j++) {
      const a = subW[2 * j]!;
      const p = subW[2 * j - 2]!;
      require(a > p || (a === p && subW[2 * j + 1]! > subW[2 * j - 1]!), 'IPv6 sub-table starts are not increasing', 'v6.subw');
    }
  }
  let leavesOk = true;
  for (let i = 0; i < leaf6.length; i++) {
    const l = leaf6[i]!;
    leavesOk = leavesOk && (l < nLeaf || (l >= SUB_TABLE_BIT && l - SUB_TABLE_BIT < nSub));
  }
  require(leavesOk, 'an IPv6 leaf id is out of range', 'v6.leaf');
  allBelow(subLeaf, nLeaf, 'v6.subleaf');
}

function parseMeta(stored: Uint8Array, metaSize: number): { meta: SnapshotMeta; blobs: Uint8Array } {
  require(stored.length >= 4, 'payload too short', 'meta');
  const len = new DataView(stored.buffer, stored.byteOffset, 4).getUint32(0, true);
  require(len === metaSize && 4 + len <= stored.length, 'meta length does not match the header', 'meta');
  let meta: SnapshotMeta;
  try {
    meta = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(stored.subarray(4, 4 + len))) as SnapshotMeta;
  } catch {
    throw corrupt('meta is not valid UTF-8 JSON', 'meta');
  }
  require(typeof meta === 'object' && meta !== null && typeof meta.columns === 'object' && meta.columns !== null, 'meta has no columns', 'meta');
  require(typeof meta.build_date === 'string' && Array.isArray(meta.sources), 'meta lacks build date or sources', 'meta');
  return { meta, blobs: stored.subarray(4 + len) };
}

/** Header, checksum and meta: everything before the columns. */
function open(bytes: Uint8Array): { meta: SnapshotMeta; blobs: Uint8Array; deflated: boolean } {
  const h = readHeader(bytes);
  const stored = bytes.subarray(HEADER_SIZE);
  if (murmur3(stored) !== h.checksum) throw corrupt('payload checksum mismatch (the file is damaged)', 'payload');
  const { meta, blobs } = parseMeta(stored, h.metaSize);
  return { meta, blobs, deflated: (h.flags & FLAG_DEFLATE) !== 0 };
}

function inflateColumn(name: ColumnName, inflate: Inflate, blob: Uint8Array, rawSize: number): Uint8Array {
  try {
    return inflate(blob, rawSize);
  } catch (e) {
    throw corrupt(`column ${name} does not inflate: ${(e as Error).message}`, name);
  }
}

/**
 * Decodes and validates snapshot bytes. Throws `IpIntelError` (`snapshot_corrupt`, `snapshot_version`).
 *
 * @example
 * const { meta } = decodeSnapshot(bytes); meta.build_date // => '2026-08-22T00:00:00.000Z'
 */
export function decodeSnapshot(bytes: Uint8Array, inflate: Inflate = defaultInflate): DecodedSnapshot {
  const { meta, blobs, deflated } = open(bytes);
  const columns = {} as Record<ColumnName, Columns[ColumnName]>;
  for (const name of Object.keys(COLUMNS) as ColumnName[]) {
    const { blob, rawSize, deflate } = blobOf(blobs, name, meta.columns[name]);
    require(!deflate || deflated, `column ${name} is deflated but the header says nothing is`, name);
    // An uncompressed blob is copied so that its view is aligned and independent of the caller's buffer.
    const raw = deflate ? inflateColumn(name, inflate, blob, rawSize) : new Uint8Array(blob);
    columns[name] = view(name, raw, rawSize);
  }
  validate(columns as Columns);
  return { meta, columns: columns as Columns };
}

/** {@link decodeSnapshot} with the columns inflated concurrently. */
export async function decodeSnapshotAsync(bytes: Uint8Array, inflate: InflateAsync): Promise<DecodedSnapshot> {
  const { meta, blobs, deflated } = open(bytes);
  const names = Object.keys(COLUMNS) as ColumnName[];
  const raws = await Promise.all(
    names.map(async (name) => {
      const { blob, rawSize, deflate } = blobOf(blobs, name, meta.columns[name]);
      require(!deflate || deflated, `column ${name} is deflated but the header says nothing is`, name);
      if (!deflate) return { raw: new Uint8Array(blob), rawSize };
      try {
        return { raw: await inflate(blob, rawSize), rawSize };
      } catch (e) {
        throw corrupt(`column ${name} does not inflate: ${(e as Error).message}`, name);
      }
    }),
  );
  const columns = {} as Record<ColumnName, Columns[ColumnName]>;
  names.forEach((name, i) => {
    columns[name] = view(name, raws[i]!.raw, raws[i]!.rawSize);
  });
  validate(columns as Columns);
  return { meta, columns: columns as Columns };
}
