/**
 * CIDR text and range helpers shared by the adapters. Address parsing is
 * core's strict parser (one policy for the whole project).
 *
 * @module
 */
import { addressToBigInt, parseAddress } from '@ipintel/core/writer';
import type { Prefix } from './types.js';

export type CidrParse =
  | { readonly ok: true; readonly version: 4 | 6; readonly start: bigint; readonly length: number; readonly hostBitsSet: boolean }
  | { readonly ok: false; readonly message: string };

/**
 * Parses `a.b.c.d/n`, `x::/n` or a bare address (= /32 or /128). Host bits
 * set (`1.2.3.4/24`) are cleared and reported through `hostBitsSet`, so the
 * adapter can decide (most publishers mean the enclosing network).
 * IPv4-mapped IPv6 prefixes (`::ffff:0:0/96` and longer) are returned as IPv4.
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
      length -= 96;
    }
    if (length > bits) return { ok: false, message: `prefix length ${length} exceeds ${bits}` };
  }
  const value = addressToBigInt(addr);
  const hostMask = (1n << BigInt(bits - length)) - 1n;
  return { ok: true, version: addr.version, start: value & ~hostMask, length, hostBitsSet: (value & hostMask) !== 0n };
}

/** Splits the inclusive range [first, last] into the fewest CIDR prefixes. */
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

/** Parses an address (no prefix) to a BigInt, or null. */
export function parseAddressValue(text: string): { version: 4 | 6; value: bigint } | null {
  try {
    const a = parseAddress(text);
    return { version: a.version, value: addressToBigInt(a) };
  } catch {
    return null;
  }
}

/** Splits text into lines, accepting LF and CRLF; a final empty line is dropped. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Text of a feed's bytes (UTF-8; a BOM is dropped). */
export function feedText(data: Uint8Array | string): string {
  const s = typeof data === 'string' ? data : new TextDecoder('utf-8').decode(data);
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}
