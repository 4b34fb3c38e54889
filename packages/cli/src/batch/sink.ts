/**
 * A growable output byte buffer for one block: rows are copied in as
 * pre-encoded byte segments, so no string is built or encoded per row.
 * Capacity doubles when short (amortised O(1) per byte); the caller sizes
 * the first allocation from the previous block's output/input ratio.
 *
 * @module
 */
import { TextEncoder } from 'node:util';
import { withRoom } from '@ipintel/core/internal';

const encoder = new TextEncoder();

/** Longest piece copyRange copies in 4-byte words; longer ones cost less with `set`. */
const WORD_COPY_MAX = 128;

export class ByteSink {
  buf: Uint8Array;
  /** `buf` as 4-byte words at any offset (copyRange). */
  private words: DataView;
  pos = 0;

  /** Writes into `buf` from its start (its old contents are overwritten). */
  constructor(buf: Uint8Array) {
    this.buf = buf;
    this.words = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    this.buf = withRoom(this.buf, this.pos, n);
    this.words = new DataView(this.buf.buffer);
  }

  /** Copies bytes (room must have been ensured). */
  put(b: Uint8Array): void {
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Copies a short literal, ensuring room. */
  append(b: Uint8Array): void {
    this.ensure(b.length);
    this.put(b);
  }

  /**
   * Copies `src[at, at + n)` (`srcWords` is `src` as a DataView), ensuring
   * room: short pieces in unaligned 4-byte words by hand (a TypedArray#set
   * call, and the subarray it needs, cost more than copying ~100 bytes that
   * way; a byte loop costs twice the words), `set` for long ones.
   */
  copyRange(src: Uint8Array, srcWords: DataView, at: number, n: number): void {
    this.ensure(n);
    if (n > WORD_COPY_MAX) {
      this.buf.set(src.subarray(at, at + n), this.pos);
      this.pos += n;
      return;
    }
    const words = this.words;
    let p = this.pos;
    let i = at;
    const end = at + n;
    for (; i + 4 <= end; i += 4, p += 4) words.setUint32(p, srcWords.getUint32(i, true), true);
    const buf = this.buf;
    for (; i < end; i++) buf[p++] = src[i]!;
    this.pos = p;
  }

  /** Copies `src[s, e)` (room must have been ensured). */
  putRange(src: Uint8Array, s: number, e: number): void {
    const buf = this.buf;
    let p = this.pos;
    for (let i = s; i < e; i++) buf[p++] = src[i]!;
    this.pos = p;
  }

  /** Writes an ASCII string such as a canonical address (room must have been ensured). */
  putAscii(s: string): void {
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < s.length; i++) buf[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** Writes any string as UTF-8 (ensures room itself). */
  putText(s: string): void {
    this.ensure(s.length * 3);
    this.pos += encoder.encodeInto(s, this.buf.subarray(this.pos)).written;
  }

  /** The bytes written so far (a view). */
  view(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}
