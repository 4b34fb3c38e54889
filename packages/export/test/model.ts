/**
 * A small snapshot for the export tests, built with core's writer from
 * random (seeded) prefix sets in both families, with values that test the
 * edges of each format: text with commas, quotes, a newline and non-ASCII
 * letters, null geo fields, an empty AS name, signals set and unset, IPv6
 * boundaries finer than /64 and prefixes inside ::ffff:0:0/96 and ::/96.
 */
import fc from 'fast-check';
import { flattenPrefixes, type GeoRow, type NetworkRow, type PrefixEntry, type SignalRow, type SnapshotModel } from '@ipintel/core/writer';
import { EMPTY_SIGNALS, prefixSetArb } from '@ipintel/testkit';

const GEO: GeoRow[] = [
  { country: null, country_code: null, region: null, city: null, latitude: null, longitude: null, timezone: null },
  { country: 'United States', country_code: 'US', region: 'California', city: 'Mountain View', latitude: 37.4056, longitude: -122.0775, timezone: 'America/Los_Angeles' },
  { country: 'Réunion', country_code: 'RE', region: 'Saint-Denis, "Nord"', city: 'Line one\nLine two', latitude: -20.8823, longitude: 55.4504, timezone: 'Indian/Reunion' },
  { country: 'Germany', country_code: 'DE', region: 'Berlin', city: 'Berlin', latitude: 52, longitude: 13, timezone: 'Europe/Berlin' },
  { country: 'Japan', country_code: 'JP', region: null, city: '東京', latitude: 35.6895, longitude: 139.6917, timezone: 'Asia/Tokyo' },
];
const NETWORKS: NetworkRow[] = [
  { asn: 0, as_org: '', is_announced: false, is_bogon: true, rpki: null, allocation_date: null, registration_country: null },
  { asn: 15169, as_org: 'Google LLC', is_announced: true, is_bogon: false, rpki: 'valid', allocation_date: '1992-12-01', registration_country: 'US' },
  { asn: 4_200_000_001, as_org: 'Acme "Cloud", Inc.', is_announced: true, is_bogon: false, rpki: 'not-found', allocation_date: '2010-05-17', registration_country: 'RE' },
];
const SIGNALS: SignalRow[] = [
  { ...EMPTY_SIGNALS, connection_type: 'unknown', connection_evidence: 'authoritative' },
  EMPTY_SIGNALS,
  { ...EMPTY_SIGNALS, connection_type: 'datacenter', connection_evidence: 'authoritative', datacenter_provider: 'Acme, "the" cloud' },
  { ...EMPTY_SIGNALS, is_tor: true, is_vpn: true },
  { ...EMPTY_SIGNALS, connection_type: 'datacenter', connection_evidence: 'authoritative', datacenter_provider: 'Cloudflare', is_public_resolver: true },
];
/** Leaf 0 is the fill (no geo, bogon); the others combine the rows above. */
const LEAVES = [
  { geo: 0, net: 0, sig: 0 },
  { geo: 1, net: 1, sig: 1 },
  { geo: 2, net: 2, sig: 2 },
  { geo: 3, net: 1, sig: 3 },
  { geo: 1, net: 1, sig: 4 },
  { geo: 4, net: 2, sig: 3 },
  { geo: 0, net: 1, sig: 1 },
  { geo: 3, net: 2, sig: 2 },
];

const V4_LENGTHS = [1, 8, 12, 16, 20, 23, 24, 25, 30, 32];
const V6_LENGTHS = [3, 16, 32, 48, 63, 64, 65, 100, 127, 128];
/** Prefixes that land in the special places of an IPv6 tree. */
const SPECIAL_V6: PrefixEntry<number>[] = [
  { start: 0xffffn << 32n, length: 96, value: 5 }, // ::ffff:0:0/96 (IPv4-mapped)
  { start: 0x01020300n, length: 120, value: 3 }, // inside ::/96
  { start: 0x2002n << 112n, length: 16, value: 4 }, // 6to4
];

export interface TestModel {
  readonly model: SnapshotModel;
  readonly v4: readonly PrefixEntry<number>[];
  readonly v6: readonly PrefixEntry<number>[];
}

export function testModel(seed = 42): TestModel {
  const v4 = fc.sample(prefixSetArb(32, V4_LENGTHS, LEAVES.length), { numRuns: 4, seed }).flat();
  const six = [...fc.sample(prefixSetArb(128, V6_LENGTHS, LEAVES.length), { numRuns: 4, seed: seed + 1 }).flat(), ...SPECIAL_V6];
  return {
    v4,
    v6: six,
    model: {
      build_date: '2026-03-04T05:06:07.000Z',
      attribution_url: 'https://example.test/attribution',
      has_rpki: true,
      sources: [
        { id: 'test-geo', publisher: 'Test Geo Ltd', url: 'https://example.test/geo', licence: 'CC BY 4.0', attribution_required: true, data_date: '2026-03-01', entries: 5 },
        { id: 'test-tor', publisher: 'Test Tor', url: 'https://example.test/tor', licence: 'public', attribution_required: false, data_date: null, entries: 1, evidence: 'authoritative' },
      ],
      geo: GEO,
      networks: NETWORKS,
      signals: SIGNALS,
      leaves: LEAVES,
      v4: flattenPrefixes(4, v4, 0),
      v6: flattenPrefixes(6, six, 0),
    },
  };
}
