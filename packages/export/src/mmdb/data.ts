/**
 * The MMDB data section: values encoded as the MaxMind DB format 2.0 says
 * (control byte with type and size, big-endian payloads), deduplicated.
 *
 * Deduplication: every value gets an id by its content (strings by text,
 * numbers by type and value, maps and arrays by the ids of their parts,
 * memoised per object, so a sub-map shared by many records is keyed once).
 * `put(value)` returns the offset of an existing equal value when there is
 * one, else writes it. Inside a map or an array, a part already written is
 * replaced by a pointer to it when the pointer is shorter, so a country
 * name, a map key or a whole geo map is stored once and pointed at. A
 * pointer always targets a value written inline, never another pointer (the
 * spec forbids pointer chains).
 *
 * The metadata section is encoded with `pointers: false` (its own, plain
 * encoding).
 *
 * @module
 */
import { withRoom } from '@ipintel/core/internal';
import { ExportError } from '../errors.js';

/** A number with its MMDB type (JavaScript numbers alone do not say which). */
export class MmdbNumber {
  constructor(
    readonly type: 'uint16' | 'uint32' | 'uint64' | 'int32' | 'double',
    readonly value: number,
  ) {}
}

export type MmdbValue = string | boolean | MmdbNumber | readonly MmdbValue[] | MmdbMap;
export interface MmdbMap {
  readonly [key: string]: MmdbValue;
}

const T_POINTER = 1;
const T_STRING = 2;
const T_DOUBLE = 3;
const T_UINT16 = 5;
const T_UINT32 = 6;
const T_MAP = 7;
const T_INT32 = 8;
const T_UINT64 = 9;
const T_ARRAY = 11;
const T_BOOLEAN = 14;
const NUMBER_TYPE = { uint16: T_UINT16, uint32: T_UINT32, uint64: T_UINT64, int32: T_INT32, double: T_DOUBLE } as const;
const NUMBER_MAX = { uint16: 0xffff, uint32: 0xffffffff, uint64: Number.MAX_SAFE_INTEGER, int32: 0x7fffffff } as const;
/** Largest payload size (or entry count) a control byte can state. */
const MAX_SIZE = 65_821 + 0xffffff;

const utf8 = new TextEncoder();

/** Bytes a pointer to `offset` takes. */
function pointerSize(offset: number): number {
  return offset < 2048 ? 2 : offset < 526_336 ? 3 : offset < 134_744_064 ? 4 : 5;
}

/** Bytes of a control byte (+ extended type + size bytes) for a payload of `size`. */
function controlSize(type: number, size: number): number {
  return (type > 7 ? 2 : 1) + (size < 29 ? 0 : size < 285 ? 1 : size < 65_821 ? 2 : 3);
}

/**
 * The largest data section this exporter writes: the tree holds a data
 * offset d as -(d + 2) in an Int32Array (tree.ts), and records in
 * Int32Arrays (export.ts), so a larger offset would wrap into a node id
 * and answer wrongly. MMDB itself addresses up to 4 GiB with 32-bit records.
 */
export const MAX_DATA_BYTES = 2 ** 31 - 3;

export class DataWriter {
  private buf = new Uint8Array(1 << 16);
  private len = 0;
  /** Content ids: strings by text, numbers by `type:value`, composites by their parts' ids. */
  private readonly stringIds = new Map<string, number>();
  private readonly otherIds = new Map<string, number>();
  private readonly objectIds = new WeakMap<object, number>();
  /** Offset of the inline copy of each id (-1: none yet). */
  private offsets: number[] = [];
  private readonly bytesOf = new Map<string, Uint8Array>();

  constructor(private readonly options: { readonly pointers: boolean; readonly maxBytes?: number } = { pointers: true }) {}

  /** Bytes written so far. */
  get size(): number {
    return this.len;
  }

  /** The section's bytes (a view). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }

  /** Writes `value` unless an equal value is already there; returns its offset. */
  put(value: MmdbValue): number {
    const id = this.idOf(value);
    const at = this.offsets[id]!;
    if (at >= 0) return at;
    const here = this.len;
    this.write(value);
    this.offsets[id] = here;
    return here;
  }

  /**
   * Writes `value` without looking for an equal one first, for values known
   * to be distinct (the export's records); its parts are still shared.
   * Returns its offset.
   */
  append(value: MmdbValue): number {
    const here = this.len;
    this.write(value);
    return here;
  }

  /**
   * Starts a map of `entries` pairs, written next by the caller with
   * {@link pointerTo} and {@link append}: the cheapest way to write millions
   * of records made of shared parts. Returns its offset.
   */
  mapHeader(entries: number): number {
    const here = this.len;
    this.control(T_MAP, entries);
    return here;
  }

  /** Writes a pointer to the value at `offset` (which must not be a pointer itself). */
  pointerTo(offset: number): void {
    this.pointer(offset);
  }

  /** A value inside a map or array: a pointer to an earlier copy when that is shorter. */
  private part(value: MmdbValue): void {
    if (!this.options.pointers || typeof value === 'boolean') {
      this.write(value);
      return;
    }
    const id = this.idOf(value);
    const at = this.offsets[id]!;
    if (at >= 0 && pointerSize(at) < this.inlineSize(value)) {
      this.pointer(at);
      return;
    }
    const here = this.len;
    this.write(value);
    if (at < 0) this.offsets[id] = here;
  }

  /**
   * A value's inline size: exact for scalars (a pointer replaces one only when
   * shorter; a flat 6 for integers made a 2- to 5-byte pointer replace a
   * 1-byte 0 or a 2-byte risk score), infinite for composites (never worth
   * inlining twice).
   */
  private inlineSize(value: MmdbValue): number {
    if (typeof value === 'string') {
      const n = this.utf8(value).length;
      return controlSize(T_STRING, n) + n;
    }
    if (value instanceof MmdbNumber) return numberSize(value);
    return Number.MAX_SAFE_INTEGER;
  }

  private idOf(value: MmdbValue): number {
    if (typeof value === 'string') return this.intern(this.stringIds, value);
    if (typeof value === 'boolean') return this.intern(this.otherIds, value ? 'b1' : 'b0');
    const known = this.objectIds.get(value);
    if (known !== undefined) return known;
    let key: string;
    if (value instanceof MmdbNumber) key = `n${value.type}:${value.value}`;
    else if (Array.isArray(value)) key = `a${(value as readonly MmdbValue[]).map((v) => this.idOf(v)).join(',')}`;
    else key = `m${Object.entries(value as MmdbMap).map(([k, v]) => `${this.idOf(k)}:${this.idOf(v)}`).join(',')}`;
    const id = this.intern(this.otherIds, key);
    this.objectIds.set(value, id);
    return id;
  }

  private intern(table: Map<string, number>, key: string): number {
    let id = table.get(key);
    if (id === undefined) {
      id = this.offsets.length;
      this.offsets.push(-1);
      table.set(key, id);
    }
    return id;
  }

  private utf8(s: string): Uint8Array {
    let b = this.bytesOf.get(s);
    if (b === undefined) {
      b = utf8.encode(s);
      if (this.bytesOf.size < 100_000) this.bytesOf.set(s, b);
    }
    return b;
  }

  private write(value: MmdbValue): void {
    if (typeof value === 'string') {
      const b = this.utf8(value);
      this.control(T_STRING, b.length);
      this.raw(b);
    } else if (typeof value === 'boolean') {
      this.control(T_BOOLEAN, value ? 1 : 0);
    } else if (value instanceof MmdbNumber) {
      this.number(value);
    } else if (Array.isArray(value)) {
      const items = value as readonly MmdbValue[];
      this.control(T_ARRAY, items.length);
      for (const v of items) this.part(v);
    } else {
      const entries = Object.entries(value as MmdbMap);
      this.control(T_MAP, entries.length);
      for (const [k, v] of entries) {
        this.part(k);
        this.part(v);
      }
    }
  }

  private number(n: MmdbNumber): void {
    const type = NUMBER_TYPE[n.type];
    if (n.type === 'double') {
      this.control(type, 8);
      this.ensure(8);
      new DataView(this.buf.buffer, this.buf.byteOffset + this.len, 8).setFloat64(0, n.value);
      this.len += 8;
      return;
    }
    const v = n.value;
    const min = n.type === 'int32' ? -0x80000000 : 0;
    if (!Number.isInteger(v) || v < min || v > NUMBER_MAX[n.type]) throw new ExportError('invalid_option', `${v} is not a valid ${n.type}`);
    const bytes = payloadSize(n);
    this.control(type, bytes);
    // A negative int32 in two's complement (payloadSize: always 4 bytes).
    this.bigEndian(v < 0 ? v >>> 0 : v, bytes);
  }

  private bigEndian(v: number, bytes: number): void {
    this.ensure(bytes);
    for (let i = bytes - 1; i >= 0; i--) {
      this.buf[this.len + i] = v % 256;
      v = Math.floor(v / 256);
    }
    this.len += bytes;
  }

  private control(type: number, size: number): void {
    if (size > MAX_SIZE) throw new ExportError('too_large', `a value of ${size} bytes or entries does not fit an MMDB field`);
    this.ensure(6);
    const b = this.buf;
    const sizeBits = size < 29 ? size : size < 285 ? 29 : size < 65_821 ? 30 : 31;
    if (type <= 7) b[this.len++] = (type << 5) | sizeBits;
    else {
      b[this.len++] = sizeBits;
      b[this.len++] = type - 7;
    }
    if (size >= 65_821) this.bigEndian(size - 65_821, 3);
    else if (size >= 285) this.bigEndian(size - 285, 2);
    else if (size >= 29) this.bigEndian(size - 29, 1);
  }

  private pointer(offset: number): void {
    this.ensure(5);
    const b = this.buf;
    const head = T_POINTER << 5;
    if (offset < 2048) {
      b[this.len++] = head | (offset >>> 8);
      b[this.len++] = offset & 0xff;
    } else if (offset < 526_336) {
      const q = offset - 2048;
      b[this.len++] = head | (1 << 3) | (q >>> 16);
      this.bigEndian(q & 0xffff, 2);
    } else if (offset < 134_744_064) {
      const q = offset - 526_336;
      b[this.len++] = head | (2 << 3) | (q >>> 24);
      this.bigEndian(q & 0xffffff, 3);
    } else {
      b[this.len++] = head | (3 << 3);
      this.bigEndian(offset, 4);
    }
  }

  private raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }

  private ensure(n: number): void {
    const max = this.options.maxBytes ?? MAX_DATA_BYTES;
    if (this.len + n > max) throw new ExportError('too_large', `the data section would pass ${max} bytes, more than this exporter can address (2 GiB)`);
    this.buf = withRoom(this.buf, this.len, n);
  }
}

/**
 * Payload bytes of a number as {@link DataWriter} writes it: 8 for a double, 4 for a negative
 * int32 (two's complement), else the fewest bytes that hold the value.
 */
function payloadSize(n: MmdbNumber): number {
  return n.type === 'double' ? 8 : n.type === 'int32' && n.value < 0 ? 4 : byteLength(n.value);
}

/** Bytes of a number written inline: control byte(s) and payload. */
function numberSize(n: MmdbNumber): number {
  const payload = payloadSize(n);
  return controlSize(NUMBER_TYPE[n.type], payload) + payload;
}

/** Bytes needed for a non-negative integer (0 for 0). */
function byteLength(v: number): number {
  let n = 0;
  while (v > 0) {
    n++;
    v = Math.floor(v / 256);
  }
  return n;
}
