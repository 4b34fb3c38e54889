/**
 * Assembles an MMDB file (MaxMind DB format 2.0): the search tree with the
 * smallest record size that holds every record value (24, 28 or 32 bits),
 * the 16-byte separator, the data section, the metadata marker and the
 * metadata map.
 *
 * @module
 */
import { ExportError } from '../errors.js';
import { DataWriter, MmdbNumber, type MmdbMap } from './data.js';
import { buildTree, NO_DATA, type TreeRanges } from './tree.js';

export interface MmdbMetadata {
  /** What the records hold (names starting with "GeoIP" are MaxMind's). */
  readonly databaseType: string;
  readonly languages: readonly string[];
  /** Description per language code. */
  readonly description: Readonly<Record<string, string>>;
  /** Build time, seconds since the epoch. */
  readonly buildEpoch: number;
}

export interface MmdbFile {
  readonly bytes: Uint8Array;
  readonly nodeCount: number;
  readonly recordSize: 24 | 28 | 32;
  readonly dataBytes: number;
}

const SEPARATOR = 16;
const MARKER = new Uint8Array([0xab, 0xcd, 0xef, ...new TextEncoder().encode('MaxMind.com')]);

/** The smallest record size (from `min` up) whose values hold `max`. */
function recordSizeFor(max: number, min: number): 24 | 28 | 32 {
  for (const size of [24, 28, 32] as const) if (size >= min && max < 2 ** size) return size;
  throw new ExportError('too_large', `the tree and data need record values up to ${max}: more than an MMDB file can address (4 GiB)`);
}

function metadataBytes(m: MmdbMetadata, nodeCount: number, recordSize: number): Uint8Array {
  const map: MmdbMap = {
    binary_format_major_version: new MmdbNumber('uint16', 2),
    binary_format_minor_version: new MmdbNumber('uint16', 0),
    build_epoch: new MmdbNumber('uint64', m.buildEpoch),
    database_type: m.databaseType,
    description: { ...m.description },
    ip_version: new MmdbNumber('uint16', 6),
    languages: [...m.languages],
    node_count: new MmdbNumber('uint32', nodeCount),
    record_size: new MmdbNumber('uint16', recordSize),
  };
  const w = new DataWriter({ pointers: false });
  w.put(map);
  return w.bytes();
}

/**
 * Encodes the file. `v4` and `v6` are ranges over the whole space of each
 * family whose values are offsets into `data` (or NO_DATA); see tree.ts for
 * how they share the tree. The record size is the smallest that fits;
 * `minRecordSize` forces a larger one (tests cover all three layouts).
 */
export function encodeMmdb(v4: TreeRanges, v6: TreeRanges, data: DataWriter, meta: MmdbMetadata, options: { readonly minRecordSize?: 24 | 28 | 32 } = {}): MmdbFile {
  const tree = buildTree(v4, v6);
  const nodeCount = tree.count;
  const dataBytes = data.bytes();
  const recordSize = recordSizeFor(nodeCount + SEPARATOR + dataBytes.length, options.minRecordSize ?? 24);
  const nodeBytes = recordSize / 4;
  const treeBytes = nodeCount * nodeBytes;
  const metadata = metadataBytes(meta, nodeCount, recordSize);
  const out = new Uint8Array(treeBytes + SEPARATOR + dataBytes.length + MARKER.length + metadata.length);
  const value = (r: number): number => (r >= 0 ? r : r === NO_DATA ? nodeCount : nodeCount + SEPARATOR + (-r - 2));
  const left = tree.left;
  const right = tree.right;
  for (let i = 0; i < nodeCount; i++) {
    const l = value(left[i]!);
    const r = value(right[i]!);
    const at = i * nodeBytes;
    if (recordSize === 24) {
      put24(out, at, l);
      put24(out, at + 3, r);
    } else if (recordSize === 28) {
      // The top 4 bits of each record share the middle byte: left's high nibble, then right's.
      put24(out, at, l);
      out[at + 3] = ((l >>> 24) << 4) | (r >>> 24);
      put24(out, at + 4, r);
    } else {
      out[at] = l >>> 24;
      put24(out, at + 1, l);
      out[at + 4] = r >>> 24;
      put24(out, at + 5, r);
    }
  }
  let at = treeBytes + SEPARATOR;
  out.set(dataBytes, at);
  at += dataBytes.length;
  out.set(MARKER, at);
  out.set(metadata, at + MARKER.length);
  return { bytes: out, nodeCount, recordSize, dataBytes: dataBytes.length };
}

/** The low 24 bits of v, big-endian. */
function put24(out: Uint8Array, at: number, v: number): void {
  out[at] = (v >>> 16) & 0xff;
  out[at + 1] = (v >>> 8) & 0xff;
  out[at + 2] = v & 0xff;
}
