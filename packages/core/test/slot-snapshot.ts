/**
 * What the answer-slot tests (hot-leaves, tail-slots) share: a snapshot of
 * a `modelFromPrefixes` model whose neighbouring leaves differ in network
 * and signal set, so that parts of two leaves mixed in one answer would
 * show; and the check that answers follow the UTC day.
 */
import { expect } from 'vitest';
import { loadSnapshot } from '../src/portable.js';
import { encodeSnapshot, type SnapshotModel } from '../src/writer.js';
import { EMPTY_SIGNALS } from '@ipintel/testkit';

/** Noon UTC of a fixed day: the slot tests' clock. */
export const NOON = Date.parse('2026-11-22T12:00:00Z');

/**
 * `base` (from modelFromPrefixes) written with two networks, allocated on
 * `dates[0]` and `dates[1]`, and two signal sets (the second Tor): model
 * leaf m is on network m % 2 (ASN 64500 + m % 2) and signal set (m >> 1) % 2.
 */
export function alternatingParts(base: SnapshotModel): { bytes: Uint8Array; dates: readonly string[] } {
  const dates = [base.networks[0]!.allocation_date!, '2010-06-01'];
  const bytes = encodeSnapshot({
    ...base,
    networks: [base.networks[0]!, { ...base.networks[0]!, asn: 64501, allocation_date: dates[1]! }],
    signals: [EMPTY_SIGNALS, { ...EMPTY_SIGNALS, is_tor: true }],
    leaves: base.leaves.map((l, i) => ({ ...l, net: i % 2, sig: (i >> 1) % 2 })),
  });
  return { bytes, dates };
}

/**
 * Checks the address `ipOf(m)` of each model leaf m on a clock at NOON,
 * a day later and a day earlier (a clock stepping back is a new day too):
 * `allocation_age_days` must follow the day each time.
 */
export function expectAgesFollowTheDay(snapshot: { bytes: Uint8Array; dates: readonly string[] }, leaves: readonly number[], ipOf: (m: number) => string): void {
  let now = NOON;
  const intel = loadSnapshot(snapshot.bytes, { now: () => now });
  const ages = () => leaves.map((m) => intel.check(ipOf(m)).network.allocation_age_days);
  // Leaf m is on network m % 2; the clock stays at noon, the dates at midnight UTC.
  const want = () => leaves.map((m) => Math.floor((now - Date.parse(snapshot.dates[m % 2]!)) / 86_400_000));
  expect(ages()).toEqual(want());
  now += 86_400_000;
  expect(ages()).toEqual(want());
  now -= 2 * 86_400_000;
  expect(ages()).toEqual(want());
}
