/**
 * Reads the explain sidecar (format.ts) into lookup tables: per role and
 * family the prefixes as sorted keys (start * 256 + length) for a
 * longest-match lookup, the intervals of the ASN table and the geo sources'
 * spans, and the ASN-keyed sets. Every count, id and order is checked: a
 * bad sidecar is `explain_corrupt`, never a crash or a wrong answer. The
 * IPv6 prefix and interval sections (most of the decoding, their keys being
 * bigints) are stepped over and read on their first use (LazyTables), so an
 * IPv4 explanation never pays for them; a corrupt one is refused there.
 *
 * @module
 */
import { IpIntelError } from '../errors.js';
import { crc32 } from '../snapshot/checksum.js';
import type { Inflate } from '../snapshot/decode.js';
import { ASN_ROLES, PREFIX_ROLES, SECTION_KINDS, SIDECAR_MAGIC, SIDECAR_PRELUDE, SIDECAR_VERSION, type SidecarAsnRole, type SidecarHeader, type SidecarPrefixRole } from './format.js';
import { ByteReader } from './varint.js';

/** One role's prefixes of one family. */
export interface PrefixTable {
  /** start * 256 + length, ascending (numbers for IPv4, bigints for IPv6). */
  readonly keys: Float64Array | bigint[];
  readonly sources: Uint32Array;
  readonly values: Uint32Array;
  readonly table: readonly unknown[];
  /** Prefix lengths present, longest first. */
  readonly lengths: readonly number[];
}

/** Sorted, disjoint intervals (the ASN table; geo spans have no values). */
export interface IntervalTable {
  /** IPv4: numbers; IPv6: bigints. */
  readonly firsts: Float64Array | bigint[];
  readonly lasts: Float64Array | bigint[];
  readonly sources: Uint32Array;
  readonly values: Uint32Array | null;
  readonly table: readonly unknown[];
}

export interface AsnEntry {
  readonly value: unknown;
  readonly source: number;
}

/** Tables by key; IPv6 ones decoded on their first `get` (see decodeSidecar). */
export interface Tables<K, T> {
  get(key: K): T | undefined;
}

export interface Sidecar {
  readonly header: SidecarHeader;
  readonly prefixes: Tables<`${SidecarPrefixRole}${4 | 6}`, PrefixTable>;
  readonly intervals: Tables<string, IntervalTable>;
  readonly asns: ReadonlyMap<SidecarAsnRole, ReadonlyMap<number, readonly AsnEntry[]>>;
}

export function sidecarCorrupt(why: string): IpIntelError {
  return new IpIntelError('explain_corrupt', `explain sidecar is corrupt: ${why}`);
}

function parseHead(bytes: Uint8Array): { header: SidecarHeader; body: Uint8Array } {
  if (bytes.length < SIDECAR_PRELUDE || SIDECAR_MAGIC.some((b, i) => bytes[i] !== b)) throw sidecarCorrupt('not an ipintel explain sidecar (bad magic)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint16(8, true);
  if (version !== SIDECAR_VERSION) throw sidecarCorrupt(`sidecar format version ${version}; this reader reads version ${SIDECAR_VERSION}`);
  // No flag is defined yet: a set bit means a newer writer.
  if (view.getUint16(10, true) !== 0) throw sidecarCorrupt(`unknown flags ${view.getUint16(10, true)}`);
  const headLength = view.getUint32(12, true);
  if (SIDECAR_PRELUDE + headLength > bytes.length) throw sidecarCorrupt('truncated header');
  const head = bytes.subarray(SIDECAR_PRELUDE, SIDECAR_PRELUDE + headLength);
  if (crc32(head) !== view.getUint32(16, true)) throw sidecarCorrupt('header checksum mismatch');
  let header: SidecarHeader;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(head)) as SidecarHeader;
  } catch {
    throw sidecarCorrupt('header is not JSON');
  }
  const body = bytes.subarray(SIDECAR_PRELUDE + headLength);
  const b = header.body as SidecarHeader['body'] | undefined;
  if (typeof header.snapshot?.identity !== 'string' || typeof b?.raw !== 'number' || b.stored !== body.length) throw sidecarCorrupt('body size does not match the header');
  if (header.roas_source !== null && !Number.isInteger(header.roas_source)) throw sidecarCorrupt('roas_source is not a source row');
  if (crc32(body) !== b.checksum) throw sidecarCorrupt('body checksum mismatch');
  return { header, body };
}

/** Only the header: which snapshot the sidecar explains (no body is inflated). */
export function readSidecarHeader(bytes: Uint8Array): SidecarHeader {
  return parseHead(bytes).header;
}

function table(r: ByteReader): unknown[] {
  try {
    const t = JSON.parse(r.text()) as unknown;
    if (!Array.isArray(t)) throw new Error('not an array');
    return t;
  } catch (e) {
    if (e instanceof IpIntelError) throw e;
    throw sidecarCorrupt('a value table is not a JSON array');
  }
}

function ids(r: ByteReader, n: number, below: number, what: string): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const v = r.uint();
    if (v >= below) throw sidecarCorrupt(`${what} ${v} out of range`);
    out[i] = v;
  }
  return out;
}

const MAX_SOURCES = 1 << 16;

/** `limit`: how many values the role's table had when the section was written (its ids refer to those). */
function readPrefixes(r: ByteReader, version: 4 | 6, n: number, values: unknown[], limit: number): PrefixTable {
  const keys = version === 4 ? readPrefixes4(r, n) : readPrefixes6(r, n);
  const lengths = new Set<number>();
  for (let i = 0; i < n; i++) lengths.add(typeof keys[i] === 'number' ? (keys[i] as number) % 256 : Number((keys[i] as bigint) & 255n));
  return { keys, sources: ids(r, n, MAX_SOURCES, 'source row'), values: ids(r, n, Math.max(limit, 1), 'value id'), table: values, lengths: [...lengths].sort((a, b) => b - a) };
}

const notPrefix = (i: number, version: 4 | 6): IpIntelError => sidecarCorrupt(`prefix ${i} of a role is not a valid IPv${version} prefix`);

/** IPv4 prefixes in plain numbers (exact below 2^53): keys start * 256 + length, ascending. */
function readPrefixes4(r: ByteReader, n: number): Float64Array {
  const starts = new Float64Array(n);
  let prev = 0;
  for (let i = 0; i < n; i++) starts[i] = prev += r.uint();
  const lengths = r.bytes(n);
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const len = lengths[i]!;
    const s = starts[i]!;
    if (len > 32 || s > 0xffffffff || s % 2 ** (32 - len) !== 0) throw notPrefix(i, 4);
    keys[i] = s * 256 + len;
    if (i > 0 && keys[i]! <= keys[i - 1]!) throw sidecarCorrupt('prefixes out of order');
  }
  return keys;
}

/** IPv6 prefixes as bigints: keys start * 256 + length, ascending. */
function readPrefixes6(r: ByteReader, n: number): bigint[] {
  const starts = new Array<bigint>(n);
  let prev = 0n;
  for (let i = 0; i < n; i++) starts[i] = prev += r.big();
  const lengths = r.bytes(n);
  const keys = new Array<bigint>(n);
  for (let i = 0; i < n; i++) {
    const len = lengths[i]!;
    const s = starts[i]!;
    const hostBits = len < 128 ? s & ((1n << BigInt(128 - len)) - 1n) : 0n;
    if (len > 128 || s >> 128n !== 0n || hostBits !== 0n) throw notPrefix(i, 6);
    keys[i] = s * 256n + BigInt(len);
    if (i > 0 && keys[i]! <= keys[i - 1]!) throw sidecarCorrupt('prefixes out of order');
  }
  return keys;
}

function readIntervals(r: ByteReader, version: 4 | 6, n: number, withValues: boolean, values: unknown[], limit: number): IntervalTable {
  let firsts: Float64Array | bigint[];
  let lasts: Float64Array | bigint[];
  if (version === 4) {
    const f = (firsts = new Float64Array(n));
    const l = (lasts = new Float64Array(n));
    let next = 0;
    for (let i = 0; i < n; i++) {
      f[i] = next + r.uint();
      l[i] = f[i]! + r.uint();
      next = l[i]! + 1;
      if (l[i]! > 0xffffffff) throw sidecarCorrupt('an IPv4 interval ends past the family');
    }
  } else {
    const f = (firsts = new Array<bigint>(n));
    const l = (lasts = new Array<bigint>(n));
    let next = 0n;
    for (let i = 0; i < n; i++) {
      f[i] = next + r.big();
      l[i] = f[i]! + r.big();
      next = l[i]! + 1n;
    }
  }
  return { firsts, lasts, sources: ids(r, n, MAX_SOURCES, 'source row'), values: withValues ? ids(r, n, Math.max(limit, 1), 'value id') : null, table: values };
}

/**
 * Tables of which some are read on their first `get`: the IPv6 sections,
 * whose bigint keys cost most of a sidecar's decode (and its garbage) and
 * which an IPv4 explanation never reads. A section that turns out corrupt
 * then throws `explain_corrupt` on that `get`, and on every later one.
 */
class LazyTables<K, T> implements Tables<K, T> {
  private readonly ready = new Map<K, T>();
  private readonly later = new Map<K, () => T>();
  private readonly failed = new Map<K, IpIntelError>();

  set(key: K, table: T): void {
    this.ready.set(key, table);
  }

  defer(key: K, read: () => T): void {
    this.later.set(key, read);
  }

  get(key: K): T | undefined {
    const t = this.ready.get(key);
    if (t !== undefined) return t;
    const fail = this.failed.get(key);
    if (fail !== undefined) throw fail;
    const read = this.later.get(key);
    if (read === undefined) return undefined;
    try {
      const made = read();
      this.ready.set(key, made);
      this.later.delete(key);
      return made;
    } catch (e) {
      if (e instanceof IpIntelError) this.failed.set(key, e);
      throw e;
    }
  }
}

/** Steps over an IPv6 section's data (as readPrefixes and readIntervals read it) without decoding it. */
function skipSection6(r: ByteReader, kind: 'prefix' | 'interval' | 'span', n: number): void {
  if (kind === 'prefix') {
    r.skipVarints(n);
    r.bytes(n);
    r.skipVarints(2 * n);
  } else r.skipVarints((kind === 'interval' ? 4 : 3) * n);
}

function readAsns(r: ByteReader, n: number, values: unknown[]): Map<number, AsnEntry[]> {
  const asns = new Array<number>(n);
  let prev = 0;
  for (let i = 0; i < n; i++) asns[i] = prev += r.uint();
  const sources = ids(r, n, MAX_SOURCES, 'source row');
  const vals = ids(r, n, Math.max(values.length, 1), 'value id');
  const out = new Map<number, AsnEntry[]>();
  for (let i = 0; i < n; i++) {
    let list = out.get(asns[i]!);
    if (list === undefined) out.set(asns[i]!, (list = []));
    list.push({ value: values[vals[i]!] ?? null, source: sources[i]! });
  }
  return out;
}

/**
 * Decodes a sidecar: everything but the IPv6 prefix and interval sections,
 * which are stepped over and read on their first use. Throws `IpIntelError`
 * `explain_corrupt` (for an IPv6 section, on its first use).
 */
export function decodeSidecar(bytes: Uint8Array, inflate: Inflate): Sidecar {
  if (!(bytes instanceof Uint8Array)) throw new IpIntelError('invalid_input', 'an explain sidecar is a Uint8Array');
  const { header, body } = parseHead(bytes);
  let raw: Uint8Array;
  try {
    raw = inflate(body, header.body.raw);
  } catch {
    throw sidecarCorrupt('the body does not inflate');
  }
  if (raw.length !== header.body.raw) throw sidecarCorrupt('the body inflates to the wrong size');
  const r = new ByteReader(raw);
  const prefixes = new LazyTables<`${SidecarPrefixRole}${4 | 6}`, PrefixTable>();
  const intervals = new LazyTables<string, IntervalTable>();
  /** A reader at the current position, for a section read later. */
  const here = (): ByteReader => {
    const at = new ByteReader(raw);
    at.pos = r.pos;
    return at;
  };
  const asns = new Map<SidecarAsnRole, Map<number, AsnEntry[]>>();
  const tables = new Map<string, unknown[]>();
  while (r.remaining > 0) {
    const role = r.text();
    const kind = SECTION_KINDS[r.byte()];
    const version = r.byte();
    const n = r.uint();
    if (n > r.remaining) throw sidecarCorrupt(`section ${role} claims ${n} entries`);
    // A role's sections share one value table: each adds its values to the earlier sections' (encode.ts).
    let values = tables.get(role);
    if (values === undefined) tables.set(role, (values = []));
    for (const v of table(r)) values.push(v);
    const limit = values.length;
    const all = values;
    if (kind === 'prefix' && (PREFIX_ROLES as readonly string[]).includes(role) && (version === 4 || version === 6)) {
      const key = `${role as SidecarPrefixRole}${version}` as const;
      if (version === 4) prefixes.set(key, readPrefixes(r, 4, n, values, limit));
      else {
        const at = here();
        prefixes.defer(key, () => readPrefixes(at, 6, n, all, limit));
        skipSection6(r, kind, n);
      }
    } else if ((kind === 'interval' || kind === 'span') && (version === 4 || version === 6)) {
      if (version === 4) intervals.set(`${role}4`, readIntervals(r, 4, n, kind === 'interval', values, limit));
      else {
        const at = here();
        intervals.defer(`${role}6`, () => readIntervals(at, 6, n, kind === 'interval', all, limit));
        skipSection6(r, kind, n);
      }
    } else if (kind === 'asn' && (ASN_ROLES as readonly string[]).includes(role)) {
      asns.set(role as SidecarAsnRole, readAsns(r, n, values));
    } else {
      throw sidecarCorrupt(`unknown section ${JSON.stringify(role)} (kind ${String(kind)}, family ${version})`);
    }
  }
  return { header, prefixes, intervals, asns };
}

/** Index of the longest prefix of `t` holding `addr`, or -1. */
export function longestMatch(t: PrefixTable, version: 4 | 6, addr: bigint): number {
  const bits = version === 4 ? 32 : 128;
  for (const len of t.lengths) {
    const shift = BigInt(bits - len);
    const key = ((addr >> shift) << shift) * 256n + BigInt(len);
    const i = t.keys instanceof Float64Array ? search(t.keys, Number(key)) : search(t.keys, key);
    if (i >= 0) return i;
  }
  return -1;
}

function search<K extends number | bigint>(keys: ArrayLike<K>, key: K): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const k = keys[mid]!;
    if (k === key) return mid;
    if (k < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Index of the interval holding `addr`, or -1. */
export function intervalAt(t: IntervalTable, addr: bigint): number {
  const x = t.firsts instanceof Float64Array ? Number(addr) : addr;
  let lo = 0;
  let hi = t.firsts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (t.firsts[mid]! > x) hi = mid - 1;
    else if (t.lasts[mid]! < x) lo = mid + 1;
    else return mid;
  }
  return -1;
}
