/**
 * MurmurHash3 x86_32 (seed 0) over bytes: the snapshot's corruption check.
 * Chosen for speed on 32-bit words (tens of MB in a few ms); it detects
 * truncation and bit rot, it is not a defence against a forger.
 *
 * @module
 */

export function murmur3(bytes: Uint8Array, seed = 0): number {
  const n = bytes.length;
  const blocks = n >>> 2;
  let h = seed >>> 0;
  // 1. Whole 4-byte blocks, read little-endian (a Uint32Array view when aligned).
  const aligned = bytes.byteOffset % 4 === 0;
  const words = aligned ? new Uint32Array(bytes.buffer, bytes.byteOffset, blocks) : null;
  for (let i = 0; i < blocks; i++) {
    let k = words
      ? words[i]!
      : bytes[i * 4]! | (bytes[i * 4 + 1]! << 8) | (bytes[i * 4 + 2]! << 16) | (bytes[i * 4 + 3]! << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  // 2. The tail of 1..3 bytes.
  let k = 0;
  const t = blocks * 4;
  const rest = n & 3;
  if (rest > 0) {
    if (rest === 3) k ^= bytes[t + 2]! << 16;
    if (rest >= 2) k ^= bytes[t + 1]! << 8;
    k ^= bytes[t]!;
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
  }
  // 3. Finalisation mix.
  h ^= n;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
