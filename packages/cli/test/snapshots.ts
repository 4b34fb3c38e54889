/**
 * Small in-memory snapshots for the CLI tests (and the synthetic benchmark
 * snapshot), built with core's writer. The "tricky" snapshot has values that
 * exercise CSV quoting (commas, quotes, newlines), signals, a bogon range,
 * IPv6, and null geo fields.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  encodeSnapshot,
  flattenPrefixes,
  type GeoRow,
  type NetworkRow,
  type PrefixEntry,
  type SignalRow,
  type SnapshotModel,
} from '@ipintel/core/writer';
import { damageColumn, EMPTY_SIGNALS, prng, writeSnapshotFile } from '@ipintel/testkit';

const v4 = (a: number, b: number, c: number, d: number): bigint => BigInt(((a << 24) | (b << 16) | (c << 8) | d) >>> 0);

/**
 * Leaves: 0 = bogon/unknown (fill), 1 = plain ISP (8.8.0.0/16), 2 = datacenter with a quoted,
 * comma'd provider and a multi-line city (8.8.8.0/24), 3 = tor+vpn (1.2.3.0/24), 4 = resolver
 * (1.1.1.1/32), 5 = IPv6 datacenter (2001:db8::/32 stands in for a public range here).
 */
export function trickyModel(): SnapshotModel {
  const geo: GeoRow[] = [
    { country: null, country_code: null, region: null, city: null, latitude: null, longitude: null, timezone: null },
    { country: 'United States', country_code: 'US', region: 'California', city: 'Mountain View', latitude: 37.4056, longitude: -122.0775, timezone: 'America/Los_Angeles' },
    { country: 'Réunion', country_code: 'RE', region: 'Saint-Denis, "Nord"', city: 'Line one\nLine two', latitude: -20.8823, longitude: 55.4504, timezone: 'Indian/Reunion' },
    { country: 'Germany', country_code: 'DE', region: 'Berlin', city: 'Berlin', latitude: 52.52, longitude: 13.405, timezone: 'Europe/Berlin' },
  ];
  const networks: NetworkRow[] = [
    { asn: 0, as_org: '', is_announced: false, is_bogon: true, rpki: null, allocation_date: null, registration_country: null },
    { asn: 15169, as_org: 'Google LLC', is_announced: true, is_bogon: false, rpki: 'valid', allocation_date: '1992-12-01', registration_country: 'US' },
    { asn: 64501, as_org: 'Acme "Cloud", Inc.', is_announced: true, is_bogon: false, rpki: 'not-found', allocation_date: '2010-05-17', registration_country: 'RE' },
  ];
  const signals: SignalRow[] = [
    { ...EMPTY_SIGNALS, connection_type: 'unknown', connection_evidence: 'authoritative' },
    EMPTY_SIGNALS,
    { ...EMPTY_SIGNALS, connection_type: 'datacenter', connection_evidence: 'authoritative', datacenter_provider: 'Acme, "the" cloud' },
    { ...EMPTY_SIGNALS, is_tor: true, is_vpn: true },
    { ...EMPTY_SIGNALS, connection_type: 'datacenter', connection_evidence: 'authoritative', datacenter_provider: 'Cloudflare', is_public_resolver: true },
  ];
  const leaves = [
    { geo: 0, net: 0, sig: 0 },
    { geo: 1, net: 1, sig: 1 },
    { geo: 2, net: 2, sig: 2 },
    { geo: 3, net: 1, sig: 3 },
    { geo: 1, net: 1, sig: 4 },
    { geo: 3, net: 2, sig: 2 },
  ];
  const p4: PrefixEntry<number>[] = [
    { start: v4(1, 0, 0, 0), length: 8, value: 1 },
    { start: v4(8, 0, 0, 0), length: 8, value: 1 },
    { start: v4(8, 8, 8, 0), length: 24, value: 2 },
    { start: v4(1, 2, 3, 0), length: 24, value: 3 },
    { start: v4(1, 1, 1, 1), length: 32, value: 4 },
  ];
  const p6: PrefixEntry<number>[] = [
    { start: 0x2000n << 112n, length: 3, value: 1 },
    { start: 0x20010db8n << 96n, length: 32, value: 5 },
  ];
  return {
    build_date: '2026-01-02T00:00:00.000Z',
    attribution_url: 'https://example.test/attribution',
    has_rpki: true,
    sources: [
      { id: 'test-geo', publisher: 'Test Geo Ltd', url: 'https://example.test/geo', licence: 'CC BY 4.0', attribution_required: true, data_date: '2026-01-01', entries: 4 },
      { id: 'test-tor', publisher: 'Test Tor', url: 'https://example.test/tor', licence: 'public', attribution_required: false, data_date: null, entries: 1, evidence: 'authoritative' },
    ],
    geo,
    networks,
    signals,
    leaves,
    v4: flattenPrefixes(4, p4, 0),
    v6: flattenPrefixes(6, p6, 0),
  };
}

export { prng };

/**
 * A larger synthetic snapshot: `ranges` random IPv4 prefixes (/12../24) over
 * `leafCount` leaves combining `geoCount` geo rows, `netCount` networks and
 * the tricky model's signal sets (defaults: small; benchmarks pass
 * world-like sizes).
 */
export function syntheticModel(ranges: number, leafCount = 20_000, seed = 42, geoCount = 1000, netCount = 300): SnapshotModel {
  const rnd = prng(seed);
  const base = trickyModel();
  const geo: GeoRow[] = Array.from({ length: geoCount }, (_, i) => ({
    country: `Country ${i % 200}`, country_code: String.fromCharCode(65 + Math.floor((i % 200) / 26), 65 + ((i % 200) % 26)), region: `Region ${i}`, city: `City ${i}`,
    latitude: Math.round((rnd() * 180 - 90) * 1e4) / 1e4, longitude: Math.round((rnd() * 360 - 180) * 1e4) / 1e4, timezone: 'Etc/UTC',
  }));
  const networks: NetworkRow[] = Array.from({ length: netCount }, (_, i) => ({
    asn: 1000 + i, as_org: `AS Org ${i}`, is_announced: true, is_bogon: false, rpki: 'valid', allocation_date: '2005-03-04', registration_country: 'US',
  }));
  const leaves = [
    { geo: 0, net: 0, sig: 0 },
    ...Array.from({ length: leafCount - 1 }, () => ({
      geo: Math.floor(rnd() * geo.length), net: Math.floor(rnd() * networks.length), sig: 1 + Math.floor(rnd() * (base.signals.length - 1)),
    })),
  ];
  const p4: PrefixEntry<number>[] = [];
  for (let i = 0; i < ranges; i++) {
    const len = 12 + Math.floor(rnd() * 13);
    const start = BigInt(Math.floor(rnd() * 2 ** 32)) & ~((1n << BigInt(32 - len)) - 1n) & 0xffffffffn;
    p4.push({ start, length: len, value: 1 + Math.floor(rnd() * (leafCount - 1)) });
  }
  return {
    ...base,
    geo,
    networks: [base.networks[0]!, ...networks],
    leaves: leaves.map((l) => ({ ...l, net: l === leaves[0] ? 0 : l.net + 1 })),
    v4: flattenPrefixes(4, p4, 0),
    v6: flattenPrefixes(6, [{ start: 0x2000n << 112n, length: 3, value: 1 }], 0),
  };
}

/** Encodes a model to a fresh temp file and returns its path. */
export const writeSnapshot = (model: SnapshotModel, name?: string): string => writeSnapshotFile(model, name);

/**
 * The tricky snapshot in a temp file whose IPv4 index breaks an invariant,
 * checksums right: every load refuses it (snapshot_corrupt, naming v4.dir).
 */
export function writeDamagedV4Snapshot(): string {
  // The IPv4 table's entries moved past every leaf (the column is delta-filtered: all of them shift).
  const bad = damageColumn(encodeSnapshot(trickyModel(), { compress: false }), 'v4.dir', (col) => col.setUint32(0, 0x7fffff, true));
  const path = join(mkdtempSync(join(tmpdir(), 'ipintel-bad4-')), 'bad.ipintel');
  writeFileSync(path, bad);
  return path;
}

/**
 * The tricky snapshot in a temp file with its first IPv6 leaf id beyond every
 * leaf, checksums right: it loads and answers IPv4, and its IPv6 index is
 * refused (`an IPv6 leaf id is out of range`) when it is decoded.
 */
export function writeDamagedV6Snapshot(): string {
  const bad = damageColumn(encodeSnapshot(trickyModel(), { compress: false }), 'v6.leaf', (col) => col.setUint8(2, 0x7f));
  const path = join(mkdtempSync(join(tmpdir(), 'ipintel-bad6-')), 'bad.ipintel');
  writeFileSync(path, bad);
  return path;
}
