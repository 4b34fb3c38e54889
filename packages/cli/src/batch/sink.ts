/**
 * A growable output byte buffer for one block: rows are copied in as
 * pre-encoded byte segments, so no string is built or encoded per row.
 * Capacity doubles when short (amortised O(1) per byte); the caller sizes
 * the first allocation from the previous block's output/input ratio.
 *
 * @module
 */
import { TextEncoder } from 'node:util';

const encoder = new TextEncoder();

export class ByteSink {
  buf: Uint8Array;
  pos = 0;

  /** Writes into `buf` from its start (its old contents are overwritten). */
  constructor(buf: Uint8Array) {
    this.buf = buf;
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
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
   * Copies `src[at, at + n)`, ensuring room: a plain loop for short pieces
   * (a TypedArray#set call, and the subarray it needs, cost more than
   * copying a few dozen bytes by hand), `set` for long ones.
   */
  copyRange(src: Uint8Array, at: number, n: number): void {
    this.ensure(n);
    if (n > 64) {
      this.buf.set(src.subarray(at, at + n), this.pos);
      this.pos += n;
      return;
    }
    const buf = this.buf;
    let p = this.pos;
    for (let i = at; i < at + n; i++) buf[p++] = src[i]!;
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
