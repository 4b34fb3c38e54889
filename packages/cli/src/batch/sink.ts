/**
 * A growable output byte buffer for one block: rows are copied in as
 * pre-encoded byte segments, so no string is built or encoded per row.
 * Capacity doubles when short (amortised O(1) per byte); the caller sizes
 * the first allocation from the previous block's output/input ratio.
 *
 * A sink may start in an output region of the batch kernel's memory
 * (space.ts): the kernel then writes rows straight into it (`kernelAt` is
 * where its first byte is there), and the bytes are written out from there,
 * never copied. Growing past the region moves the sink to a buffer of its
 * own (`kernelAt` -1 from then on).
 *
 * @module
 */
import { TextEncoder } from 'node:util';
import { withRoom } from '@ipintel/core/internal';

const encoder = new TextEncoder();

export class ByteSink {
  buf: Uint8Array;
  pos = 0;
  /** Where buf[0] is in the kernel's memory, or -1 when buf is a buffer of its own. */
  kernelAt: number;

  /** Writes into `buf` from its start (its old contents are overwritten); `kernelAt` as above. */
  constructor(buf: Uint8Array, kernelAt = -1) {
    this.buf = buf;
    this.kernelAt = kernelAt;
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    this.buf = withRoom(this.buf, this.pos, n);
    this.kernelAt = -1;
  }

  /** Moves to a buffer of its own (twice the size), keeping what was written: the kernel's region is full. */
  leave(): void {
    this.buf = withRoom(this.buf, this.pos, this.buf.length - this.pos + 1);
    this.kernelAt = -1;
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
