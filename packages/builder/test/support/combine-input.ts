/**
 * A small combiner input for the tests (packages/builder/test/combine,
 * test/explain): Google's 8.8.8.0/24 in the ASN table and routed (RPKI
 * valid for AS15169), geo for 8/8, 10/8 special-purpose, 8.9/16
 * unallocated; every other role empty unless `over` sets it.
 */
import type { CombineInput } from '../../src/combine/input.js';
import type { Prefix } from '../../src/feeds/types.js';

export const v4 = (a: number, b: number, c: number, d: number): bigint => BigInt(((a << 24) >>> 0) + (b << 16) + (c << 8) + d);
export const p4 = <V>(a: number, b: number, c: number, d: number, length: number, value: V): Prefix<V> => ({ version: 4, start: v4(a, b, c, d), length, value });

export const PUBLISHED = (provider: string) => ({ provider, cdn: false, anycast: false });

export const GEO_US = { country: 'United States', country_code: 'US', region: 'California', city: 'Mountain View', latitude: 37.422, longitude: -122.085, timezone: 'America/Los_Angeles' };

export function input(over: Partial<CombineInput> = {}): CombineInput {
  return {
    v4: {
      geo: [{ first: v4(8, 0, 0, 0), last: v4(8, 255, 255, 255), value: GEO_US }],
      asn: [{ first: v4(8, 8, 8, 0), last: v4(8, 8, 8, 255), value: { asn: 15169, org: 'Google LLC' } }],
    },
    v6: { geo: [], asn: [] },
    routes: [p4(8, 8, 8, 0, 24, { origins: [15169] })],
    routesMapped: [],
    validate: (_v, _s, _l, origin) => (origin === 15169 ? 'valid' : 'invalid'),
    rir: [],
    bogons: [p4(10, 0, 0, 0, 8, {})],
    unallocated: [p4(8, 9, 0, 0, 16, {})],
    datacenterPublished: [],
    datacenterInferred: [],
    hostingAsns: new Map(),
    tor: [],
    vpn: [],
    vpnBroad: [],
    vpnAsnWide: new Set(),
    proxy: [],
    relay: [],
    crawlers: [],
    resolvers: [],
    drop: [],
    dropAsns: new Set(),
    abuse: [],
    asnTags: new Map(),
    asnClass: new Map(),
    operators: new Map(),
    sources: [],
    unavailable: [],
    buildDate: '2026-08-22T00:00:00.000Z',
    attributionUrl: 'https://example.test/attribution',
    ...over,
  };
}

