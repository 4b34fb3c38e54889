/**
 * One parsed address, for callers off the hot path (the builder, the
 * server, tests). The hot path in `check()` uses parse.ts directly.
 *
 * @module
 */
import { invalidIp } from '../errors.js';
import { formatIPv4, formatIPv6 } from './format.js';
import { MAX_ADDRESS_LENGTH, isV4Mapped, lastIPv6WasCanonical, parseIPv4, parseIPv6 } from './parse.js';

export type ParsedAddress =
  | { readonly version: 4; readonly value: number; readonly text: string }
  | { readonly version: 6; readonly words: readonly [number, number, number, number]; readonly text: string };

/** Why `input` is not an address, for error messages. */
export function explainInvalid(input: unknown): string {
  if (typeof input !== 'string') return 'expected a string';
  if (input.length === 0) return 'empty string';
  if (input.length > MAX_ADDRESS_LENGTH) return `longer than ${MAX_ADDRESS_LENGTH} characters`;
  if (input.trim() !== input) return 'surrounding whitespace';
  if (input.includes('%')) return 'zone identifiers are not accepted';
  if (input.includes('/')) return 'a prefix, not an address';
  if (/^[0-9.]+$/.test(input)) {
    if (/(^|\.)0\d/.test(input)) return 'leading zeros in an IPv4 part are ambiguous';
    return 'IPv4 needs four decimal parts 0-255';
  }
  return 'not an IPv4 dotted-decimal or IPv6 text form';
}

const scratch = new Uint32Array(4);

/**
 * Parses an address strictly; IPv4-mapped IPv6 comes back as IPv4.
 * Throws `IpIntelError('invalid_ip')` quoting the input.
 *
 * @example
 * parseAddress('::ffff:8.8.8.8') // => { version: 4, value: 134744072, text: '8.8.8.8' }
 */
export function parseAddress(input: unknown): ParsedAddress {
  if (typeof input === 'string' && input.length <= MAX_ADDRESS_LENGTH) {
    const v4 = parseIPv4(input);
    if (v4 >= 0) return { version: 4, value: v4, text: input };
    if (parseIPv6(input, scratch)) {
      if (isV4Mapped(scratch)) return { version: 4, value: scratch[3]!, text: formatIPv4(scratch[3]!) };
      const words = [scratch[0]!, scratch[1]!, scratch[2]!, scratch[3]!] as const;
      return { version: 6, words, text: lastIPv6WasCanonical() ? input : formatIPv6(words) };
    }
  }
  throw invalidIp(input, explainInvalid(input));
}

/** Address as a BigInt (IPv4 in 0..2^32-1, IPv6 in 0..2^128-1). For the builder and tests. */
export function addressToBigInt(a: ParsedAddress): bigint {
  if (a.version === 4) return BigInt(a.value);
  const [w0, w1, w2, w3] = a.words;
  return (BigInt(w0) << 96n) | (BigInt(w1) << 64n) | (BigInt(w2) << 32n) | BigInt(w3);
}

/** Text of an address given as a BigInt. */
export function bigIntToText(version: 4 | 6, x: bigint): string {
  if (version === 4) return formatIPv4(Number(x));
  return formatIPv6([
    Number((x >> 96n) & 0xffffffffn),
    Number((x >> 64n) & 0xffffffffn),
    Number((x >> 32n) & 0xffffffffn),
    Number(x & 0xffffffffn),
  ]);
}
