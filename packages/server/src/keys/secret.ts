/**
 * API key secrets: generation, parsing, hashing and constant-time comparison.
 *
 * A key reads `<prefix>_live_<32 base62 chars>`, e.g. `ipi_live_4fJ2...`.
 * The first ID_LENGTH random characters are the key's public id: the store
 * finds the key's row by it, `ipintel keys list` shows it, and logs carry it.
 * The other 22 characters (about 131 bits) stay secret.
 *
 * Storage: only SHA-256(full key) is stored. A fast hash is enough here (and
 * a slow password hash such as scrypt would cost milliseconds per request):
 * the key is 190 bits from a CSPRNG, not a password a person chose, so there
 * is no dictionary to try and brute force over 2^131 unknown bits is out of
 * reach even with the hash in hand.
 *
 * Comparison: the row is found by the public id, then the hash of the presented
 * key is compared with the stored hash using crypto.timingSafeEqual, so the
 * answer time does not depend on how many leading bytes matched.
 *
 * @module
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

export const KEY_PREFIX = 'ipi';
export const RANDOM_LENGTH = 32;
export const ID_LENGTH = 10;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_SHAPE = /^([a-z][a-z0-9]{0,15})_live_([0-9A-Za-z]{32})$/;

/** A fresh key: `ipi_live_` + 32 base62 characters drawn with the CSPRNG (no modulo bias: randomInt). */
export function generateKey(prefix = KEY_PREFIX): { key: string; id: string } {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  return { key: `${prefix}_live_${random}`, id: random.slice(0, ID_LENGTH) };
}

/** The public id of a well-formed key, else null. */
export function keyId(key: string): string | null {
  if (key.length > 64) return null;
  const m = KEY_SHAPE.exec(key);
  return m === null ? null : m[2]!.slice(0, ID_LENGTH);
}

/** Hex SHA-256 of the full key: the only form of the secret that is stored. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Whether `key` hashes to `storedHash` (hex, or its bytes), compared in constant time. */
export function keyMatches(key: string, storedHash: string | Uint8Array): boolean {
  const a = createHash('sha256').update(key).digest();
  const b = typeof storedHash === 'string' ? Buffer.from(storedHash, 'hex') : storedHash;
  return b.length === a.length && timingSafeEqual(a, b);
}

/**
 * A form of a presented key that is safe to log: the prefix and public id,
 * never the secret part. Input that is not key-shaped is reduced to its length.
 *
 * @example
 * redactKey('ipi_live_AbCdEfGhIj0123456789012345678901') // => 'ipi_live_AbCdEfGhIj…'
 */
export function redactKey(key: string): string {
  const id = keyId(key);
  if (id === null) return `<${Math.min(key.length, 999)} chars, not a key>`;
  return `${key.slice(0, key.indexOf('_live_'))}_live_${id}…`;
}
