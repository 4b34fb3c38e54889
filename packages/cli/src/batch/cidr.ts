/**
 * CIDR blocks in `batch` input: a line that is a CIDR block (`10.0.0.0/24`,
 * `2001:db8::/120`) stands for every address in it, one row each, in
 * address order. A LineMap (lines.ts) with `/` as its marker, so input
 * without a `/` costs one indexOf per chunk.
 *
 * Rules (docs/cli.md): the block is an address as `check` accepts it, `/`,
 * and a length 0..32 (IPv4) or 0..128 (IPv6) without sign or leading zero;
 * its host bits must be zero. Anything else with a `/` stays a line, checked
 * as usual (an error row). A block holding more addresses than the limit
 * (default 65,536: a /16 of IPv4, a /112 of IPv6) stops the run before it:
 * the rows before it are written and the output closed, then a usage error
 * (exit 2) names the block. An IPv4-mapped block (`::ffff:10.0.0.0/120`)
 * expands to IPv4-mapped addresses, which check() answers as IPv4.
 *
 * @module
 */
import { parseAddress } from '@ipintel/core';
import { bigIntToText } from '@ipintel/core/internal';
import { trimAddress } from '../address-text.js';
import { MAX_LINE_BYTES } from './blocks.js';
import type { LineMap } from './lines.js';

/** Default and largest limits on the addresses one block may expand to. */
export const CIDR_LIMIT = 65_536;
export const CIDR_LIMIT_MAX = 16_777_216;

export interface Cidr {
  readonly version: 4 | 6;
  /** First address (as a 128-bit value for IPv6, IPv4-mapped included). */
  readonly first: bigint;
  readonly length: number;
  /** Addresses in the block. */
  readonly size: bigint;
}

/**
 * The block a text stands for, or null when it is not exactly a CIDR block.
 *
 * @example
 * parseCidr('10.0.0.0/30') // => { version: 4, first: 167772160n, length: 30, size: 4n }
 * parseCidr('10.0.0.1/30') // => null (host bits set)
 */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf('/');
  if (slash < 0) return null;
  const lengthText = text.slice(slash + 1);
  if (!/^(0|[1-9][0-9]{0,2})$/.test(lengthText)) return null;
  const addressText = text.slice(0, slash);
  let a;
  try {
    a = parseAddress(addressText);
  } catch {
    return null;
  }
  // An IPv4-mapped block keeps its IPv6 length (::ffff:10.0.0.0/120).
  const six = a.version === 6 || addressText.includes(':');
  const bits = six ? 128 : 32;
  const length = Number(lengthText);
  if (length > bits) return null;
  const value = a.version === 6 ? a.words.reduce((x, w) => (x << 32n) | BigInt(w), 0n) : six ? (0xffffn << 32n) | BigInt(a.value) : BigInt(a.value);
  const size = 1n << BigInt(bits - length);
  if (value % size !== 0n) return null;
  return { version: six ? 6 : 4, first: value, length, size };
}

/** Text of IPv4 address n (dotted decimal). */
function ipv4(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** The LineMap that expands CIDR lines; records the first block over the limit and stops there. */
export class CidrExpander implements LineMap {
  readonly marker = 47; // '/'
  readonly longLines = 'pass' as const;
  /** Blocks expanded, and the rows they added beyond one per line. */
  blocks = 0;
  extraRows = 0;
  /** The first block over the limit: the run stops before it. */
  tooLarge: { readonly text: string; readonly size: bigint } | null = null;

  constructor(readonly limit: number) {}

  done(): boolean {
    return this.tooLarge !== null;
  }

  map(line: Uint8Array): string | null {
    if (this.tooLarge !== null) return '';
    // A line longer than MAX_LINE_BYTES is an error row whatever it holds, and the block reader
    // makes it one: kept as it is, whether it reached this map whole or not (lines.ts passes
    // one on unmapped only when no read ended it within the limit).
    if (line.length > MAX_LINE_BYTES) return null;
    const text = trimAddress(Buffer.from(line.buffer, line.byteOffset, line.length).toString('latin1'));
    if (text === '' || text.startsWith('#')) return null;
    const cidr = parseCidr(text);
    if (cidr === null) return null;
    if (cidr.size > BigInt(this.limit)) {
      this.tooLarge = { text, size: cidr.size };
      return '';
    }
    this.blocks++;
    this.extraRows += Number(cidr.size) - 1;
    const n = Number(cidr.size);
    const out: string[] = new Array<string>(n);
    if (cidr.version === 4) {
      const first = Number(cidr.first);
      for (let i = 0; i < n; i++) out[i] = ipv4(first + i);
    } else {
      for (let i = 0; i < n; i++) out[i] = bigIntToText(6, cidr.first + BigInt(i));
    }
    return `${out.join('\n')}\n`;
  }
}
