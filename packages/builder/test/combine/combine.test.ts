/**
 * The combiner: sources combine per address; precedence rules decide
 * conflicts; the result round-trips through the real snapshot writer/reader
 * and agrees with a naive per-address evaluation of the same rules.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadSnapshot } from '@ipintel/core';
import { bigIntToText, encodeSnapshot } from '@ipintel/core/writer';
import { combine } from '../../src/combine/combine.js';
import type { CombineInput } from '../../src/combine/input.js';
import type { Prefix } from '../../src/feeds/types.js';
import { GEO_US, input, p4, PUBLISHED, v4 } from '../support/combine-input.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 40) });

function build(over: Partial<CombineInput> = {}) {
  return loadSnapshot(encodeSnapshot(combine(input(over)).model));
}

describe('combine', () => {
  it('fills network fields from ASN, routes and RPKI', () => {
    const r = build().check('8.8.8.8');
    expect(r.network).toMatchObject({ asn: 15169, as_org: 'Google LLC', is_announced: true, is_bogon: false, rpki: 'valid' });
    expect(r.geo.city).toBe('Mountain View');
    expect(r.signals.connection_type).toBe('isp');
    const unrouted = build().check('8.10.0.1');
    expect(unrouted.network).toMatchObject({ asn: 0, is_announced: false, is_bogon: false, rpki: 'unknown' });
    expect(unrouted.signals.connection_type).toBe('unknown');
  });

  it('isp only for announced space: an ASN row or an RIR delegation without a route is unknown (PRODUCT.md section 3)', () => {
    // 8.20.0.0/16: Ford-like space, held (an ASN row, an RIR delegation) but announced by no BGP table.
    const held = {
      v4: {
        geo: [{ first: v4(8, 0, 0, 0), last: v4(8, 255, 255, 255), value: GEO_US }],
        asn: [
          { first: v4(8, 8, 8, 0), last: v4(8, 8, 8, 255), value: { asn: 15169, org: 'Google LLC' } },
          { first: v4(8, 20, 0, 0), last: v4(8, 20, 255, 255), value: { asn: 3389, org: 'Held Co' } },
        ],
      },
      rir: [p4(8, 20, 0, 0, 16, { date: '1988-01-01', country: 'US' }), p4(8, 30, 0, 0, 16, { date: '1990-01-01', country: 'US' })],
    };
    const unrouted = build(held);
    for (const ip of ['8.20.0.1', '8.30.0.1']) {
      expect(unrouted.check(ip).network.is_announced).toBe(false);
      expect(unrouted.check(ip).signals.connection_type).toBe('unknown');
    }
    expect(unrouted.check('8.20.0.1').network.asn).toBe(3389);
    // The same space announced, by a BGP table or only by the asmap, is isp.
    const routed = build({ ...held, routes: [p4(8, 8, 8, 0, 24, { origins: [15169] }), p4(8, 20, 0, 0, 16, { origins: [3389] })], routesMapped: [p4(8, 30, 0, 0, 16, { origins: [64500] })] });
    expect(routed.check('8.20.0.1').signals.connection_type).toBe('isp');
    expect(routed.check('8.30.0.1').signals.connection_type).toBe('isp');
    expect(routed.check('8.30.0.1').evidence.routing).toBe('inferred');
  });

  it('unallocated space is a bogon only while nothing shows it in use', () => {
    expect(build().check('8.9.0.1').network.is_bogon).toBe(true);
    const used = build({ routes: [p4(8, 8, 8, 0, 24, { origins: [15169] }), p4(8, 9, 1, 0, 24, { origins: [64500] })] });
    expect(used.check('8.9.0.1').network.is_bogon).toBe(true);
    expect(used.check('8.9.1.1').network).toMatchObject({ is_bogon: false, is_announced: true });
  });

  it('a bogon has no geo, no signals and score 0 whatever other lists say', () => {
    const r = build({ abuse: [p4(10, 0, 0, 0, 8, {})], tor: [p4(10, 1, 1, 1, 32, {})], v4: { geo: [{ first: v4(10, 0, 0, 0), last: v4(10, 255, 255, 255), value: GEO_US }], asn: [] } }).check('10.1.1.1');
    expect(r.network).toEqual({ asn: 0, as_org: '', is_announced: false, is_bogon: true, rpki: null, allocation_date: null, allocation_age_days: null, registration_country: null });
    expect(r.geo.country).toBeNull();
    expect(r.signals.is_tor).toBe(false);
    expect(r.risk.score).toBe(0);
  });

  it('sources combine per address: a Tor exit inside a cloud range is both', () => {
    const r = build({ datacenterPublished: [p4(8, 8, 0, 0, 16, PUBLISHED('AWS'))], tor: [p4(8, 8, 8, 9, 32, {})] }).check('8.8.8.9');
    expect(r.signals).toMatchObject({ is_tor: true, is_datacenter: true, connection_type: 'datacenter', datacenter_provider: 'AWS' });
    expect(r.evidence.connection_type).toBe('authoritative');
    expect(r.risk.reasons).toEqual(['is_tor', 'is_datacenter']);
  });

  it('a relay range is not a VPN, even when a VPN list holds it', () => {
    const over = { relay: [p4(8, 8, 8, 0, 27, { provider: 'iCloud Private Relay' })], vpnBroad: [p4(8, 8, 8, 0, 24, { brand: null })], vpn: [p4(8, 8, 8, 1, 32, { brand: 'x' })] };
    const s = build(over);
    expect(s.check('8.8.8.1').signals).toMatchObject({ is_relay: true, relay_provider: 'iCloud Private Relay', is_vpn: false });
    expect(s.check('8.8.8.100').signals).toMatchObject({ is_relay: false, is_vpn: true });
  });

  it('a Tor exit is not a VPN because an aggregate VPN list holds it; a per-server list still counts', () => {
    const s = build({ tor: [p4(8, 8, 8, 9, 32, {})], vpnBroad: [p4(8, 8, 8, 0, 24, { brand: null })] });
    expect(s.check('8.8.8.9').signals).toMatchObject({ is_tor: true, is_vpn: false });
    expect(s.check('8.8.8.10').signals).toMatchObject({ is_tor: false, is_vpn: true });
    expect(build({ tor: [p4(8, 8, 8, 9, 32, {})], vpn: [p4(8, 8, 8, 9, 32, { brand: 'x' })] }).check('8.8.8.9').signals.is_vpn).toBe(true);
  });

  it('DROP decides over aggregate VPN lists; crawlers are never VPN, proxy or abuse', () => {
    const s = build({
      drop: [p4(8, 8, 8, 0, 28, {})],
      abuse: [p4(8, 8, 8, 0, 24, {}), p4(8, 8, 8, 65, 32, {})],
      vpnBroad: [p4(8, 8, 8, 0, 24, { brand: null })],
      crawlers: [p4(8, 8, 8, 64, 27, { name: 'Googlebot' })],
      proxy: [p4(8, 8, 8, 66, 32, {})],
    });
    expect(s.check('8.8.8.1').signals).toMatchObject({ is_drop_listed: true, recent_abuse: true, is_vpn: false });
    expect(s.check('8.8.8.200').signals).toMatchObject({ is_drop_listed: false, recent_abuse: true, is_vpn: true });
    for (const ip of ['8.8.8.65', '8.8.8.66']) {
      expect(s.check(ip).signals).toMatchObject({ is_verified_bot: true, verified_bot_name: 'Googlebot', is_vpn: false, is_proxy: false, recent_abuse: false });
    }
  });

  it('ASN lists apply to every address the ASN originates', () => {
    const s = build({ dropAsns: new Set([15169]), hostingAsns: new Map([[15169, 'Google']]) });
    expect(s.check('8.8.8.8').signals).toMatchObject({ is_drop_listed: true, connection_type: 'datacenter', datacenter_provider: 'Google' });
    expect(s.check('8.8.8.8').evidence.connection_type).toBe('inferred');
  });

  const tags = (...t: string[]) => new Map([[15169, new Set(t)]]);
  const type = (over: Partial<CombineInput>) => build(over).check('8.8.8.8').signals;

  it('rule: an ASN tag names a connection type only where it is the ASN\'s only eyeball tag', () => {
    expect(type({ asnTags: tags('mobile') }).connection_type).toBe('mobile');
    expect(type({ asnTags: tags('mobile', 'tor') }).connection_type).toBe('mobile');
    expect(type({ asnTags: tags('satnet') }).connection_type).toBe('satellite');
    expect(type({ asnTags: tags('mobile', 'dsl') }).connection_type).toBe('isp');
    expect(type({ asnTags: tags('satnet', 'mobile') }).connection_type).toBe('isp');
    expect(type({ asnTags: tags('satnet'), hostingAsns: new Map([[15169, 'x']]) }).connection_type).toBe('satellite');
  });

  it('rule: ASN-wide and ASN-derived datacenter labels skip eyeball and T1 transit networks', () => {
    expect(type({ asnTags: tags('vpsh') })).toMatchObject({ connection_type: 'datacenter', datacenter_provider: 'Google LLC' });
    expect(type({ asnTags: tags('cdn', 'anycast') })).toMatchObject({ connection_type: 'datacenter' });
    expect(type({ asnTags: tags('vpsh', 'dsl') }).connection_type).toBe('isp');
    expect(type({ asnTags: tags('vpsh'), asnClass: new Map([[15169, 'T1']]) }).connection_type).toBe('isp');
    expect(type({ asnTags: tags('vpsh'), asnClass: new Map([[15169, 'Carrier']]) }).connection_type).toBe('datacenter');
    expect(type({ hostingAsns: new Map([[15169, 'Google']]), asnTags: tags('mobile', 'dsl') }).connection_type).toBe('isp');
    const listed = { datacenterInferred: [p4(8, 8, 8, 0, 24, { provider: 'Hoster' })] };
    expect(type(listed)).toMatchObject({ connection_type: 'datacenter', datacenter_provider: 'Hoster' });
    expect(type({ ...listed, asnTags: tags('dsl') }).connection_type).toBe('isp');
    // A provider-published range is authoritative whatever the ASN's tags say.
    const published = build({ datacenterPublished: [p4(8, 8, 8, 0, 24, PUBLISHED('Google Cloud'))], asnTags: tags('mobile', 'dsl') }).check('8.8.8.8');
    expect(published.signals).toMatchObject({ connection_type: 'datacenter', datacenter_provider: 'Google Cloud' });
    expect(published.evidence.connection_type).toBe('authoritative');
  });

  it('rule: the curated operator table decides over mixed tags (mobile-first operators, CDN operators\' own ASNs)', () => {
    const op = (kind: 'mobile' | 'cdn', anycast = false) => new Map([[15169, { kind, name: 'Op', anycast, why: 'test' }]]);
    expect(type({ operators: op('mobile'), asnTags: tags('mobile', 'dsl') }).connection_type).toBe('mobile');
    expect(type({ operators: op('cdn', true) })).toMatchObject({ connection_type: 'datacenter', datacenter_provider: 'Op', is_anycast: true });
    expect(build({ operators: op('cdn') }).check('8.8.8.8').evidence.connection_type).toBe('inferred');
    expect(type({ operators: op('cdn') }).is_anycast).toBe(false);
  });

  it('rule: a CDN\'s published edge range is never a VPN; anycast comes from the publisher', () => {
    const s = build({
      datacenterPublished: [p4(8, 8, 8, 0, 25, { provider: 'AWS', cdn: true, anycast: false }), p4(8, 8, 8, 128, 25, { provider: 'Cloudflare', cdn: true, anycast: true })],
      vpn: [p4(8, 8, 8, 0, 24, { brand: 'Mullvad' })],
    });
    expect(s.check('8.8.8.1').signals).toMatchObject({ is_vpn: false, vpn_operator: null, is_anycast: false, datacenter_provider: 'AWS' });
    expect(s.check('8.8.8.200').signals).toMatchObject({ is_vpn: false, is_anycast: true });
    expect(build({ datacenterPublished: [p4(8, 8, 8, 0, 24, PUBLISHED('AWS'))], vpn: [p4(8, 8, 8, 0, 24, { brand: 'Mullvad' })] }).check('8.8.8.1').signals.is_vpn).toBe(true);
  });

  it('rule: an aggregate VPN list is no evidence inside an ASN it expands whole; a per-server list still is', () => {
    const s = build({ vpnAsnWide: new Set([15169]), vpnBroad: [p4(8, 8, 8, 0, 24, { brand: null })], vpn: [p4(8, 8, 8, 1, 32, { brand: 'Mullvad' })] });
    expect(s.check('8.8.8.2').signals.is_vpn).toBe(false);
    expect(s.check('8.8.8.1').signals).toMatchObject({ is_vpn: true, vpn_operator: 'Mullvad' });
    expect(build({ vpnBroad: [p4(8, 8, 8, 0, 24, { brand: null })] }).check('8.8.8.2').signals.is_vpn).toBe(true);
  });

  it('rule: vpn_operator names the per-server list\'s operator, else the aggregate\'s; null when not a VPN', () => {
    const s = build({ vpn: [p4(8, 8, 8, 1, 32, { brand: 'Mullvad' }), p4(8, 8, 8, 2, 32, { brand: null })], vpnBroad: [p4(8, 8, 8, 0, 24, { brand: 'Agg' })] });
    expect(s.check('8.8.8.1').signals).toMatchObject({ is_vpn: true, vpn_operator: 'Mullvad' });
    expect(s.check('8.8.8.2').signals).toMatchObject({ is_vpn: true, vpn_operator: null });
    expect(s.check('8.8.8.3').signals).toMatchObject({ is_vpn: true, vpn_operator: 'Agg' });
    expect(s.check('8.8.9.1').signals).toMatchObject({ is_vpn: false, vpn_operator: null });
  });

  it('rule: routing takes the BGP table, else the asmap (evidence inferred); both count as in use', () => {
    const s = build({ routesMapped: [p4(8, 8, 0, 0, 16, { origins: [15169] }), p4(8, 9, 2, 0, 24, { origins: [64500] })] });
    const bgp = s.check('8.8.8.8');
    expect(bgp.network.is_announced).toBe(true);
    expect(bgp.evidence.routing).toBe('authoritative');
    const mapped = s.check('8.8.9.1');
    expect(mapped.network).toMatchObject({ is_announced: true, rpki: 'unknown' });
    expect(mapped.evidence.routing).toBe('inferred');
    expect(s.check('8.9.2.1').network).toMatchObject({ is_bogon: false, is_announced: true }); // unallocated per the old list, mapped now
    expect(s.check('8.9.3.1').network.is_bogon).toBe(true);
    expect(s.check('8.10.0.1').evidence.routing).toBe('authoritative'); // not announced: the BGP table says so
  });

  it('rule: without a BGP table of its IP version, "not announced" is the asmap\'s word alone: routing evidence inferred', () => {
    // The default snapshot's case: no BGP table, only the asmap.
    const asmapOnly = build({ routes: [], routesMapped: [p4(8, 8, 8, 0, 24, { origins: [15169] })] });
    expect(asmapOnly.check('8.8.8.8').evidence.routing).toBe('inferred');
    expect(asmapOnly.check('8.10.0.1').network.is_announced).toBe(false);
    expect(asmapOnly.check('8.10.0.1').evidence.routing).toBe('inferred');
    // An IPv4 table says nothing of IPv6.
    const v4only = build({ routesMapped: [p4(8, 8, 9, 0, 24, { origins: [15169] })] });
    expect(v4only.check('8.10.0.1').evidence.routing).toBe('authoritative');
    expect(v4only.check('2001:db9::1').network.is_announced).toBe(false);
    expect(v4only.check('2001:db9::1').evidence.routing).toBe('inferred');
    expect(v4only.check('10.0.0.1').evidence.routing).toBe('authoritative'); // a bogon: the special-purpose registry decides
  });

  it('rule: DROP-listed space is in use (never a bogon), so it keeps is_drop_listed', () => {
    const r = build({ drop: [p4(8, 9, 4, 0, 24, {})] }).check('8.9.4.1');
    expect(r.network.is_bogon).toBe(false);
    expect(r.signals.is_drop_listed).toBe(true);
  });

  it('rule: RPKI is the route\'s status for the origin shown; unknown when the route has another origin or there is no ROA set', () => {
    expect(build({ routes: [p4(8, 8, 8, 0, 24, { origins: [1, 15169] })] }).check('8.8.8.8').network.rpki).toBe('valid');
    expect(build({ routes: [p4(8, 8, 8, 0, 24, { origins: [1] })] }).check('8.8.8.8').network.rpki).toBe('unknown');
    expect(build({ validate: () => 'invalid' }).check('8.8.8.8').network.rpki).toBe('invalid');
    expect(build({ validate: () => 'not-found' }).check('8.8.8.8').network.rpki).toBe('not-found');
    expect(build({ validate: null }).check('8.8.8.8').network.rpki).toBe('unknown');
  });

  it('rule: a signal with no source in the snapshot says unavailable, for true and false values alike', () => {
    const s = build({ unavailable: ['tor', 'vpn'] });
    expect(s.check('8.8.8.8').evidence).toMatchObject({ tor: 'unavailable', vpn: 'unavailable', routing: 'authoritative', connection_type: 'inferred' });
    expect(s.info.unavailable).toEqual(['tor', 'vpn']);
    expect(build().check('8.8.8.8').evidence.tor).toBe('authoritative');
  });

  it('agrees with a per-address evaluation for random layouts of Tor, VPN, relay and DROP prefixes', () => {
    const pre = fc.record({ c: fc.integer({ min: 0, max: 255 }), d: fc.integer({ min: 0, max: 255 }), len: fc.constantFrom(24, 25, 26, 28, 30, 32) });
    fc.assert(
      fc.property(fc.array(pre, { maxLength: 6 }), fc.array(pre, { maxLength: 6 }), fc.array(pre, { maxLength: 6 }), fc.array(pre, { maxLength: 6 }), (tor, vpn, relay, drop) => {
        const mk = (xs: typeof tor) => xs.map((x) => {
          const size = 2 ** (32 - x.len);
          const off = Math.floor((x.c * 256 + x.d) / size) * size;
          return { version: 4 as const, start: v4(8, 8, 0, 0) + BigInt(off), length: x.len, value: { provider: 'R', brand: null, sblid: null } };
        });
        const T = mk(tor), V = mk(vpn), R = mk(relay), D = mk(drop);
        const s = build({ tor: T, vpnBroad: V, relay: R, drop: D });
        const inside = (ps: Prefix<unknown>[], x: bigint) => ps.some((p) => x >= p.start && x < p.start + (1n << BigInt(32 - p.length)));
        for (const p of [...T, ...V, ...R, ...D]) {
          for (const x of [p.start, p.start + (1n << BigInt(32 - p.length)) - 1n]) {
            const sig = s.check(bigIntToText(4, x)).signals;
            expect(sig.is_tor).toBe(inside(T, x));
            expect(sig.is_relay).toBe(inside(R, x));
            expect(sig.is_drop_listed).toBe(inside(D, x));
            expect(sig.is_vpn).toBe(inside(V, x) && !inside(R, x) && !inside(D, x) && !inside(T, x));
          }
        }
      }),
    );
  });

  it('is deterministic', () => {
    const a = encodeSnapshot(combine(input({ tor: [p4(8, 8, 8, 9, 32, {})] })).model);
    const b = encodeSnapshot(combine(input({ tor: [p4(8, 8, 8, 9, 32, {})] })).model);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
  });
});
