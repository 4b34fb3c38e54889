/**
 * CRC-32 (IEEE 802.3, the one zlib, gzip and PNG use) over bytes: the
 * snapshot's corruption check (format version 3; versions 1-2 used murmur3).
 * Chosen because Node's zlib computes it natively (`zlib.crc32`, several GB/s:
 * ~10 ms for a world snapshot, where murmur3 in JavaScript took 20-45 ms of
 * the load), while this portable version (slicing by four, a few hundred MB/s)
 * serves other runtimes and the writer. It detects truncation and bit rot; it
 * is not a defence against a forger.
 *
 * @module
 */

/** A checksum function: bytes in, unsigned 32-bit value out; `value` continues an earlier call's result over bytes that came before. */
export type Checksum = (bytes: Uint8Array, value?: number) => number;

/** Four 256-entry tables: T[k][b] is the CRC of byte b followed by k zero bytes. */
const TABLES = /*#__PURE__*/ (() => {
  const t = new Uint32Array(4 * 256);
  for (let b = 0; b < 256; b++) {
    let c = b;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[b] = c >>> 0;
  }
  for (let b = 0; b < 256; b++) {
    for (let k = 1; k < 4; k++) t[k * 256 + b] = (t[(k - 1) * 256 + b]! >>> 8) ^ t[t[(k - 1) * 256 + b]! & 0xff]!;
  }
  return t;
})();

/**
 * CRC-32 of `bytes` (the same value as `zlib.crc32(bytes)`); with `value`,
 * the CRC-32 of the bytes before (whose CRC-32 is `value`) and then `bytes`.
 *
 * @example
 * crc32(new TextEncoder().encode('123456789')) // => 0xcbf43926
 */
export function crc32(bytes: Uint8Array, value = 0): number {
  const t = TABLES;
  let c = (value ^ 0xffffffff) >>> 0;
  const n = bytes.length;
  let i = 0;
  // 1. Four bytes per step.
  for (; i + 4 <= n; i += 4) {
    c ^= bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    c = t[768 + (c & 0xff)]! ^ t[512 + ((c >>> 8) & 0xff)]! ^ t[256 + ((c >>> 16) & 0xff)]! ^ t[c >>> 24]!;
  }
  // 2. The last 0..3 bytes.
  for (; i < n; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
