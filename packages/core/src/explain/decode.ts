/**
 * Reads the explain sidecar (format.ts) into lookup tables: per role and
 * family the prefixes as sorted keys (start * 256 + length) for a
 * longest-match lookup, the intervals of the ASN table and the geo sources'
 * spans, and the ASN-keyed sets. Every count, id and order is checked: a
 * bad sidecar is `explain_corrupt`, never a crash or a wrong answer. The
 * IPv6 prefix and interval sections are stepped over and read on their
 * first use (LazyTables), so an IPv4 explanation never pays for them; a
 * corrupt one is refused there. Their addresses are held as 32-bit words
 * (words6.ts), not bigints. Finding an address in the tables is
 * table-lookup.ts.
 *
 * @module
 */
import { isIsoUtcTime } from '../clock.js';
import { IpIntelError } from '../errors.js';
import { crc32 } from '../snapshot/checksum.js';
import type { Inflate } from '../snapshot/decode.js';
import { MAX_DEFLATE_RATIO, stoppedAtSize } from '../snapshot/layout.js';
import { ASN_ROLES, PREFIX_ROLES, SECTION_KINDS, SIDECAR_MAGIC, SIDECAR_PRELUDE, SIDECAR_VERSION, type SidecarAsnRole, type SidecarHeader, type SidecarPrefixRole } from './format.js';
import { ByteReader } from './varint.js';
import { addWords, compareWords, hostBitsClear, type Words6 } from './words6.js';

/** One role's prefixes of one family. */
export interface PrefixTable {
  /**
   * IPv4: start * 256 + length, ascending. IPv6: the starts (Words6), with
   * `lengths6`; ascending by start, then length.
   */
  readonly keys: Float64Array | Words6;
  /** IPv6: each prefix's length (null for IPv4, whose keys hold it). */
  readonly lengths6: Uint8Array | null;
  readonly sources: Uint32Array;
  readonly values: Uint32Array;
  readonly table: readonly unknown[];
  /** Prefix lengths present, longest first. */
  readonly lengths: readonly number[];
}

/** Sorted, disjoint intervals (the ASN table; geo spans have no values). */
export interface IntervalTable {
  /** IPv4: numbers; IPv6: Words6. */
  readonly firsts: Float64Array | Words6;
  readonly lasts: Float64Array | Words6;
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
  // As a snapshot column's (layout.ts): no body of its size inflates to more, and the inflater is given a buffer of the size claimed.
  if (!Number.isSafeInteger(b.raw) || b.raw < 0 || b.raw > body.length * MAX_DEFLATE_RATIO + MAX_DEFLATE_RATIO) {
    throw sidecarCorrupt(`the header claims a body of ${b.raw} bytes, more than its ${body.length} stored bytes can inflate to`);
  }
  if (header.roas_source !== null && !Number.isInteger(header.roas_source)) throw sidecarCorrupt('roas_source is not a source row');
  // An explanation shows this date: it must be the one the identity (compared with the snapshot's) starts with.
  const date: unknown = header.snapshot.build_date;
  if (!isIsoUtcTime(date) || !header.snapshot.identity.startsWith(`${date}#`)) throw sidecarCorrupt("the header's build date is not its identity's");
  if (crc32(body) !== b.checksum) throw sidecarCorrupt('body checksum mismatch');
  return { header, body };
}

/** Only the header: which snapshot the sidecar explains (no body is inflated). */
export function readSidecarHeader(bytes: Uint8Array): SidecarHeader {
  return parseHead(bytes).header;
}

/** JSON.parse's reviver that freezes every object and array (it runs innermost first, so the freeze is deep). */
const freezing = (_key: string, v: unknown): unknown => (typeof v === 'object' && v !== null ? Object.freeze(v) : v);

/**
 * A value table. Its values are frozen: every explanation that names a value
 * hands out the same object, so a caller that changed one would change every
 * later explanation of it (or make it fail its check against the result).
 */
function table(r: ByteReader): unknown[] {
  try {
    const t = JSON.parse(r.text(), freezing) as unknown;
    if (!Array.isArray(t)) throw new Error('not an array');
    return t;
  } catch (e) {
    if (e instanceof IpIntelError) throw e;
    throw sidecarCorrupt('a value table is not a JSON array');
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): boolean => typeof v === 'string';
const isTextOrNull = (v: unknown): boolean => v === null || typeof v === 'string';
const isAsn = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 0xffffffff;
const RPKI_STATUSES: readonly unknown[] = ['valid', 'invalid', 'not-found', 'unknown'];
const isPlain = (v: unknown): boolean => v === null;

/**
 * The shape of each role's values, as the builder writes them (build/sidecar.ts) and the
 * explainer reads them: a sidecar holding another is corrupt, not a TypeError in an explanation.
 */
const VALUE_SHAPES: Readonly<Record<SidecarPrefixRole | SidecarAsnRole | 'asn', (v: unknown) => boolean>> = {
  routes: (v) => isObject(v) && Array.isArray(v['origins']) && v['origins'].every(isAsn) && Array.isArray(v['rpki']) && v['rpki'].length === v['origins'].length && v['rpki'].every((s) => RPKI_STATUSES.includes(s)),
  routesMapped: (v) => Array.isArray(v) && v.every(isAsn),
  rir: (v) => isObject(v) && isTextOrNull(v['date']) && isTextOrNull(v['country']),
  bogons: isPlain,
  unallocated: isPlain,
  datacenterPublished: (v) => isObject(v) && isText(v['provider']) && typeof v['cdn'] === 'boolean' && typeof v['anycast'] === 'boolean',
  datacenterInferred: isText,
  tor: isPlain,
  vpn: isText,
  vpnBroad: isText,
  proxy: isPlain,
  relay: isText,
  crawlers: isText,
  resolvers: isPlain,
  drop: isPlain,
  abuse: isPlain,
  asn: isAsn,
  hostingAsns: isText,
  asnTags: isText,
  asnClass: isText,
  operators: (v) => isObject(v) && (v['kind'] === 'mobile' || v['kind'] === 'cdn') && isText(v['name']) && typeof v['anycast'] === 'boolean',
  dropAsns: isPlain,
  vpnAsnWide: isPlain,
};

function ids(r: ByteReader, n: number, below: number, what: string): Uint32Array {
  const out = new Uint32Array(n);
  // `below` is at most 2^32 here, so nothing stored wraps.
  const bad = r.uints(out, n, false, Math.min(below, 2 ** 32));
  if (bad >= 0) throw sidecarCorrupt(`${what} ${bad} out of range`);
  return out;
}

const MAX_SOURCES = 1 << 16;

/** `limit`: how many values the role's table had when the section was written (its ids refer to those). */
function readPrefixes(r: ByteReader, version: 4 | 6, n: number, values: unknown[], limit: number): PrefixTable {
  // Which prefix lengths occur (at most 129), longest first.
  const seen = new Uint8Array(256);
  let keys: Float64Array | Words6;
  let lengths6: Uint8Array | null = null;
  if (version === 4) {
    keys = readPrefixes4(r, n);
    for (let i = 0; i < n; i++) seen[keys[i]! % 256] = 1;
  } else {
    const read = readPrefixes6(r, n);
    keys = read.starts;
    lengths6 = read.lengths;
    for (let i = 0; i < n; i++) seen[lengths6[i]!] = 1;
  }
  const lengths: number[] = [];
  for (let len = 255; len >= 0; len--) if (seen[len] === 1) lengths.push(len);
  return { keys, lengths6, sources: ids(r, n, MAX_SOURCES, 'source row'), values: ids(r, n, Math.max(limit, 1), 'value id'), table: values, lengths };
}

const notPrefix = (i: number, version: 4 | 6): IpIntelError => sidecarCorrupt(`prefix ${i} of a role is not a valid IPv${version} prefix`);

/** IPv4 prefixes in plain numbers (exact below 2^53): keys start * 256 + length, ascending. */
function readPrefixes4(r: ByteReader, n: number): Float64Array {
  const starts = new Float64Array(n);
  r.uints(starts, n, true);
  const lengths = r.bytes(n);
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const len = lengths[i]!;
    const s = starts[i]!;
    // Host bits set: a mask instead of s % 2 ** (32 - len), which cost most of this loop (1.2M routes).
    // (JS shifts count mod 32: a /32 has no host bits, a /0 all 32.)
    if (len > 32 || s > 0xffffffff || (len < 32 && (s & (0xffffffff >>> len)) !== 0)) throw notPrefix(i, 4);
    keys[i] = s * 256 + len;
    if (i > 0 && keys[i]! <= keys[i - 1]!) throw sidecarCorrupt('prefixes out of order');
  }
  return keys;
}

/** IPv6 prefixes as words: starts delta-coded, then lengths; ascending by start, then length. */
function readPrefixes6(r: ByteReader, n: number): { starts: Words6; lengths: Uint8Array } {
  const starts = new Uint32Array(4 * n);
  const delta = new Uint32Array(4);
  for (let i = 0; i < n; i++) {
    // A start at or past 2^128 is no prefix (nor is any after it: starts only rise).
    const wide = r.words128(delta);
    if (wide || addWords(starts, 4 * i, i === 0 ? null : starts, 4 * (i - 1), delta)) throw notPrefix(i, 6);
  }
  const lengths = new Uint8Array(r.bytes(n));
  for (let i = 0; i < n; i++) {
    const len = lengths[i]!;
    if (len > 128 || !hostBitsClear(starts, 4 * i, len)) throw notPrefix(i, 6);
    if (i > 0) {
      const c = compareWords(starts, 4 * i, starts, 4 * (i - 1));
      if (c < 0 || (c === 0 && len <= lengths[i - 1]!)) throw sidecarCorrupt('prefixes out of order');
    }
  }
  return { starts, lengths };
}

function readIntervals(r: ByteReader, version: 4 | 6, n: number, withValues: boolean, values: unknown[], limit: number): IntervalTable {
  let firsts: Float64Array | Words6;
  let lasts: Float64Array | Words6;
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
    const f = (firsts = new Uint32Array(4 * n));
    const l = (lasts = new Uint32Array(4 * n));
    const delta = new Uint32Array(4);
    const one = Uint32Array.of(0, 0, 0, 1);
    // `next`: the address after the last interval; once that is past 2^128 (`ended`), nothing may follow.
    const next = new Uint32Array(4);
    let ended = false;
    for (let i = 0; i < n; i++) {
      let past = r.words128(delta) || ended || addWords(f, 4 * i, next, 0, delta);
      past = r.words128(delta) || past || addWords(l, 4 * i, f, 4 * i, delta);
      if (past) throw sidecarCorrupt('an IPv6 interval ends past the family');
      ended = addWords(next, 0, l, 4 * i, one);
    }
  }
  return { firsts, lasts, sources: ids(r, n, MAX_SOURCES, 'source row'), values: withValues ? ids(r, n, Math.max(limit, 1), 'value id') : null, table: values };
}

/**
 * Tables of which some are read on their first `get`: the IPv6 sections,
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
  const asns = new Float64Array(n);
  r.uints(asns, n, true);
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
 * `explain_corrupt` (for an IPv6 section, on its first use), and
 * `explain_mismatch` when given the snapshot's `identity` and the sidecar
 * is of another build: found from its header, before the body is inflated
 * (a sidecar left beside a newer snapshot is refused at every explanation
 * asked for; decoding it each time cost about half a second).
 */
export function decodeSidecar(bytes: Uint8Array, inflate: Inflate, identity?: string): Sidecar {
  if (!(bytes instanceof Uint8Array)) throw new IpIntelError('invalid_input', 'an explain sidecar is a Uint8Array');
  const { header, body } = parseHead(bytes);
  if (identity !== undefined && header.snapshot.identity !== identity) {
    throw new IpIntelError('explain_mismatch', `the explain sidecar belongs to another build (snapshot ${header.snapshot.identity}, this one is ${identity})`);
  }
  let raw: Uint8Array;
  try {
    raw = inflate(body, header.body.raw);
  } catch (e) {
    // Node's inflate stops a stream at the body's size: too long, as the check below says of one that ends.
    if (stoppedAtSize(e)) throw sidecarCorrupt('the body inflates to the wrong size');
    throw sidecarCorrupt('the body does not inflate');
  }
  if (raw.length !== header.body.raw) throw sidecarCorrupt('the body inflates to the wrong size');
  const r = new ByteReader(raw);
  const prefixes = new LazyTables<`${SidecarPrefixRole}${4 | 6}`, PrefixTable>();
  const intervals = new LazyTables<string, IntervalTable>();
  const asns = new Map<SidecarAsnRole, Map<number, AsnEntry[]>>();
  const tables = new Map<string, unknown[]>();
  while (r.remaining > 0) {
    const role = r.text();
    const kind = SECTION_KINDS[r.byte()];
    const version = r.byte();
    const n = r.uint();
    if (n > r.remaining) throw sidecarCorrupt(`section ${role} claims ${n} entries`);
    // A role's sections share one value table: each adds its values to the earlier sections' (encode.ts).
    const values = tables.get(role) ?? [];
    tables.set(role, values);
    const shape = Object.hasOwn(VALUE_SHAPES, role) ? VALUE_SHAPES[role as keyof typeof VALUE_SHAPES] : undefined;
    for (const v of table(r)) {
      if (shape !== undefined && !shape(v)) throw sidecarCorrupt(`a value of ${role} is not of its role's shape`);
      values.push(v);
    }
    const limit = values.length;
    /** An IPv4 section is read now; an IPv6 one is stepped over, and read from here on its first use. */
    const place = <K, T>(into: LazyTables<K, T>, key: K, read: (at: ByteReader) => T, kind6: 'prefix' | 'interval' | 'span'): void => {
      if (version === 4) into.set(key, read(r));
      else {
        const at = new ByteReader(raw);
        at.pos = r.pos;
        into.defer(key, () => read(at));
        skipSection6(r, kind6, n);
      }
    };
    if (kind === 'prefix' && (PREFIX_ROLES as readonly string[]).includes(role) && (version === 4 || version === 6)) {
      place(prefixes, `${role as SidecarPrefixRole}${version}`, (at) => readPrefixes(at, version, n, values, limit), kind);
    } else if (((kind === 'interval' && role === 'asn') || (kind === 'span' && role === 'geo')) && (version === 4 || version === 6)) {
      place(intervals, `${role}${version}`, (at) => readIntervals(at, version, n, kind === 'interval', values, limit), kind);
    } else if (kind === 'asn' && (ASN_ROLES as readonly string[]).includes(role)) {
      asns.set(role as SidecarAsnRole, readAsns(r, n, values));
    } else {
      throw sidecarCorrupt(`unknown section ${JSON.stringify(role)} (kind ${String(kind)}, family ${version})`);
    }
  }
  return { header, prefixes, intervals, asns };
}
