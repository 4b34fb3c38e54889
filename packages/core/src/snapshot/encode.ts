/**
 * The snapshot writer: SnapshotModel -> file bytes (format.ts, version 3).
 * Deterministic: the same model gives byte-identical output.
 *
 * @module
 */
import { deflateSync } from 'fflate';
import { put24 } from '../bytes.js';
import { isIsoUtcTime } from '../clock.js';
import type { Ranges } from './flatten.js';
import { crc32, type Checksum } from './checksum.js';
import { applyFilter, COLUMN_FILTERS, type ColumnFilter } from './filters.js';
import {
  COLUMNS,
  CONNECTION_CODES,
  EVIDENCE_CODES,
  FLAG_DEFLATE,
  FLAG_FILTERS,
  HEADER_SIZE,
  NET_ANNOUNCED,
  NET_BOGON,
  NET_ROUTING_INFERRED,
  NULL_DAY,
  NULL_STRING,
  NULL_STRING16,
  RPKI_CODES,
  SIG_ABUSE,
  SIG_ANYCAST,
  SIG_BOT,
  SIG_DROP,
  SIG_PROXY,
  SIG_RELAY,
  SIG_RESOLVER,
  SIG_TOR,
  SIG_VPN,
  SNAPSHOT_MAGIC,
  SNAPSHOT_VERSION,
  SUB_TABLE_BIT,
  MAX_LEAVES,
  type ColumnName,
  TYPE_SIZE,
  type ColumnRef,
  type SnapshotMeta,
} from './format.js';
import type { SnapshotModel } from './model.js';
import { largestFirstModel } from './order.js';
import { encodeV4 } from './v4-write.js';

export interface EncodeOptions {
  /** Deflate the columns (default true). */
  readonly compress?: boolean;
  /** Deflate level 0..9 (default 6). */
  readonly level?: 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
  /**
   * Deflate-raw compressor (default fflate's). The builder passes Node's
   * native zlib, which writes the same format several times faster.
   */
  readonly deflate?: (raw: Uint8Array, level: number) => Uint8Array;
  /** CRC-32 of the column blobs (default: the portable one); the builder passes Node's native `zlib.crc32`. */
  readonly checksum?: Checksum;
  /** Size of the IPv4 direct table, 2^bits entries, 16..24 (default: 20, or 16 for a small index). For tests. */
  readonly v4DirBits?: number;
}

/** Columns smaller than this are stored as they are (deflate would not pay). */
const MIN_DEFLATE_BYTES = 256;
/**
 * A column is stored deflated only when that saves at least this share of
 * its bytes: inflating costs load time in proportion to the raw size, and a
 * column that hardly compresses (the float32 coordinates save 17%) loads
 * faster as a plain copy.
 */
const MIN_DEFLATE_SAVING = 0.25;
/**
 * Columns stored raw whatever deflate would save. `leaf.ids` is read at
 * every load and deflate saves only about half of it (4.6 of 9.2 MB for the
 * world snapshot), while inflating it was ~24 ms of a ~260 ms `openSync()`
 * on the 2-core machine; raw, it loads as a read. The file grows by what
 * deflate saved (docs/design.md, "Sixth round"). The other columns whose
 * deflate saves about half (`str.bytes`, `v4.blk`, `geo.city`, `net.asn`)
 * stay deflated: raw, they would take main file and sidecar over 40 MB.
 */
const STORED_RAW: ReadonlySet<ColumnName> = new Set<ColumnName>(['leaf.ids']);

/** A column as the writer holds it. */
type TypedColumn = Uint8Array | Uint16Array | Uint32Array | Float32Array;

/** A column's bytes (little-endian, as every supported platform holds them). */
const bytes = (a: TypedColumn): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/**
 * The smallest deflated form of a column: as it is, or through a filter
 * (filters.ts) for integer columns of 2 or 4 bytes. Undoing one costs the
 * reader a pass over the column in place (a few ms for the largest); it saved
 * ~8 MB of a 38 MB world snapshot (the IPv6 range words alone 5.6 MB).
 */
function smallestDeflate(col: TypedColumn, deflate: (b: Uint8Array) => Uint8Array): { blob: Uint8Array; filter: ColumnFilter | null } {
  let best: { blob: Uint8Array; filter: ColumnFilter | null } = { blob: deflate(bytes(col)), filter: null };
  if (!(col instanceof Uint16Array || col instanceof Uint32Array)) return best;
  for (const filter of COLUMN_FILTERS) {
    const blob = deflate(bytes(applyFilter(filter, col)));
    // A filter must save a little (1%) to be worth the reader's pass.
    if (blob.length < best.blob.length * 0.99) best = { blob, filter };
  }
  return best;
}

const MASK32 = 0xffffffffn;
const MASK64 = (1n << 64n) - 1n;

/** Days since 1970-01-01 of a `YYYY-MM-DD` date. */
export function dayNumber(date: string): number {
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(ms)) throw new RangeError(`not a YYYY-MM-DD date: ${date}`);
  return Math.floor(ms / 86_400_000);
}

class StringTable {
  private readonly ids = new Map<string, number>();
  private readonly list: string[] = [];
  /** The id of `s` (NULL_STRING for null); `what` names the field for the error a non-string gets. */
  id(s: string | null, what: string): number {
    if (s === null) return NULL_STRING;
    // A missing field (undefined) would otherwise be stored as "" and answer as an empty string.
    if (typeof s !== 'string') throw new RangeError(`${what}: expected a string or null, got ${s === undefined ? 'undefined' : typeof s}`);
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.list.length;
      this.ids.set(s, id);
      this.list.push(s);
    }
    return id;
  }
  columns(): { offsets: Uint32Array; bytes: Uint8Array } {
    const enc = new TextEncoder();
    const parts = this.list.map((s) => enc.encode(s));
    const offsets = new Uint32Array(parts.length + 1);
    let total = 0;
    parts.forEach((p, i) => {
      offsets[i] = total;
      total += p.length;
    });
    offsets[parts.length] = total;
    const bytes = new Uint8Array(total);
    parts.forEach((p, i) => bytes.set(p, offsets[i]));
    return { offsets, bytes };
  }
}

function checkRanges(name: string, r: Ranges<number>, bits: number, leaves: number): void {
  if (r.starts.length === 0 || r.starts[0] !== 0n) throw new RangeError(`${name}: ranges must start at address 0`);
  if (r.starts.length !== r.values.length) throw new RangeError(`${name}: starts and values differ in length`);
  const max = 1n << BigInt(bits);
  for (let i = 0; i < r.starts.length; i++) {
    if (i > 0 && r.starts[i]! <= r.starts[i - 1]!) throw new RangeError(`${name}: starts must strictly increase`);
    if (r.starts[i]! >= max) throw new RangeError(`${name}: start beyond the address space`);
    const v = r.values[i]!;
    if (!Number.isInteger(v) || v < 0 || v >= leaves) throw new RangeError(`${name}: leaf id ${v} out of range`);
  }
}

/** 24-bit ids as 3 little-endian bytes each. */
function pack24(ids: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(ids.length * 3);
  for (let i = 0; i < ids.length; i++) put24(out, 3 * i, ids[i]!);
  return out;
}

function pushMerged(starts: bigint[], values: number[], start: bigint, value: number): void {
  const n = starts.length;
  if (n > 0 && starts[n - 1] === start) {
    values[n - 1] = value;
    if (n > 1 && values[n - 2] === value) {
      starts.pop();
      values.pop();
    }
  } else if (n === 0 || values[n - 1] !== value) {
    starts.push(start);
    values.push(value);
  }
}

/** Splits IPv6 ranges into a main table keyed by the upper 64 bits and sub-tables for finer /64 blocks. */
function encodeV6(r: Ranges<number>) {
  const n = r.starts.length;
  const fine = new Set<bigint>();
  for (const s of r.starts) if ((s & MASK64) !== 0n) fine.add(s >> 64n);
  const mainStarts: bigint[] = [];
  const mainLeaves: number[] = [];
  const subOffsets: number[] = [0];
  const subW: number[] = [];
  const subLeaf: number[] = [];
  let i = 0;
  while (i < n) {
    const hi = r.starts[i]! >> 64n;
    if (!fine.has(hi)) {
      pushMerged(mainStarts, mainLeaves, hi, r.values[i]!);
      i++;
      continue;
    }
    // 1. A /64 block with finer boundaries: its own table keyed by the lower 64 bits.
    const sStarts: bigint[] = [];
    const sValues: number[] = [];
    const first = (r.starts[i]! & MASK64) === 0n;
    pushMerged(sStarts, sValues, 0n, first ? r.values[i]! : r.values[i - 1]!);
    if (first) i++;
    while (i < n && r.starts[i]! >> 64n === hi) {
      pushMerged(sStarts, sValues, r.starts[i]! & MASK64, r.values[i]!);
      i++;
    }
    const k = subOffsets.length - 1;
    sStarts.forEach((s, j) => {
      subW.push(Number(s >> 32n), Number(s & MASK32));
      subLeaf.push(sValues[j]!);
    });
    subOffsets.push(subLeaf.length);
    pushMerged(mainStarts, mainLeaves, hi, SUB_TABLE_BIT + k);
    // 2. The address after the block continues with the block's last value.
    if (hi < MASK64) pushMerged(mainStarts, mainLeaves, hi + 1n, sValues[sValues.length - 1]!);
  }
  // 3. Group the main starts by their first word.
  const w0: number[] = [];
  const groups: number[] = [];
  const w1 = new Uint32Array(mainStarts.length);
  mainStarts.forEach((s, j) => {
    const a = Number(s >> 32n);
    if (w0.length === 0 || w0[w0.length - 1] !== a) {
      w0.push(a);
      groups.push(j);
    }
    w1[j] = Number(s & MASK32);
  });
  groups.push(mainStarts.length);
  return {
    w0: Uint32Array.from(w0),
    groups: Uint32Array.from(groups),
    w1,
    leaf: Uint32Array.from(mainLeaves),
    sub: Uint32Array.from(subOffsets),
    subw: Uint32Array.from(subW),
    subleaf: Uint32Array.from(subLeaf),
  };
}

function typeOf(a: ArrayBufferView): ColumnRef['type'] {
  if (a instanceof Uint8Array) return 'u8';
  if (a instanceof Uint16Array) return 'u16';
  if (a instanceof Float32Array) return 'f32';
  return 'u32';
}

/** Encodes a snapshot. Throws RangeError on an inconsistent model (a writer bug, not user input). */
export function encodeSnapshot(input: SnapshotModel, options: EncodeOptions = {}): Uint8Array {
  // Readers refuse any other form (layout.ts), so a writer must not make one.
  if (!isIsoUtcTime(input.build_date)) throw new RangeError(`build_date: not an ISO UTC time as toISOString writes it: ${JSON.stringify(input.build_date)}`);
  const nLeaves = input.leaves.length;
  if (nLeaves > MAX_LEAVES) throw new RangeError(`${nLeaves} distinct answers exceed the format's ${MAX_LEAVES}`);
  checkRanges('v4', input.v4, 32, nLeaves);
  checkRanges('v6', input.v6, 128, nLeaves);
  // Before the renumbering, which indexes by these ids (a bad one would be read as row 0).
  const inTable = (id: number, length: number): boolean => Number.isInteger(id) && id >= 0 && id < length;
  for (const l of input.leaves) {
    if (!(inTable(l.geo, input.geo.length) && inTable(l.net, input.networks.length) && inTable(l.sig, input.signals.length))) {
      throw new RangeError('leaf refers past a table');
    }
  }
  // Ids most space first, so that lookups read few lines and pages of the tables by id (order.ts).
  const model = largestFirstModel(input);
  const strings = new StringTable();
  const cols = new Map<ColumnName, TypedColumn>();
  const u32 = (xs: readonly number[]): Uint32Array => Uint32Array.from(xs);

  // 1. Record tables, strings interned in table order (deterministic).
  const g = model.geo;
  // Country codes and time zones first: few distinct values, so their ids fit u16 columns.
  const u16 = (xs: readonly number[], what: string): Uint16Array => {
    if (xs.some((x) => x !== NULL_STRING && x >= NULL_STRING16)) throw new RangeError(`too many distinct ${what} for a u16 column`);
    return Uint16Array.from(xs.map((x) => (x === NULL_STRING ? NULL_STRING16 : x)));
  };
  const ccIds = g.map((r) => strings.id(r.country_code, 'geo.country_code'));
  const tzIds = g.map((r) => strings.id(r.timezone, 'geo.timezone'));
  // Country names live once per code in the meta, not once per row.
  const countryNames: Record<string, string> = {};
  for (const r of g) {
    if (r.country === null) continue;
    if (r.country_code === null) throw new RangeError(`geo row has a country name (${r.country}) but no code`);
    const known = countryNames[r.country_code];
    if (known !== undefined && known !== r.country) throw new RangeError(`country ${r.country_code} has two names: ${known}, ${r.country}`);
    countryNames[r.country_code] = r.country;
  }
  if (g.some((r) => r.country === null && r.country_code !== null && countryNames[r.country_code] !== undefined)) {
    throw new RangeError('a geo row lacks the country name other rows give its code');
  }
  cols.set('geo.country_code', u16(ccIds, 'country codes'));
  cols.set('geo.region', u32(g.map((r) => strings.id(r.region, 'geo.region'))));
  cols.set('geo.city', u32(g.map((r) => strings.id(r.city, 'geo.city'))));
  cols.set('geo.timezone', u16(tzIds, 'time zones'));
  cols.set('geo.latitude', Float32Array.from(g.map((r) => r.latitude ?? Number.NaN)));
  cols.set('geo.longitude', Float32Array.from(g.map((r) => r.longitude ?? Number.NaN)));
  const nets = model.networks;
  cols.set('net.asn', u32(nets.map((r) => r.asn)));
  cols.set('net.as_org', u32(nets.map((r) => strings.id(r.as_org, 'net.as_org'))));
  cols.set(
    'net.flags',
    Uint8Array.from(nets.map((r) => (r.is_announced ? NET_ANNOUNCED : 0) | (r.is_bogon ? NET_BOGON : 0) | (r.routing_inferred === true ? NET_ROUTING_INFERRED : 0))),
  );
  cols.set('net.rpki', Uint8Array.from(nets.map((r) => RPKI_CODES.indexOf(r.rpki))));
  cols.set('net.allocation_day', u32(nets.map((r) => (r.allocation_date === null ? NULL_DAY : dayNumber(r.allocation_date)))));
  cols.set('net.registration_country', u32(nets.map((r) => strings.id(r.registration_country, 'net.registration_country'))));
  const sigs = model.signals;
  cols.set(
    'sig.flags',
    Uint16Array.from(
      sigs.map(
        (s) =>
          (s.is_relay ? SIG_RELAY : 0) |
          (s.is_tor ? SIG_TOR : 0) |
          (s.is_vpn ? SIG_VPN : 0) |
          (s.is_proxy ? SIG_PROXY : 0) |
          (s.is_public_resolver ? SIG_RESOLVER : 0) |
          (s.is_drop_listed ? SIG_DROP : 0) |
          (s.recent_abuse ? SIG_ABUSE : 0) |
          (s.is_verified_bot ? SIG_BOT : 0) |
          (s.is_anycast ? SIG_ANYCAST : 0),
      ),
    ),
  );
  cols.set('sig.connection_type', Uint8Array.from(sigs.map((s) => CONNECTION_CODES.indexOf(s.connection_type))));
  cols.set('sig.connection_evidence', Uint8Array.from(sigs.map((s) => EVIDENCE_CODES.indexOf(s.connection_evidence))));
  cols.set('sig.datacenter_provider', u32(sigs.map((s) => strings.id(s.datacenter_provider, 'sig.datacenter_provider'))));
  cols.set('sig.relay_provider', u32(sigs.map((s) => strings.id(s.relay_provider, 'sig.relay_provider'))));
  cols.set('sig.verified_bot_name', u32(sigs.map((s) => strings.id(s.verified_bot_name, 'sig.verified_bot_name'))));
  cols.set('sig.vpn_operator', u32(sigs.map((s) => strings.id(s.vpn_operator, 'sig.vpn_operator'))));
  for (const [name, col] of cols) {
    if (name.startsWith('net.rpki') || name.startsWith('sig.connection')) {
      if ((col as Uint8Array).some((x) => x === 255)) throw new RangeError(`${name}: value outside its enum`);
    }
  }
  const leaves = model.leaves;
  // A leaf is (geo row, network/signal pair); far fewer pairs than leaves, so the pair is stored once.
  const pairIds = new Map<number, number>();
  const pairNet: number[] = [];
  const pairSig: number[] = [];
  const leafPair = leaves.map((l) => {
    if (l.geo >= 1 << 24) throw new RangeError('too many geo rows for 24-bit ids');
    const key = l.net * sigs.length + l.sig;
    let id = pairIds.get(key);
    if (id === undefined) {
      id = pairNet.length;
      pairIds.set(key, id);
      pairNet.push(l.net);
      pairSig.push(l.sig);
    }
    if (id >= 1 << 24) throw new RangeError('too many network/signal pairs for 24-bit ids');
    return id;
  });
  // Interleaved per leaf: [geo low 16, pair low 16, geo high 8 | pair high 8 << 8] (one cache line).
  const ids = new Uint16Array(leaves.length * 3);
  leaves.forEach((l, i) => {
    const p = leafPair[i]!;
    ids[3 * i] = l.geo & 0xffff;
    ids[3 * i + 1] = p & 0xffff;
    ids[3 * i + 2] = (l.geo >>> 16) | ((p >>> 16) << 8);
  });
  cols.set('leaf.ids', ids);
  cols.set('pair.net', u32(pairNet));
  cols.set('pair.sig', u32(pairSig));
  const str = strings.columns();
  cols.set('str.offsets', str.offsets);
  cols.set('str.bytes', str.bytes);

  // 2. The index.
  const v4 = options.v4DirBits === undefined ? encodeV4(model.v4) : encodeV4(model.v4, options.v4DirBits);
  cols.set('v4.dir', v4.dir);
  cols.set('v4.blk', v4.blk);
  const v6 = encodeV6(model.v6);
  cols.set('v6.w0', v6.w0);
  cols.set('v6.groups', v6.groups);
  cols.set('v6.w1', v6.w1);
  cols.set('v6.leaf', pack24(v6.leaf));
  cols.set('v6.sub', v6.sub);
  cols.set('v6.subw', v6.subw);
  cols.set('v6.subleaf', pack24(v6.subleaf));

  // 3. Each column its own blob, deflated on its own (offsets count from the end of the meta).
  const compress = options.compress ?? true;
  const level = options.level ?? 6;
  const checksum = options.checksum ?? crc32;
  const deflate = options.deflate ?? ((raw: Uint8Array, l: number) => deflateSync(raw, { level: l as EncodeOptions['level'] & number }));
  const refs: Record<string, ColumnRef> = {};
  const blobs: Uint8Array[] = [];
  let at = 0;
  for (const name of Object.keys(COLUMNS) as ColumnName[]) {
    const col = cols.get(name)!;
    const raw = bytes(col);
    const tried = compress && raw.length >= MIN_DEFLATE_BYTES && !STORED_RAW.has(name) ? smallestDeflate(col, (b) => deflate(b, level)) : null;
    const packed = tried !== null && tried.blob.length <= raw.length * (1 - MIN_DEFLATE_SAVING) ? tried : null;
    const blob = packed?.blob ?? raw;
    refs[name] = {
      type: typeOf(col),
      count: col.byteLength / TYPE_SIZE[typeOf(col)],
      offset: at,
      stored: blob.length,
      deflate: packed !== null,
      ...(packed?.filter ? { filter: packed.filter } : {}),
      checksum: checksum(blob),
    };
    blobs.push(blob);
    at += blob.length;
  }
  const meta: SnapshotMeta = {
    format_version: SNAPSHOT_VERSION,
    build_date: model.build_date,
    attribution_url: model.attribution_url,
    has_rpki: model.has_rpki,
    country_names: countryNames,
    sources: model.sources,
    unavailable: model.unavailable ?? [],
    ranges_v6: leafRuns(model.v6.values),
    columns: refs,
  };
  const metaBytes = new TextEncoder().encode(JSON.stringify(meta));

  // 4. The file: header with both checksums, meta, blobs.
  const storedSize = 4 + metaBytes.length + at;
  const file = new Uint8Array(HEADER_SIZE + storedSize);
  const dv = new DataView(file.buffer);
  file.set(SNAPSHOT_MAGIC, 0);
  dv.setUint16(8, SNAPSHOT_VERSION, true);
  const filtered = Object.values(refs).some((r) => r.filter !== undefined);
  dv.setUint16(10, (compress ? FLAG_DEFLATE : 0) | (filtered ? FLAG_FILTERS : 0), true);
  dv.setUint32(12, HEADER_SIZE, true);
  dv.setUint32(16, storedSize, true);
  dv.setUint32(20, metaBytes.length, true);
  dv.setUint32(HEADER_SIZE, metaBytes.length, true);
  file.set(metaBytes, HEADER_SIZE + 4);
  let pos = HEADER_SIZE + 4 + metaBytes.length;
  for (const b of blobs) {
    file.set(b, pos);
    pos += b.length;
  }
  dv.setUint32(24, crc32(file.subarray(HEADER_SIZE, HEADER_SIZE + 4 + metaBytes.length)), true);
  dv.setUint32(28, crc32(file.subarray(0, 28)), true);
  return file;
}

/** Runs of one leaf, in address order: the IPv6 ranges the meta records (`info.counts` counts IPv4's the same way). */
function leafRuns(leaves: readonly number[]): number {
  let runs = 0;
  for (let i = 0; i < leaves.length; i++) if (i === 0 || leaves[i] !== leaves[i - 1]) runs++;
  return runs;
}
