/**
 * A snapshot shared between threads: what `IpIntel#share()` hands a worker
 * (the columns copied once into SharedArrayBuffers) and `fromShared` opens.
 * Apart from intel.ts because it is the form of the hand-over, with its own
 * rule for the IPv6 index (shared as decoded, or as stored while it waits
 * for its first use).
 *
 * @module
 */
import { ARRAY_OF, type Columns, type DecodedSnapshot, type V6Columns } from './snapshot/decode.js';
import { COLUMNS, type ColumnName, type SnapshotMeta } from './snapshot/format.js';

/**
 * A loaded snapshot whose columns live in SharedArrayBuffers: post it to
 * worker threads (`postMessage`, `workerData`) and open it there with
 * {@link fromShared}; the memory is shared, not copied.
 */
export interface SharedSnapshot {
  readonly meta: SnapshotMeta;
  /** Every column, decoded; but the IPv6 index's when `v6Stored` holds them. */
  readonly columns: Readonly<Record<string, ArrayBufferView>>;
  /**
   * IPv4 ranges, when the sharing side had counted them already (share()
   * sets it then; the count is made on first read of
   * `info.counts.ipv4_ranges`). fromShared counts again; fromSharedTrusted
   * takes it, or counts on first read when it is absent.
   */
  readonly ranges4?: number;
  /**
   * The IPv6 index's columns as stored in the file (deflated: ~5 MB of the
   * world snapshot's 31), when the sharing side had not decoded them yet:
   * each thread that opens the shared snapshot decodes them on its first
   * IPv6 lookup, as a snapshot opened from a file does.
   */
  readonly v6Stored?: Readonly<Record<string, Uint8Array>>;
}

/**
 * Where a shared copy of a column goes: `byteLength` bytes of shared memory,
 * as a Uint8Array whose byteOffset is a multiple of 8 (a view of a
 * SharedArrayBuffer of its own by default; the CLI's batch places them in
 * the WebAssembly memory its threads share).
 */
export type SharedAlloc = (byteLength: number) => Uint8Array;

/** A SharedArrayBuffer of its own for each column. */
const ownBuffer: SharedAlloc = (n) => new Uint8Array(new SharedArrayBuffer(n));

type Typed = new (b: ArrayBufferLike, byteOffset: number, length: number) => ArrayBufferView;

/** A view of the same type over a copy of `col`'s bytes in memory from `alloc`. */
function sharedCopy(col: ArrayBufferView, T: Typed, alloc: SharedAlloc): ArrayBufferView {
  const to = alloc(col.byteLength);
  if (!(to.buffer instanceof SharedArrayBuffer) || to.byteLength !== col.byteLength || to.byteOffset % 8 !== 0) {
    throw new RangeError('a shared column must be given shared memory of its size, at a multiple of 8 bytes');
  }
  to.set(new Uint8Array(col.buffer, col.byteOffset, col.byteLength));
  const size = (T as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
  return new T(to.buffer, to.byteOffset, col.byteLength / size);
}

/**
 * `meta` frozen all the way down (JSON-like: no cycles): an `IpIntel` freezes
 * the meta it holds, which share() hands out, so that a caller who changes
 * what it was given cannot change that object's answers.
 */
export function frozenMeta<T>(meta: T): T {
  if (typeof meta === 'object' && meta !== null && !Object.isFrozen(meta)) {
    for (const x of Object.values(meta)) frozenMeta(x);
    Object.freeze(meta);
  }
  return meta;
}

/**
 * `decoded`'s columns copied into SharedArrayBuffers. IPv6 columns waiting
 * for their first use go as stored (`v6Stored`); decoded ones come from
 * `v6()` (which throws the snapshot's `snapshot_corrupt` when they were
 * refused).
 */
export function shareDecoded(decoded: DecodedSnapshot, v6: () => V6Columns, alloc: SharedAlloc = ownBuffer): SharedSnapshot {
  const stored = decoded.v6Stored();
  const all = (stored === null ? { ...decoded.columns, ...v6() } : decoded.columns) as Partial<Columns>;
  const columns: Record<string, ArrayBufferView> = {};
  for (const name of Object.keys(COLUMNS) as ColumnName[]) {
    const col = all[name];
    // The declared element type, not col.constructor: a column inflated by Node's zlib is a Buffer.
    if (col !== undefined) columns[name] = sharedCopy(col, ARRAY_OF[COLUMNS[name]], alloc);
  }
  const counted = decoded.ranges4Known();
  const base = { meta: decoded.meta, columns: Object.freeze(columns), ...(counted === undefined ? {} : { ranges4: counted }) };
  if (stored === null) return Object.freeze(base);
  const v6Stored: Record<string, Uint8Array> = {};
  for (const [name, blob] of stored) v6Stored[name] = sharedCopy(blob, Uint8Array, alloc) as Uint8Array;
  return Object.freeze({ ...base, v6Stored: Object.freeze(v6Stored) });
}
