/**
 * The invariants a snapshot's columns must hold before anything reads them:
 * table lengths, ids and codes in range, the IPv4 index's blocks, the IPv6
 * index's groups and sub-tables. Each throws `snapshot_corrupt` naming the
 * column. The IPv6 index's checks are apart so that a reader can run them
 * when it decodes those columns (decode.ts, on their first use).
 *
 * @module
 */
import { corrupt } from '../errors.js';
import { LAST_PLAIN_DAY } from '../clock.js';
import {
  firstAbove16,
  firstAbove24,
  firstAbove32,
  firstAbove8,
  firstBadGroup,
  firstBadLeaf,
  firstBadLeaf6,
  firstBadStart,
  firstBadSubTable,
  firstDecrease32,
} from './checks.js';
import {
  CONNECTION_CODES,
  EVIDENCE_CODES,
  MAX_LEAVES,
  NULL_DAY,
  NULL_STRING,
  NULL_STRING16,
  RPKI_CODES,
  SUB_TABLE_BIT,
  type COLUMNS,
  type ColumnName,
  type V6ColumnName,
} from './format.js';
import { checkV4 } from './v4-index.js';

/** Every column, as the typed array of its element type. */
export type Columns = { [K in ColumnName]: (typeof COLUMNS)[K] extends 'u8'
  ? Uint8Array
  : (typeof COLUMNS)[K] extends 'u16'
    ? Uint16Array
    : (typeof COLUMNS)[K] extends 'f32'
      ? Float32Array
      : Uint32Array };

/** The IPv6 index columns. */
export type V6Columns = Pick<Columns, V6ColumnName>;
/** Every column but the IPv6 index's: what IPv4 lookups and the result assembly read. */
export type MainColumns = Omit<Columns, V6ColumnName>;

/** Throws `snapshot_corrupt` (`why`, at `at`) unless `ok`. */
export function require(ok: boolean, why: string, at: string): void {
  if (!ok) throw corrupt(why, at);
}

/** Every element of `a` below `limit`, but `none` (a u32 column's null: NULL_STRING, NULL_DAY). */
function allBelow(a: Uint32Array | Uint8Array, limit: number, name: string, none = -1): void {
  // One loop per element type (checks.ts says why).
  const at = a instanceof Uint32Array ? firstAbove32(a, limit, none) : firstAbove8(a, limit);
  if (at >= 0) throw corrupt(`${name} holds ${a[at]}, out of range (< ${limit})`, name);
}

function nonDecreasing(a: Uint32Array, name: string): void {
  require(firstDecrease32(a) < 0, `${name} is not sorted`, name);
}

/**
 * Checks the tables (strings, geo, network, signals, leaves, pairs): with
 * validateIndex4, every invariant IPv4 lookups and the result assembly rely
 * on. Reads neither `v4.dir` nor `v4.blk`, so a load can run it while those
 * are still being decoded, or another thread checks them.
 */
export function validateTables(c: Omit<MainColumns, 'v4.dir' | 'v4.blk'>): void {
  const nGeo = c['geo.country_code'].length;
  const nNet = c['net.asn'].length;
  const nSig = c['sig.flags'].length;
  require(c['leaf.ids'].length % 3 === 0, 'leaf ids are not triples', 'leaf.ids');
  const nLeaf = c['leaf.ids'].length / 3;
  // Leaf ids fit 23 bits: the IPv4 maps and the IPv6 main table read an id at or above 2^23 as a reference.
  require(nLeaf <= MAX_LEAVES, `leaf.ids holds ${nLeaf} leaves, more than ${MAX_LEAVES}`, 'leaf.ids');
  const nPair = c['pair.net'].length;
  const nStr = c['str.offsets'].length - 1;
  // 1. Tables: equal column lengths, string ids and enum codes in range.
  require(nStr >= 0, 'string table has no offsets', 'str.offsets');
  nonDecreasing(c['str.offsets'], 'str.offsets');
  require(c['str.offsets'][nStr]! === c['str.bytes'].length && c['str.offsets'][0] === 0, 'string offsets do not match the bytes', 'str.offsets');
  for (const n of ['geo.region', 'geo.city', 'geo.timezone', 'geo.latitude', 'geo.longitude'] as const) {
    require(c[n].length === nGeo, `${n} has the wrong length`, n);
  }
  for (const n of ['net.as_org', 'net.flags', 'net.rpki', 'net.allocation_day', 'net.registration_country'] as const) {
    require(c[n].length === nNet, `${n} has the wrong length`, n);
  }
  for (const n of [
    'sig.connection_type', 'sig.connection_evidence', 'sig.datacenter_provider', 'sig.relay_provider', 'sig.verified_bot_name', 'sig.vpn_operator',
  ] as const) {
    require(c[n].length === nSig, `${n} has the wrong length`, n);
  }
  for (const n of ['geo.country_code', 'geo.timezone'] as const) {
    require(firstAbove16(c[n], nStr, NULL_STRING16) < 0, `${n} holds a string id out of range`, n);
  }
  for (const n of [
    'geo.region', 'geo.city', 'net.as_org',
    'net.registration_country', 'sig.datacenter_provider', 'sig.relay_provider', 'sig.verified_bot_name', 'sig.vpn_operator',
  ] as const) {
    allBelow(c[n], nStr, n, NULL_STRING);
  }
  allBelow(c['net.rpki'], RPKI_CODES.length, 'net.rpki');
  // A day past 9999-12-31 (the writer takes YYYY-MM-DD dates) would be no date; far enough past, Date throws on it.
  allBelow(c['net.allocation_day'], LAST_PLAIN_DAY + 1, 'net.allocation_day', NULL_DAY);
  allBelow(c['sig.connection_type'], CONNECTION_CODES.length, 'sig.connection_type');
  allBelow(c['sig.connection_evidence'], EVIDENCE_CODES.length, 'sig.connection_evidence');
  require(c['pair.sig'].length === nPair, 'pair columns differ in length', 'pair.sig');
  require(firstBadLeaf(c['leaf.ids'], nGeo, nPair) < 0, 'a leaf refers past the geo or pair table', 'leaf.ids');
  allBelow(c['pair.net'], nNet, 'pair.net');
  allBelow(c['pair.sig'], nSig, 'pair.sig');
}

/** Checks the IPv4 index (v4-index.ts): table entries and blocks, leaf ids below the leaf count. */
export function validateIndex4(c: Pick<MainColumns, 'v4.dir' | 'v4.blk' | 'leaf.ids'>): void {
  checkV4(c['v4.dir'], c['v4.blk'], c['leaf.ids'].length / 3);
}

/** Checks the IPv6 index: groups by first word, second words increasing, sub-tables well formed, leaf ids below `nLeaf`. */
export function validateV6(c: V6Columns, nLeaf: number): void {
  const w0 = c['v6.w0'];
  const groups = c['v6.groups'];
  const w1 = c['v6.w1'];
  const leaf6 = c['v6.leaf'];
  const sub = c['v6.sub'];
  const subW = c['v6.subw'];
  const subLeaf = c['v6.subleaf'];

  require(w0.length > 0 && w0[0] === 0 && groups.length === w0.length + 1, 'IPv6 groups are malformed', 'v6.groups');
  require(groups[0] === 0 && groups[w0.length] === w1.length && leaf6.length === 3 * w1.length && w1[0] === 0, 'IPv6 ranges must start at ::', 'v6.w1');
  const badGroup = firstBadGroup(w0, groups);
  if (badGroup >= 0) {
    throw groups[badGroup + 1]! <= groups[badGroup]! ? corrupt('IPv6 group is empty', 'v6.groups') : corrupt('IPv6 first words are not increasing', 'v6.w0');
  }
  require(firstBadStart(groups, w1) < 0, 'IPv6 starts are not increasing', 'v6.w1');
  const nSub = sub.length - 1;
  require(nSub >= 0 && sub[0] === 0 && 3 * sub[nSub]! === subLeaf.length && 3 * subW.length === 2 * subLeaf.length, 'IPv6 sub-tables are malformed', 'v6.sub');
  nonDecreasing(sub, 'v6.sub');
  require(firstBadSubTable(sub, subW) < 0, 'IPv6 sub-table does not start at its block or its starts do not increase', 'v6.subw');
  require(firstBadLeaf6(leaf6, nLeaf, SUB_TABLE_BIT, nSub) < 0, 'an IPv6 leaf id is out of range', 'v6.leaf');
  require(subLeaf.length % 3 === 0 && firstAbove24(subLeaf, nLeaf) < 0, 'v6.subleaf holds an id out of range', 'v6.subleaf');
}

/** The IPv4 index's columns: validateTables and validateV6 read neither. */
export const INDEX4_NAMES: ReadonlySet<string> = new Set(['v4.dir', 'v4.blk']);
