/**
 * Compressed feeds: gzip (RFC 1952) and bzip2, detected by their magic
 * numbers, so that a plain copy of the same file reads as well.
 *
 * @module
 */
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { FeedError } from '../../errors.js';

/** Header fields of a gzip member (RFC 1952) that carry provenance. */
export interface GzipHeader {
  /** FNAME, the original file name, when stored. */
  readonly name: string | null;
  /** MTIME as an ISO timestamp, or null when 0 (not stored). */
  readonly mtime: string | null;
}

/** Whether the bytes start with the gzip magic number. */
export function isGzip(data: Uint8Array): boolean {
  return data.length >= 10 && data[0] === 0x1f && data[1] === 0x8b;
}

/** Whether the bytes start with a bzip2 stream header (`BZh1`..`BZh9`). */
export function isBzip2(data: Uint8Array): boolean {
  return data.length >= 4 && data[0] === 0x42 && data[1] === 0x5a && data[2] === 0x68 && data[3]! >= 0x31 && data[3]! <= 0x39;
}

/** Reads FNAME and MTIME from a gzip header; null when the bytes are not gzip. */
export function gzipHeader(data: Uint8Array): GzipHeader | null {
  if (!isGzip(data)) return null;
  const flags = data[3]!;
  const mtimeSec = (data[4]! | (data[5]! << 8) | (data[6]! << 16)) + data[7]! * 0x1000000;
  let pos = 10;
  if (flags & 4) pos += 2 + (data[pos]! | (data[pos + 1]! << 8)); // FEXTRA
  let name: string | null = null;
  if (flags & 8) {
    let end = pos;
    while (end < data.length && data[end] !== 0) end++;
    name = new TextDecoder('latin1').decode(data.subarray(pos, end));
  }
  return { name, mtime: mtimeSec === 0 ? null : new Date(mtimeSec * 1000).toISOString().replace('.000Z', 'Z') };
}

let bunzip: ((input: Uint8Array, output?: undefined, multistream?: boolean) => Uint8Array) | undefined;

/**
 * The feed's bytes with any gzip or bzip2 layer removed (detected by magic
 * number, so a plain copy of the same file works as well).
 *
 * @throws FeedError `feed_compression` when the layer cannot be unpacked.
 */
export function unpackFeed(feed: string, data: Uint8Array): Uint8Array {
  if (isGzip(data)) {
    // Node's zlib, not fflate's one-call gunzip: that read only the first member of a file of several
    // (RFC 1952 allows them; `gzip -c a b > ab` makes one), sized its output by the last member's
    // length field and checked neither CRC nor length, so a damaged or multi-member feed lost rows
    // without an error. zlib reads every member and refuses a CRC or length that does not match.
    try {
      return gunzipSync(data);
    } catch (e) {
      throw new FeedError(feed, 'feed_compression', `gzip data unreadable: ${(e as Error).message}`, { cause: e });
    }
  }
  if (isBzip2(data)) {
    // seek-bzip ships no types; it is CommonJS, so load it through require.
    bunzip ??= (createRequire(import.meta.url)('seek-bzip') as { decode: typeof bunzip }).decode;
    try {
      return bunzip!(data, undefined, true);
    } catch (e) {
      throw new FeedError(feed, 'feed_compression', `bzip2 data unreadable: ${(e as Error).message}`, { cause: e });
    }
  }
  return data;
}
