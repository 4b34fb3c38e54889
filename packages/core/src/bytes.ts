/**
 * Growing a byte buffer that is filled from its start: the one rule the
 * sidecar writer, the MMDB writer and the CLI's batch sink share.
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
