/**
 * Small in-memory snapshots for the server tests. Variant `a`: 8.8.8.8 is in
 * Mountain View (AS15169, a public resolver in a datacenter); variant `b`
 * differs only in the city (`Changed City`), so a hot-reload test can tell
 * which one answered. 10.0.0.0/8 is a bogon; 2001:4860::/32 is Google v6.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeSnapshot, flattenPrefixes, type SignalRow, type SnapshotModel } from '@ipintel/core/writer';
import { EMPTY_SIGNALS } from '@ipintel/testkit';

// The shared baseline signal set of the test fixtures, for space with no connection type.
const NONE: SignalRow = { ...EMPTY_SIGNALS, connection_type: 'unknown' };

export type Variant = 'a' | 'b';

/** The city 8.8.8.8 answers with in each variant. */
export const CITY: Record<Variant, string> = { a: 'Mountain View', b: 'Changed City' };

export function fixtureModel(variant: Variant = 'a'): SnapshotModel {
  const nullGeo = { country: null, country_code: null, region: null, city: null, latitude: null, longitude: null, timezone: null };
  const us = { country: 'United States', country_code: 'US', region: 'California', latitude: 37.4056, longitude: -122.0775, timezone: 'America/Los_Angeles' };
  return {
    build_date: variant === 'a' ? '2026-01-01T00:00:00.000Z' : '2026-01-02T00:00:00.000Z',
    attribution_url: 'https://example.test/attribution',
    has_rpki: false,
    sources: [
      { id: 'dbip-city-lite', publisher: 'DB-IP', url: 'https://db-ip.com/db/lite.php', licence: 'CC BY 4.0', attribution_required: true, data_date: '2026-01-01', entries: 3 },
      { id: 'routeviews', publisher: 'RouteViews <Oregon>', url: 'https://www.routeviews.org/', licence: 'public', attribution_required: false, data_date: '2026-01-01', entries: 2 },
    ],
    geo: [nullGeo, { ...us, city: CITY[variant] }],
    networks: [
      { asn: 0, as_org: '', is_announced: false, is_bogon: false, rpki: 'unknown', allocation_date: null, registration_country: null },
      { asn: 15169, as_org: 'Google LLC', is_announced: true, is_bogon: false, rpki: 'unknown', allocation_date: '1992-12-01', registration_country: 'US' },
      { asn: 0, as_org: '', is_announced: false, is_bogon: true, rpki: null, allocation_date: null, registration_country: null },
    ],
    signals: [
      NONE,
      { ...NONE, connection_type: 'datacenter', connection_evidence: 'authoritative', datacenter_provider: 'Google Cloud', is_public_resolver: true },
    ],
    leaves: [
      { geo: 0, net: 0, sig: 0 },
      { geo: 1, net: 1, sig: 1 },
      { geo: 0, net: 2, sig: 0 },
    ],
    v4: flattenPrefixes(4, [
      { start: 0x08080800n, length: 24, value: 1 },
      { start: 0x0a000000n, length: 8, value: 2 },
    ], 0),
    v6: flattenPrefixes(6, [{ start: 0x20014860n << 96n, length: 32, value: 1 }], 0),
  };
}

const cache = new Map<Variant, Uint8Array>();

/** Snapshot bytes of a variant (encoded once per process). */
export function fixtureBytes(variant: Variant = 'a'): Uint8Array {
  let b = cache.get(variant);
  if (b === undefined) {
    b = encodeSnapshot(fixtureModel(variant));
    cache.set(variant, b);
  }
  return b;
}

/** Writes a variant to `dir/name` by atomic rename (as a snapshot refresh should). */
export function writeSnapshot(dir: string, variant: Variant | Uint8Array, name = 'snapshot.ipintel'): string {
  const path = join(dir, name);
  const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(tmp, typeof variant === 'string' ? fixtureBytes(variant) : variant);
  renameSync(tmp, path);
  return path;
}
