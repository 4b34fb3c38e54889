/**
 * The quality report: address-weighted shares over public IPv4 against a
 * naive count of the same model, and the limits that fail a world-scale
 * build (and only a world-scale one).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_SIGNALS } from '@ipintel/testkit';
import { loadSnapshot } from '../src/index.js';
import { QUALITY_LABELS, QUALITY_LIMITS, WORLD_SCALE_IPV4, qualityFailures, qualityReport, type QualityLabel, type QualityReport } from '../src/internal.js';
import { encodeSnapshot, flattenPrefixes, type SnapshotModel } from '../src/writer.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 200) });

const NET = (asn: number, bogon = false) => ({
  asn: bogon ? 0 : asn,
  as_org: bogon ? '' : `AS${asn} Org`,
  is_announced: !bogon,
  is_bogon: bogon,
  rpki: bogon ? null : ('unknown' as const),
  allocation_date: null,
  registration_country: null,
});

/**
 * Leaf 0 = bogon, leaf 1 = AS1 isp, leaf 2 = AS2 mobile, leaf 3 = AS3 datacenter + VPN.
 * `sizes` are prefix lengths of blocks given to leaves 1..3 at 1.0.0.0, 2.0.0.0, 3.0.0.0.
 */
function model(sizes: readonly [number, number, number]): SnapshotModel {
  const signals = [
    EMPTY_SIGNALS,
    { ...EMPTY_SIGNALS, connection_type: 'mobile' as const },
    { ...EMPTY_SIGNALS, connection_type: 'datacenter' as const, datacenter_provider: 'D', is_vpn: true, vpn_operator: 'V' },
  ];
  const v4 = sizes.map((len, i) => ({ start: BigInt(i + 1) << 24n, length: len, value: i + 1 }));
  return {
    build_date: '2026-01-01T00:00:00.000Z',
    attribution_url: 'https://example.test/a',
    has_rpki: false,
    sources: [],
    geo: [{ country: null, country_code: null, region: null, city: null, latitude: null, longitude: null, timezone: null }],
    networks: [NET(0, true), NET(1), NET(2), NET(3)],
    signals,
    leaves: [
      { geo: 0, net: 0, sig: 0 },
      { geo: 0, net: 1, sig: 0 },
      { geo: 0, net: 2, sig: 1 },
      { geo: 0, net: 3, sig: 2 },
    ],
    v4: flattenPrefixes(4, v4, 0),
    v6: flattenPrefixes(6, [], 0),
  };
}

const report = (sizes: readonly [number, number, number]): QualityReport => qualityReport(loadSnapshot(encodeSnapshot(model(sizes))));

describe('qualityReport', () => {
  it('counts public IPv4 by label, weighted by addresses, with the ASNs behind each', () => {
    fc.assert(
      fc.property(fc.tuple(fc.integer({ min: 8, max: 32 }), fc.integer({ min: 8, max: 32 }), fc.integer({ min: 8, max: 32 })), (sizes) => {
        const q = report(sizes);
        const n = sizes.map((l) => 2 ** (32 - l));
        expect(q.public_ipv4).toBe(n[0]! + n[1]! + n[2]!);
        expect(q.mapped_ipv4).toBe(q.public_ipv4);
        expect(q.labels.isp.addresses).toBe(n[0]);
        expect(q.labels.mobile.addresses).toBe(n[1]);
        expect(q.labels.datacenter.addresses).toBe(n[2]);
        expect(q.labels.is_vpn.top).toEqual([{ asn: 3, org: 'AS3 Org', addresses: n[2] }]);
        expect(q.labels.mobile.share).toBeCloseTo(n[1]! / q.public_ipv4, 12);
        // Connection types partition public space.
        const sum = (['datacenter', 'satellite', 'mobile', 'isp', 'unknown'] as const).reduce((a, l) => a + q.labels[l].addresses, 0);
        expect(sum).toBe(q.public_ipv4);
        for (const l of QUALITY_LABELS) expect(q.labels[l].share).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 30 },
    );
  });
});

describe('qualityFailures', () => {
  const fake = (mapped: number, shares: Partial<Record<QualityLabel, number>>): QualityReport => ({
    public_ipv4: mapped,
    mapped_ipv4: mapped,
    asnAddresses: new Map(),
    labels: Object.fromEntries(QUALITY_LABELS.map((l) => [l, { addresses: 0, share: shares[l] ?? 0, top: [] }])) as unknown as QualityReport['labels'],
  });
  const limited = Object.keys(QUALITY_LIMITS) as QualityLabel[];

  it('fails a world-scale snapshot exactly for the labels above their limit', () => {
    fc.assert(
      fc.property(fc.constantFrom(...limited), fc.double({ min: 0, max: 1, noNaN: true }), (label, share) => {
        const failures = qualityFailures(fake(WORLD_SCALE_IPV4, { [label]: share }));
        expect(failures.map((f) => f.label)).toEqual(share > QUALITY_LIMITS[label]! ? [label] : []);
      }),
    );
  });

  it('limits every signal a list of addresses sets, so that one over-wide line (a /1) fails a world build', () => {
    const signals: QualityLabel[] = ['is_tor', 'is_vpn', 'is_proxy', 'is_relay', 'is_public_resolver', 'is_drop_listed', 'recent_abuse', 'is_verified_bot', 'is_anycast'];
    for (const label of signals) expect(qualityFailures(fake(WORLD_SCALE_IPV4, { [label]: 0.5 })).map((f) => f.label), label).toEqual([label]);
  });

  it('applies no limit below world scale (fixtures, regional builds)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: WORLD_SCALE_IPV4 - 1 }), (mapped) => {
        expect(qualityFailures(fake(mapped, { mobile: 0.9, recent_abuse: 0.9 }))).toEqual([]);
      }),
    );
  });
});
