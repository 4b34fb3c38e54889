/**
 * Prefix models and the naive longest-prefix oracle: small snapshot models
 * built from prefix lists, the linear scan every index is checked against,
 * and fast-check prefix sets that nest and touch on purpose.
 *
 * @module
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { bigIntToText, encodeSnapshot, flattenPrefixes, type PrefixEntry, type SnapshotModel } from '@ipintel/core/writer';
import { EMPTY_SIGNALS } from './signals.js';

/**
 * A model whose leaf i has geo row i (city `city-i`, latitude i), one
 * network (AS64500) and the empty signal set; the prefixes' values are leaf
 * ids, the rest of the space is leaf 0.
 */
export function modelFromPrefixes(v4: readonly PrefixEntry<number>[], v6: readonly PrefixEntry<number>[], leafCount: number): SnapshotModel {
  const geo = Array.from({ length: leafCount }, (_, i) => ({
    country: 'Testland',
    country_code: 'TL',
    region: null,
    city: `city-${i}`,
    latitude: i,
    longitude: -i,
    timezone: 'Etc/UTC',
  }));
  return {
    build_date: '2026-01-01T00:00:00.000Z',
    attribution_url: 'https://example.test/attribution',
    has_rpki: false,
    sources: [],
    geo,
    networks: [
      { asn: 64500, as_org: 'Test AS', is_announced: true, is_bogon: false, rpki: 'unknown', allocation_date: '2020-01-01', registration_country: 'TL' },
    ],
    signals: [EMPTY_SIGNALS],
    leaves: geo.map((_, i) => ({ geo: i, net: 0, sig: 0 })),
    v4: flattenPrefixes(4, [...v4], 0),
    v6: flattenPrefixes(6, [...v6], 0),
  };
}

/** Encodes a model into a fresh temp file and returns its path. */
export function writeSnapshotFile(model: SnapshotModel, name = 'test.ipintel'): string {
  const path = join(mkdtempSync(join(tmpdir(), 'ipintel-testkit-')), name);
  writeFileSync(path, encodeSnapshot(model));
  return path;
}

/** True when `addr` is inside the prefix (in a `bits`-bit space). */
export function prefixContains(bits: number, p: { readonly start: bigint; readonly length: number }, addr: bigint): boolean {
  return addr >= p.start && addr < p.start + (1n << BigInt(bits - p.length));
}

/** `a.b.c.d/n` or `x::/n`. */
export function prefixText(version: 4 | 6, p: { readonly start: bigint; readonly length: number }): string {
  return `${bigIntToText(version, p.start)}/${p.length}`;
}

/**
 * Naive longest-prefix match: a linear scan, the oracle the index (and any
 * other prefix structure) is checked against. `fill` answers for addresses
 * no prefix covers; among equal lengths the last prefix listed wins.
 */
export function naiveLpm(bits: number, prefixes: readonly PrefixEntry<number>[], addr: bigint, fill = 0): number {
  let best = -1;
  let value = fill;
  for (const p of prefixes) {
    if (p.length >= best && prefixContains(bits, p, addr)) {
      best = p.length;
      value = p.value;
    }
  }
  return value;
}

/** One random prefix of a length from `lengths`, valued 1..leaves-1. */
export function prefixArb(bits: number, lengths: readonly number[], leaves: number): fc.Arbitrary<PrefixEntry<number>> {
  return fc
    .record({
      hi: fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n }),
      length: fc.constantFrom(...lengths),
      value: fc.integer({ min: 1, max: leaves - 1 }),
    })
    .map(({ hi, length, value }) => {
      const size = 1n << BigInt(bits - length);
      return { start: hi - (hi % size), length, value };
    });
}

/** Prefix sets where prefixes nest and touch: random picks, plus children and neighbours of them. */
export function prefixSetArb(bits: number, lengths: readonly number[], leaves: number): fc.Arbitrary<PrefixEntry<number>[]> {
  return fc.array(prefixArb(bits, lengths, leaves), { minLength: 0, maxLength: 40 }).chain((base) =>
    fc
      .array(
        fc.record({ i: fc.nat(), extra: fc.integer({ min: 1, max: 8 }), side: fc.constantFrom(-1, 0, 1), value: fc.integer({ min: 1, max: leaves - 1 }) }),
        { maxLength: base.length === 0 ? 0 : 30 },
      )
      .map((derived) => {
        const out = [...base];
        for (const d of derived) {
          const p = base[d.i % base.length]!;
          const length = Math.min(bits, p.length + d.extra);
          const size = 1n << BigInt(bits - length);
          const parentSize = 1n << BigInt(bits - p.length);
          // A child inside p (side 0), or the block right before/after p (adjacent).
          let start = p.start + ((BigInt(d.i) * size) % parentSize);
          if (d.side === -1) start = p.start - parentSize;
          if (d.side === 1) start = p.start + parentSize;
          if (start < 0n || start + (d.side === 0 ? size : parentSize) > 1n << BigInt(bits)) continue;
          out.push({ start, length: d.side === 0 ? length : p.length, value: d.value });
        }
        return out;
      }),
  );
}

/** Addresses worth probing: every prefix's edges (first, last, one past each end), both ends of the space, and `random`. */
export function probeAddresses(bits: number, prefixes: readonly PrefixEntry<number>[], random: readonly bigint[] = []): bigint[] {
  const max = (1n << BigInt(bits)) - 1n;
  const out = new Set<bigint>([0n, max, ...random]);
  for (const p of prefixes) {
    const last = p.start + (1n << BigInt(bits - p.length)) - 1n;
    for (const x of [p.start - 1n, p.start, p.start + 1n, last - 1n, last, last + 1n]) if (x >= 0n && x <= max) out.add(x);
  }
  return [...out];
}
