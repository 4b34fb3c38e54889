/**
 * fast-check generators for result parts: signal sets, connection types and
 * whole native results (scored and labelled by core itself).
 *
 * @module
 */
import fc from 'fast-check';
import type { CheckResult, ConnectionType, Signals } from '@ipintel/core';
import { evidenceFor, scoreSignals } from '@ipintel/core';

export const connectionArb = fc.constantFrom<ConnectionType>('datacenter', 'satellite', 'mobile', 'isp', 'unknown');
const name = fc.option(fc.string({ minLength: 1, maxLength: 12 }), { nil: null });

export const signalsArb: fc.Arbitrary<Signals> = fc
  .record({
    connection_type: connectionArb,
    datacenter_provider: name,
    relay_provider: name,
    is_relay: fc.boolean(),
    is_tor: fc.boolean(),
    is_vpn: fc.boolean(),
    vpn_operator: name,
    is_proxy: fc.boolean(),
    is_public_resolver: fc.boolean(),
    is_drop_listed: fc.boolean(),
    recent_abuse: fc.boolean(),
    is_verified_bot: fc.boolean(),
    verified_bot_name: name,
    is_anycast: fc.boolean(),
  })
  .map((s) => ({ ...s, is_datacenter: s.connection_type === 'datacenter' }));

const coord = (m: number) => fc.option(fc.integer({ min: -m * 1e4, max: m * 1e4 }).map((x) => x / 1e4), { nil: null });
const str = fc.option(fc.string({ maxLength: 20 }), { nil: null });

export const nativeArb: fc.Arbitrary<CheckResult> = fc
  .record({
    ip: fc.oneof(fc.ipV4(), fc.ipV6()),
    geo: fc.record({ country: str, country_code: str, region: str, city: str, latitude: coord(90), longitude: coord(180), timezone: str }),
    asn: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 4_294_967_295 })),
    as_org: fc.string({ maxLength: 30 }),
    signals: signalsArb,
    label: fc.constantFrom('authoritative' as const, 'inferred' as const),
  })
  .map(({ ip, geo, asn, as_org, signals, label }) => ({
    ip,
    version: ip.includes(':') ? (6 as const) : (4 as const),
    geo,
    network: {
      asn,
      as_org: asn === 0 ? '' : as_org,
      is_announced: true,
      is_bogon: false,
      rpki: 'unknown' as const,
      allocation_date: null,
      allocation_age_days: null,
      registration_country: null,
    },
    signals,
    evidence: evidenceFor(label),
    risk: scoreSignals(signals),
    attribution: 'https://example.test/attribution',
  }));
