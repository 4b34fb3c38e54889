/**
 * One parsed address, for callers off the hot path (the builder, the
 * server, tests). The hot path in `check()` uses parse.ts directly.
 *
 * @module
 */
import { invalidIp } from '../errors.js';
import { formatIPv4, formatIPv6 } from './format.js';
import { IPV6_CANONICAL, R_NOT_STRING, isV4Mapped, parseIPv4, parseIPv6, rejectionReason } from './parse.js';

export type ParsedAddress =
  | { readonly version: 4; readonly value: number; readonly text: string }
  | { readonly version: 6; readonly words: readonly [number, number, number, number]; readonly text: string };

const scratch = new Uint32Array(4);

/**
 * Parses an address strictly; IPv4-mapped IPv6 comes back as IPv4.
 * Throws `IpIntelError('invalid_ip')` quoting the input and saying why.
 *
 * @example
 * parseAddress('::ffff:8.8.8.8') // => { version: 4, value: 134744072, text: '8.8.8.8' }
 */
export function parseAddress(input: unknown): ParsedAddress {
  if (typeof input !== 'string') throw invalidIp(input, rejectionReason(input, R_NOT_STRING, R_NOT_STRING));
  const v4 = parseIPv4(input);
  if (v4 >= 0) return { version: 4, value: v4, text: input };
  const v6 = parseIPv6(input, scratch);
  if (v6 < 0) throw invalidIp(input, rejectionReason(input, v4, v6));
  if (isV4Mapped(scratch)) return { version: 4, value: scratch[3]!, text: formatIPv4(scratch[3]!) };
  const words = [scratch[0]!, scratch[1]!, scratch[2]!, scratch[3]!] as const;
  return { version: 6, words, text: v6 & IPV6_CANONICAL ? input : formatIPv6(words) };
}

/** Address as a BigInt (IPv4 in 0..2^32-1, IPv6 in 0..2^128-1). For the builder and tests. */
export function addressToBigInt(a: ParsedAddress): bigint {
  return a.version === 4 ? BigInt(a.value) : wordsToBigInt(a.words);
}

/** The IPv6 address in words w[at..at+3] (most significant first) as a BigInt. */
export function wordsToBigInt(w: ArrayLike<number>, at = 0): bigint {
  return (BigInt(w[at]!) << 96n) | (BigInt(w[at + 1]!) << 64n) | (BigInt(w[at + 2]!) << 32n) | BigInt(w[at + 3]!);
}

/** An IPv6 address given as a BigInt as four 32-bit words, most significant first. */
export function bigIntToWords(x: bigint): Uint32Array {
  return Uint32Array.of(Number((x >> 96n) & 0xffffffffn), Number((x >> 64n) & 0xffffffffn), Number((x >> 32n) & 0xffffffffn), Number(x & 0xffffffffn));
}

/** Text of an address given as a BigInt. */
export function bigIntToText(version: 4 | 6, x: bigint): string {
  return version === 4 ? formatIPv4(Number(x)) : formatIPv6(bigIntToWords(x));
}
