/**
 * What every Node load path (node.ts, node-shared.ts, the helper thread of
 * node-column-thread.ts) takes from zlib for a column, defined once: the
 * checksum, zlib's native CRC-32 where this Node has it (20.15+, several
 * times faster: 12 MB in ~5 ms against ~30), else the portable one (same
 * values); and the options of a whole-column inflate.
 *
 * @module
 */
import * as zlib from 'node:zlib';
import { crc32, type Checksum } from './snapshot/checksum.js';

/**
 * zlib's options for inflating a column of `rawSize` bytes at once: one
 * output buffer one byte larger (so zlib makes no second one when it fills),
 * and a stream that would give more stops at the size (ERR_BUFFER_TOO_LARGE:
 * layout.ts's inflateFailed) instead of inflating on, maybe to gigabytes.
 */
export function columnInflateOptions(rawSize: number): zlib.ZlibOptions {
  return { chunkSize: Math.max(64, rawSize + 1), maxOutputLength: Math.max(1, rawSize) };
}

export const nodeCrc32: Checksum = typeof (zlib as { crc32?: unknown }).crc32 === 'function' ? (b, v = 0) => (zlib as unknown as { crc32: Checksum }).crc32(b, v) : crc32;
