/**
 * Addresses, CIDR prefixes and ranges as feeds write them. Address parsing
 * is core's strict parser (one policy for the whole project).
 *
 * @module
 */
import { addressToBigInt, parseAddress } from '@ipintel/core/writer';
import type { Prefix } from '../types.js';

export type CidrParse =
  | { readonly ok: true; readonly version: 4 | 6; readonly start: bigint; readonly length: number; readonly hostBitsSet: boolean }
  | { readonly ok: false; readonly message: string };

/**
 * Parses `a.b.c.d/n`, `x::/n` or a bare address (= /32 or /128). Host bits
 * set (`1.2.3.4/24`) are cleared and reported through `hostBitsSet`, so the
 * adapter can decide (most publishers mean the enclosing network).
 * IPv4-mapped IPv6 prefixes (`::ffff:1.2.3.0/120`) are returned as IPv4.
 *
 * Refused: an IPv4-mapped prefix shorter than /104. No feed means one as the
 * IPv4 range it would become: `::ffff:0:0/96`, listed by bogon pages, names
 * the mapped IPv6 block, and read as 0.0.0.0/0 it made every IPv4 address a
 * bogon. (A list's default route is refused by parseCidrList.)
 */
export function parseCidr(text: string): CidrParse {
  const slash = text.indexOf('/');
  const addrText = slash < 0 ? text : text.slice(0, slash);
  let addr;
  try {
    addr = parseAddress(addrText);
  } catch {
    return { ok: false, message: `not an address: ${JSON.stringify(addrText.slice(0, 60))}` };
  }
  const mappedV4 = addr.version === 4 && addrText.includes(':');
  const bits = addr.version === 4 ? 32 : 128;
  let length = bits;
  if (slash >= 0) {
    const lenText = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(lenText)) return { ok: false, message: `bad prefix length: ${JSON.stringify(lenText)}` };
    length = Number(lenText);
    if (mappedV4) {
      if (length < 96 || length > 128) return { ok: false, message: `IPv4-mapped prefix length ${length} outside 96..128` };
      if (length < 104) return { ok: false, message: `IPv4-mapped prefix /${length} names the mapped IPv6 block, not IPv4 addresses (it would cover /${length - 96} of IPv4)` };
      length -= 96;
    }
    if (length > bits) return { ok: false, message: `prefix length ${length} exceeds ${bits}` };
  }
  const value = addressToBigInt(addr);
  const mask = (1n << BigInt(bits - length)) - 1n;
  return { ok: true, version: addr.version, start: value & ~mask, length, hostBitsSet: (value & mask) !== 0n };
}

/**
 * The reason a parsed prefix is no entry of a list that labels addresses
 * (datacenter ranges, crawlers, DROP, abuse): a default route (`0.0.0.0/0`,
 * `::/0`) would give the list's label to every address of its family. Null
 * for any other prefix. Every such reader asks this, not only the plain
 * lists: a geofeed or JSON record of `/0` made every address that provider's.
 */
export function defaultRouteEntry(length: number, text: string): string | null {
  return length === 0 ? `a default route (/0) is no list entry: ${JSON.stringify(text.slice(0, 60))}` : null;
}

/** Parses an address (no prefix) to a BigInt, or null. */
export function parseAddressValue(text: string): { version: 4 | 6; value: bigint } | null {
  try {
    const a = parseAddress(text);
    return { version: a.version, value: addressToBigInt(a) };
  } catch {
    return null;
  }
}

const HOST_MASK: readonly (readonly bigint[])[] = [
  [], [], [], [],
  Array.from({ length: 33 }, (_, len) => (1n << BigInt(32 - len)) - 1n),
  [],
  Array.from({ length: 129 }, (_, len) => (1n << BigInt(128 - len)) - 1n),
];

/** Host-bit mask of a prefix length (`(1 << (bits - length)) - 1`), from a table. */
export function hostMask(version: 4 | 6, length: number): bigint {
  return HOST_MASK[version]![length]!;
}

/**
 * Splits the inclusive range [first, last] into the fewest CIDR prefixes:
 * the plain, bit-by-bit definition (the reference `pushRangePrefixes` is
 * tested against).
 */
export function rangeToPrefixes<V>(version: 4 | 6, first: bigint, last: bigint, value: V): Prefix<V>[] {
  const bits = version === 4 ? 32 : 128;
  const out: Prefix<V>[] = [];
  let cur = first;
  while (cur <= last) {
    // Largest aligned block starting at `cur` that does not pass `last`.
    let size = cur === 0n ? 1n << BigInt(bits) : cur & -cur;
    while (cur + size - 1n > last) size >>= 1n;
    let length = bits;
    for (let s = size; s > 1n; s >>= 1n) length--;
    out.push({ version, start: cur, length, value });
    cur += size;
  }
  return out;
}

const POW2: readonly bigint[] = Array.from({ length: 129 }, (_, k) => 1n << BigInt(k));
const TWO32 = 1n << 32n;
const TWO64 = 1n << 64n;

/** Bit length of a positive bigint. */
function bitLength(x: bigint): number {
  let n = 0;
  if (x >= TWO64) {
    x >>= 64n;
    n += 64;
  }
  while (x >= TWO32) {
    x >>= 32n;
    n += 32;
  }
  return n + 32 - Math.clz32(Number(x));
}

/**
 * Appends the fewest CIDR prefixes covering the inclusive range
 * [first, last] to `out`, all with `value`. Same result as
 * `rangeToPrefixes` (a property test checks it), but several times faster:
 * IPv4 is split with numbers, IPv6 with a handful of bigint operations per
 * prefix instead of one per bit. Expects first <= last within the family.
 */
export function pushRangePrefixes<V>(out: Prefix<V>[], version: 4 | 6, first: bigint, last: bigint, value: V): void {
  if (version === 4) {
    let cur = Number(first);
    const end = Number(last);
    while (cur <= end) {
      const low = cur & -cur; // lowest set bit as int32 (bit 31 -> -2^31)
      const tz = cur === 0 ? 32 : 31 - Math.clz32(low);
      const count = end - cur + 1;
      const span = count >= 0x100000000 ? 32 : 31 - Math.clz32(count);
      const k = tz < span ? tz : span;
      out.push({ version, start: BigInt(cur), length: 32 - k, value });
      cur += 2 ** k;
    }
    return;
  }
  let cur = first;
  while (cur <= last) {
    const tz = cur === 0n ? 128 : bitLength(cur & -cur) - 1;
    const span = bitLength(last - cur + 1n) - 1;
    const k = tz < span ? tz : span;
    out.push({ version, start: cur, length: 128 - k, value });
    cur += POW2[k]!;
  }
}
