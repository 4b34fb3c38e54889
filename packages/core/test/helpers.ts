/**
 * Test helpers: small snapshot models and the naive longest-prefix oracle.
 */
import { flattenPrefixes, type PrefixEntry, type SnapshotModel, type SignalRow } from '../src/writer.js';

export const EMPTY_SIGNALS: SignalRow = {
  connection_type: 'isp',
  connection_evidence: 'inferred',
  datacenter_provider: null,
  relay_provider: null,
  is_relay: false,
  is_tor: false,
  is_vpn: false,
  is_proxy: false,
  is_public_resolver: false,
  is_drop_listed: false,
  recent_abuse: false,
  is_verified_bot: false,
  verified_bot_name: null,
};

/** A model whose leaf i has geo row i (city `city-i`), one network and one signal set. */
export function modelFromPrefixes(
  v4: PrefixEntry<number>[],
  v6: PrefixEntry<number>[],
  leafCount: number,
): SnapshotModel {
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
    v4: toRanges(flattenPrefixes(4, v4, 0)),
    v6: toRanges(flattenPrefixes(6, v6, 0)),
  };
}

function toRanges(r: { starts: bigint[]; values: number[] }) {
  return { starts: r.starts, values: r.values };
}

/** Naive longest-prefix match: a linear scan, the oracle the index is checked against. */
export function naiveLpm(bits: number, prefixes: readonly PrefixEntry<number>[], addr: bigint, fill = 0): number {
  let best = -1;
  let value = fill;
  prefixes.forEach((p) => {
    const size = 1n << BigInt(bits - p.length);
    if (addr >= p.start && addr < p.start + size && p.length >= best) {
      best = p.length;
      value = p.value;
    }
  });
  return value;
}
