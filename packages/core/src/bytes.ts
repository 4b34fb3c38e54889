/**
 * Byte-buffer rules shared across writers: growing a buffer that is filled
 * from its start (the sidecar writer, the MMDB writer, the CLI's batch
 * sink), and the snapshot's 24-bit little-endian ids.
 *
 * @module
 */

/**
 * `buf` when it has room for `need` more bytes after the first `used`;
 * otherwise a new buffer of at least double the size (doubling keeps the
 * copies' total linear in the bytes written) holding those `used` bytes.
 */
export function withRoom<B extends Uint8Array>(buf: B, used: number, need: number): B | Uint8Array<ArrayBuffer> {
  if (used + need <= buf.length) return buf;
  let size = Math.max(buf.length * 2, 64);
  while (size < used + need) size *= 2;
  const next = new Uint8Array(size);
  next.set(buf.subarray(0, used));
  return next;
}

/** Stores `v` (below 2^24) as 3 little-endian bytes at `b[i]`: the snapshot's leaf ids and IPv4 map entries. */
export function put24(b: Uint8Array, i: number, v: number): void {
  b[i] = v & 0xff;
  b[i + 1] = (v >>> 8) & 0xff;
  b[i + 2] = v >>> 16;
}
