/**
 * Snapshots damaged on purpose, with every checksum re-sealed as a writer
 * would have: what is left for the reader to refuse is the content itself
 * (a broken invariant, a meta that lies), not a checksum mismatch; and the
 * typed error a call throws.
 *
 * @module
 */
import { IpIntelError } from '@ipintel/core';
import { crc32 } from '@ipintel/core/writer';

/** Meta as JSON (columns by name), editable by a test. */
export type EditableMeta = {
  columns: Record<string, { offset: number; stored: number; checksum: number; deflate: boolean; filter?: string; type: string; count: number }>;
};

/**
 * Lets `edit` change the meta (and the blobs in place, and the header), then
 * re-seals the meta, its checksum and the header.
 */
export function resealSnapshot(file: Uint8Array, edit: (meta: EditableMeta, blobs: Uint8Array, header: DataView) => void): Uint8Array {
  const dv = new DataView(file.buffer, file.byteOffset);
  const metaLen = dv.getUint32(32, true);
  const meta = JSON.parse(new TextDecoder().decode(file.subarray(36, 36 + metaLen))) as EditableMeta;
  const blobs = file.slice(36 + metaLen);
  const head = file.slice(0, 32);
  edit(meta, blobs, new DataView(head.buffer));
  const metaBytes = new TextEncoder().encode(JSON.stringify(meta));
  const out = new Uint8Array(36 + metaBytes.length + blobs.length);
  out.set(head);
  const odv = new DataView(out.buffer);
  odv.setUint32(32, metaBytes.length, true);
  out.set(metaBytes, 36);
  out.set(blobs, 36 + metaBytes.length);
  odv.setUint32(16, out.length - 32, true);
  odv.setUint32(20, metaBytes.length, true);
  odv.setUint32(24, crc32(out.subarray(32, 36 + metaBytes.length)), true);
  odv.setUint32(28, crc32(out.subarray(0, 28)), true);
  return out;
}

/**
 * Edits the stored bytes of column `name` of an uncompressed snapshot
 * (`encodeSnapshot(model, { compress: false })`) through a DataView of just
 * that column, then re-seals its checksum, the meta and the header.
 */
export function damageColumn(file: Uint8Array, name: string, edit: (column: DataView) => void): Uint8Array {
  return resealSnapshot(file, (meta, blobs) => {
    const col = meta.columns[name];
    if (col === undefined || col.deflate) throw new Error(`damageColumn: column ${name} is missing or deflated (encode with compress: false)`);
    edit(new DataView(blobs.buffer, blobs.byteOffset + col.offset, col.stored));
    col.checksum = crc32(blobs.subarray(col.offset, col.offset + col.stored));
  });
}

/**
 * The `IpIntelError` that `f` throws; anything else thrown (or nothing) fails
 * with an error saying what came instead.
 */
export function ipIntelErrorOf(f: () => unknown): IpIntelError {
  try {
    f();
  } catch (e) {
    if (e instanceof IpIntelError) return e;
    throw new Error(`expected an IpIntelError, got ${String(e)}`);
  }
  throw new Error('expected an IpIntelError, nothing was thrown');
}
