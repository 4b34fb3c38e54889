/**
 * LEB128 varints for the explain sidecar: a growable writer and a bounded
 * reader. Numbers up to 2^53 and bigints (IPv6 address deltas) both; the
 * reader throws `explain_corrupt` on a read past the end.
 *
 * @module
 */
import { withRoom } from '../bytes.js';
import { IpIntelError } from '../errors.js';

export class ByteWriter {
  private buf = new Uint8Array(1 << 16);
  length = 0;

  private room(n: number): void {
    this.buf = withRoom(this.buf, this.length, n);
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.length++] = b;
  }

  /** Unsigned integer below 2^53. */
  uint(n: number): void {
    this.room(8);
    while (n >= 0x80) {
      this.buf[this.length++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.length++] = n;
  }

  big(n: bigint): void {
    while (n >= 0x80n) {
      this.byte(Number(n & 0x7fn) | 0x80);
      n >>= 7n;
    }
    this.byte(Number(n));
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }

  text(s: string): void {
    const b = new TextEncoder().encode(s);
    this.uint(b.length);
    this.bytes(b);
  }

  done(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

function truncated(): IpIntelError {
  return new IpIntelError('explain_corrupt', 'explain sidecar is corrupt: it ends inside a section');
}

export class ByteReader {
  pos = 0;
  /** uint()'s one-number run for uints(). */
  private readonly one = new Float64Array(1);
  constructor(private readonly buf: Uint8Array) {}

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  byte(): number {
    if (this.pos >= this.buf.length) throw truncated();
    return this.buf[this.pos++]!;
  }

  /** One unsigned integer below 2^53. */
  uint(): number {
    this.uints(this.one, 1, false);
    return this.one[0]!;
  }

  /**
   * `n` varints into out[0, n), each added to the one before when `delta`
   * (delta-coded starts), in one loop over the bytes: the sections' long
   * columns (the world sidecar's routes hold 1.2M) read this way. Stops at
   * the first value (after the sum) of `below` or more and returns it; else
   * -1. (IPv6 address deltas are read into words: words128.)
   */
  uints(out: Float64Array | Uint32Array, n: number, delta: boolean, below = Number.POSITIVE_INFINITY): number {
    const buf = this.buf;
    let p = this.pos;
    let prev = 0;
    for (let i = 0; i < n; i++) {
      let v = 0;
      let scale = 1;
      for (;;) {
        if (p >= buf.length) throw truncated();
        const b = buf[p++]!;
        v += (b & 0x7f) * scale;
        if (b < 0x80) break;
        scale *= 0x80;
        if (scale > 2 ** 56) throw new IpIntelError('explain_corrupt', 'explain sidecar is corrupt: a number is too long');
      }
      if (delta) v = prev += v;
      if (v >= below) {
        this.pos = p;
        return v;
      }
      out[i] = v;
    }
    this.pos = p;
    return -1;
  }

  /** Steps over `count` varints without decoding them (a section read later: decode.ts). */
  skipVarints(count: number): void {
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < count; i++) {
      const start = p;
      while (p < buf.length && buf[p]! >= 0x80) p++;
      if (p >= buf.length) throw truncated();
      p++;
      // As long as words128 accepts (an address of 128 bits and its slack), never a runaway.
      if (p - start > 21) throw new IpIntelError('explain_corrupt', 'explain sidecar is corrupt: a number is too long');
    }
    this.pos = p;
  }

  /**
   * A varint of up to 21 bytes (as ByteWriter.big writes an address delta
   * with its slack) into four words, most significant first; true when it
   * does not fit in 128 bits.
   */
  words128(out: Uint32Array): boolean {
    out.fill(0);
    let wide = false;
    for (let shift = 0; ; shift += 7) {
      if (shift > 140) throw new IpIntelError('explain_corrupt', 'explain sidecar is corrupt: an address is too long');
      const b = this.byte();
      const v = b & 0x7f;
      if (v !== 0) {
        // Bits shift..shift+6 of the number: in word 3 - (shift >>> 5) (0 most significant), maybe spilling into the one above.
        const limb = shift >>> 5;
        const off = shift & 31;
        if (limb > 3 || (limb === 3 && off > 25 && v >>> (32 - off) !== 0)) wide = true;
        if (limb <= 3) {
          out[3 - limb] = (out[3 - limb]! | (v << off)) >>> 0;
          if (off > 25 && limb < 3) out[2 - limb] = (out[2 - limb]! | (v >>> (32 - off))) >>> 0;
        }
      }
      if (b < 0x80) return wide;
    }
  }

  bytes(n: number): Uint8Array {
    if (n > this.remaining) throw truncated();
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  text(): string {
    const b = this.bytes(this.uint());
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(b);
    } catch {
      throw new IpIntelError('explain_corrupt', 'explain sidecar is corrupt: a text is not UTF-8');
    }
  }
}
