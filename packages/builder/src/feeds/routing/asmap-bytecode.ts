/**
 * Bitcoin Core's asmap bytecode (`.dat`, as Bitcoin Core loads it with
 * `-asmap`): a program over the bits of a 128-bit address (IPv4 as
 * `::ffff:a.b.c.d`) that ends in the AS the address maps to. This module
 * runs the program over every path instead of one address, so it yields
 * the whole map as prefixes.
 *
 * The format, from Bitcoin Core's `util/asmap.cpp` (read, not copied): bits
 * are read least-significant first within each byte; numbers are a class
 * prefix (a run of 1 bits choosing a size from a table, the last class has
 * no terminating bit) then that many bits, most significant first, added
 * to the class's base. Four instructions, each a 0-2 bit type code:
 * RETURN asn (the address maps to asn), JUMP n (bit 0 continues here, bit 1
 * continues n bits further), MATCH pattern (the next bits must equal the
 * pattern, else the address maps to the current default), DEFAULT asn (sets
 * the default). ASN 0 means "not mapped".
 *
 * @module
 */
import { FeedError } from '../../errors.js';

const TYPE_BITS = [0, 0, 1];
const ASN_BITS = [15, 16, 17, 18, 19, 20, 21, 22, 23, 24];
const MATCH_BITS = [1, 2, 3, 4, 5, 6, 7, 8];
const JUMP_BITS = [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30];

const RETURN = 0;
const JUMP = 1;
const MATCH = 2;
const DEFAULT = 3;

/** One mapped prefix of the 128-bit space: `start` is top-aligned, `length` its bits. */
export interface AsmapLeaf {
  readonly start: bigint;
  readonly length: number;
  readonly asn: number;
}

/** Reads the program's numbers; `pos` is a bit position. */
class BitReader {
  readonly end: number;
  pos = 0;
  constructor(
    private readonly bytes: Uint8Array,
    private readonly feed: string,
  ) {
    this.end = bytes.length * 8;
  }

  private bit(): number {
    const p = this.pos++;
    return (this.bytes[p >>> 3]! >>> (p & 7)) & 1;
  }

  /** A number of one of the classes in `sizes`, plus `base`; throws at the end of the data. */
  number(base: number, sizes: readonly number[], what: string): number {
    let value = base;
    for (let i = 0; i < sizes.length; i++) {
      const last = i + 1 === sizes.length;
      if (!last) {
        if (this.pos >= this.end) this.fail(`${what} runs past the end`);
        if (this.bit() === 1) {
          value += 2 ** sizes[i]!;
          continue;
        }
      }
      const n = sizes[i]!;
      if (this.pos + n > this.end) this.fail(`${what} runs past the end`);
      for (let k = n - 1; k >= 0; k--) value += this.bit() * 2 ** k;
      return value;
    }
    return this.fail(`${what} has no size class`);
  }

  fail(message: string): never {
    throw new FeedError(this.feed, 'feed_format', `asmap bytecode at bit ${this.pos}: ${message}`);
  }
}

/**
 * Every prefix the program maps, ASN 0 (unmapped) included, in the order
 * the paths end. Prefixes do not overlap: each is one path of the program.
 *
 * Each instruction may be reached by one path only, as in the programs
 * Bitcoin Core writes (a tree: its SanityCheckAsmap refuses code reachable
 * twice). Two jumps to shared code would let a small file hold 2^n paths
 * (138 bytes, 2^40 prefixes: out of memory); with the rule, the work and
 * the prefixes are bounded by the file's size (at most 8 per instruction).
 *
 * @throws FeedError (`feed_format`) on a malformed program: an unknown
 *   instruction, a jump out of the data, a match past 128 bits, an
 *   instruction reached by two paths.
 */
export function decodeAsmap(bytes: Uint8Array, feed: string): AsmapLeaf[] {
  const r = new BitReader(bytes, feed);
  if (r.end === 0) throw new FeedError(feed, 'feed_empty', 'empty file (0 bytes)');
  const out: AsmapLeaf[] = [];
  // Paths still to run: where the program continues, the address bits so far, and the default AS.
  const pending: { pos: number; start: bigint; depth: number; fallback: number }[] = [{ pos: 0, start: 0n, depth: 0, fallback: 0 }];
  const bitAt = (depth: number): bigint => 1n << BigInt(127 - depth);
  // One bit per bit position of the file: an instruction already run from there.
  const ran = new Uint8Array(Math.ceil(r.end / 8));
  let furthest = 0;
  while (pending.length > 0) {
    const path = pending.pop()!;
    r.pos = path.pos;
    let { start, depth, fallback } = path;
    for (;; furthest = Math.max(furthest, r.pos)) {
      const at = r.pos;
      if ((ran[at >>> 3]! >>> (at & 7)) & 1) r.fail('an instruction reached by two paths (not a tree, as Bitcoin Core writes)');
      ran[at >>> 3]! |= 1 << (at & 7);
      const op = r.number(0, TYPE_BITS, 'an instruction');
      if (op === RETURN) {
        out.push({ start, length: depth, asn: r.number(1, ASN_BITS, 'an AS number') });
        furthest = Math.max(furthest, r.pos);
        break;
      } else if (op === JUMP) {
        const jump = r.number(17, JUMP_BITS, 'a jump');
        if (depth >= 128) r.fail('a jump past bit 128');
        if (jump >= r.end - r.pos) r.fail('a jump out of the data');
        pending.push({ pos: r.pos + jump, start: start | bitAt(depth), depth: depth + 1, fallback });
        depth++;
      } else if (op === MATCH) {
        const pattern = r.number(2, MATCH_BITS, 'a match');
        const bits = 31 - Math.clz32(pattern); // the leading 1 marks the pattern's length
        if (depth + bits > 128) r.fail('a match past bit 128');
        for (let i = bits - 1; i >= 0; i--) {
          const want = (pattern >>> i) & 1;
          // The other branch ends here, at the default.
          out.push({ start: want === 1 ? start : start | bitAt(depth), length: depth + 1, asn: fallback });
          if (want === 1) start |= bitAt(depth);
          depth++;
        }
      } else if (op === DEFAULT) {
        fallback = r.number(1, ASN_BITS, 'a default AS number');
      } else {
        r.fail(`unknown instruction ${op}`);
      }
    }
  }
  // As Bitcoin Core's sanity check: the program ends in the last byte, padded with zero bits.
  // A file that is not a program (an HTML page) fails here if it decoded at all.
  if (r.end - furthest >= 8) throw new FeedError(feed, 'feed_format', `asmap bytecode: ${r.end - furthest} bits after the program's end (not an asmap file?)`);
  r.pos = furthest;
  while (r.pos < r.end) if (r.number(0, [1], 'padding') !== 0) r.fail('padding bits are not zero (not an asmap file?)');
  return out;
}

const V4_MAPPED = 0xffffn << 32n;
const V4_MAPPED_MASK = ((1n << 96n) - 1n) << 32n;

/**
 * A 128-bit prefix as the address family it belongs to: inside
 * `::ffff:0:0/96` it is IPv4; a shorter prefix that covers that block
 * yields both its IPv6 prefix and all of IPv4.
 */
export function toFamilyPrefixes(leaf: AsmapLeaf): { version: 4 | 6; start: bigint; length: number }[] {
  if (leaf.length >= 96) {
    if ((leaf.start & V4_MAPPED_MASK) === V4_MAPPED) return [{ version: 4, start: leaf.start & 0xffffffffn, length: leaf.length - 96 }];
    return [{ version: 6, start: leaf.start, length: leaf.length }];
  }
  const mask = leaf.length === 0 ? 0n : ((1n << BigInt(leaf.length)) - 1n) << BigInt(128 - leaf.length);
  const v6 = { version: 6 as const, start: leaf.start, length: leaf.length };
  return (V4_MAPPED & mask) === leaf.start ? [v6, { version: 4, start: 0n, length: 0 }] : [v6];
}
