/**
 * The seeded generator of every test and benchmark: mulberry32 (small, fast,
 * 32-bit state). The same seed gives the same inputs on every run and every
 * machine, so a failure found once is found again.
 *
 * No imports: plain-JS tools load the built `@ipintel/testkit/random`.
 *
 * @module
 */

/**
 * Seeded unsigned 32-bit integers.
 *
 * @example
 * const next = mulberry32(42); next() // => the same u32 on every run
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/**
 * The same generator as floats in [0, 1).
 *
 * @example
 * const rnd = prng(7); Math.floor(rnd() * 6) + 1 // => a reproducible die roll
 */
export function prng(seed: number): () => number {
  const next = mulberry32(seed);
  return () => next() / 4294967296;
}

/** A u32 from a float generator. */
export function randomU32(rnd: () => number): number {
  return Math.floor(rnd() * 4294967296) >>> 0;
}

/** A 128-bit value (an IPv6 address) from a float generator. */
export function random128(rnd: () => number): bigint {
  return (BigInt(randomU32(rnd)) << 96n) | (BigInt(randomU32(rnd)) << 64n) | (BigInt(randomU32(rnd)) << 32n) | BigInt(randomU32(rnd));
}
