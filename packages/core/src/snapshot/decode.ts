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
  COLUMN_ALIGN,
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
  type ColumnName,
  type ColumnRef,
  type SnapshotMeta,
} from './format.js';

/** Inflates a deflate-raw payload to exactly `rawSize` bytes (lets Node pass its native zlib). */
export type Inflate = (stored: Uint8Array, rawSize: number) => Uint8Array;

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

function readHeader(bytes: Uint8Array): { flags: number; storedSize: number; rawSize: number; checksum: number } {
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
  const rawSize = dv.getUint32(20, true);
  const expected = HEADER_SIZE + storedSize;
  if (bytes.length < expected) throw corrupt(`file is truncated: ${bytes.length} of ${expected} bytes`, 'header');
  if (bytes.length > expected) throw corrupt(`file has ${bytes.length - expected} unexpected trailing bytes`, 'header');
  return { flags, storedSize, rawSize, checksum: dv.getUint32(24, true) };
}

function view(raw: Uint8Array, base: number, name: ColumnName, ref: ColumnRef | undefined): Columns[ColumnName] {
  const type = COLUMNS[name];
  if (!ref || ref.type !== type) throw corrupt(`column ${name} is missing or has the wrong type`, name);
  const size = type === 'u8' ? 1 : type === 'u16' ? 2 : 4;
  const start = raw.byteOffset + base + ref.offset;
  if (!Number.isInteger(ref.count) || ref.count < 0 || base + ref.offset + ref.count * size > raw.length || start % COLUMN_ALIGN !== 0) {
    throw corrupt(`column ${name} lies outside the payload`, name);
  }
  switch (type) {
    case 'u8':
      return new Uint8Array(raw.buffer, start, ref.count);
    case 'u16':
      return new Uint16Array(raw.buffer, start, ref.count);
    case 'f32':
      return new Float32Array(raw.buffer, start, ref.count);
    default:
      return new Uint32Array(raw.buffer, start, ref.count);
  }
}

function require(ok: boolean, why: string, at: string): void {
  if (!ok) throw corrupt(why, at);
}

function allBelow(a: Uint32Array | Uint8Array, limit: number, name: string, allowNullString = false): void {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    if (x >= limit && !(allowNullString && x === NULL_STRING)) throw corrupt(`${name}[${i}] = ${x} is out of range`, name);
  }
}

function nonDecreasing(a: Uint32Array, name: string): void {
  for (let i = 1; i < a.length; i++) require(a[i]! >= a[i - 1]!, `${name} is not sorted`, name);
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
  for (let b = 0; b < 65536; b++) {
    for (let i = o4[b]! + 1; i < o4[b + 1]!; i++) require(low[i]! > low[i - 1]!, 'IPv4 starts are not increasing', 'v4.low');
  }
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
  for (let g = 0; g < w0.length; g++) {
    require(g === 0 || w0[g]! > w0[g - 1]!, 'IPv6 first words are not increasing', 'v6.w0');
    require(groups[g + 1]! > groups[g]!, 'IPv6 group is empty', 'v6.groups');
    for (let i = groups[g]! + 1; i < groups[g + 1]!; i++) require(w1[i]! > w1[i - 1]!, 'IPv6 starts are not increasing', 'v6.w1');
  }
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
  for (let i = 0; i < leaf6.length; i++) {
    const l = leaf6[i]!;
    require(l < nLeaf || (l >= SUB_TABLE_BIT && l - SUB_TABLE_BIT < nSub), `v6.leaf[${i}] is out of range`, 'v6.leaf');
  }
  allBelow(subLeaf, nLeaf, 'v6.subleaf');
}

function parseMeta(raw: Uint8Array): { meta: SnapshotMeta; base: number } {
  require(raw.length >= 4, 'payload too short', 'meta');
  const len = new DataView(raw.buffer, raw.byteOffset, 4).getUint32(0, true);
  require(4 + len <= raw.length, 'meta length exceeds the payload', 'meta');
  let meta: SnapshotMeta;
  try {
    meta = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw.subarray(4, 4 + len))) as SnapshotMeta;
  } catch {
    throw corrupt('meta is not valid UTF-8 JSON', 'meta');
  }
  require(typeof meta === 'object' && meta !== null && typeof meta.columns === 'object' && meta.columns !== null, 'meta has no columns', 'meta');
  require(typeof meta.build_date === 'string' && Array.isArray(meta.sources), 'meta lacks build date or sources', 'meta');
  return { meta, base: Math.ceil((4 + len) / COLUMN_ALIGN) * COLUMN_ALIGN };
}

/**
 * Decodes and validates snapshot bytes. Throws `IpIntelError` (`snapshot_corrupt`, `snapshot_version`).
 *
 * @example
 * const { meta } = decodeSnapshot(bytes); meta.build_date // => '2026-08-22T00:00:00.000Z'
 */
export function decodeSnapshot(bytes: Uint8Array, inflate: Inflate = defaultInflate): DecodedSnapshot {
  const h = readHeader(bytes);
  const stored = bytes.subarray(HEADER_SIZE);
  if (murmur3(stored) !== h.checksum) throw corrupt('payload checksum mismatch (the file is damaged)', 'payload');
  let raw: Uint8Array;
  if (h.flags & FLAG_DEFLATE) {
    try {
      raw = inflate(stored, h.rawSize);
    } catch (e) {
      throw corrupt(`payload does not inflate: ${(e as Error).message}`, 'payload');
    }
  } else {
    // Copy so that the views are aligned whatever the caller's buffer offset.
    raw = stored.slice();
  }
  require(raw.length === h.rawSize, `payload inflates to ${raw.length} bytes, header says ${h.rawSize}`, 'payload');
  if (raw.byteOffset % COLUMN_ALIGN !== 0) raw = raw.slice();
  const { meta, base } = parseMeta(raw);
  const columns = {} as Record<ColumnName, Columns[ColumnName]>;
  for (const name of Object.keys(COLUMNS) as ColumnName[]) columns[name] = view(raw, base, name, meta.columns[name]);
  validate(columns as Columns);
  return { meta, columns: columns as Columns };
}
