/**
 * The precedence rules (rules/classify.ts) against the rules of PRODUCT.md
 * section 3 and the spec's field notes that hold whatever the sources say, for
 * arbitrary facts at an address and arbitrary ASN-keyed sets: a bogon is
 * all nulls and no signals; names are null exactly when their flag is false;
 * is_datacenter iff connection_type is datacenter; a relay is never a VPN;
 * a verified crawler is never VPN, proxy or recent abuse; the
 * connection_type label is authoritative exactly when a provider-published
 * range (or, for a bogon, the registry) decided it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classify, type AddressFacts, type Sets } from '../src/rules/classify.js';
import { scoreSignals } from '../src/result/score.js';
import type { RpkiStatus } from '../src/types.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 2000) });

const ASNS = [0, 64500, 64501, 64502] as const;
const asnArb = fc.constantFrom(...ASNS);
const nameArb = fc.constantFrom('', 'Acme', 'Mullvad');
const opt = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(a, { nil: null });
const rpkiArb = fc.constantFrom<RpkiStatus>('valid', 'invalid', 'not-found');

const factsArb: fc.Arbitrary<AddressFacts> = fc.record({
  geo: fc.constant(null),
  asn: opt(fc.record({ asn: fc.constantFrom(64500, 64501, 64502), org: nameArb })),
  route: opt(fc.array(fc.tuple(asnArb, rpkiArb), { minLength: 1, maxLength: 2 }).map((xs) => ({ origins: xs.map(([a]) => a), rpki: xs.map(([, r]) => r) }))),
  mapped: opt(asnArb),
  rir: opt(fc.record({ date: opt(fc.constant('2001-02-03')), country: opt(fc.constant('DE')) })),
  bogon: fc.boolean(),
  unallocated: fc.boolean(),
  datacenterPublished: opt(fc.record({ provider: fc.constantFrom('AWS', 'Cloudflare'), cdn: fc.boolean(), anycast: fc.boolean() })),
  datacenterInferred: opt(nameArb),
  tor: fc.boolean(),
  vpn: opt(nameArb),
  vpnBroad: opt(nameArb),
  proxy: fc.boolean(),
  relay: opt(fc.constant('iCloud Private Relay')),
  crawler: opt(fc.constantFrom('Googlebot', 'Bingbot')),
  resolver: fc.boolean(),
  drop: fc.boolean(),
  abuse: fc.boolean(),
});

const asnSet = fc.subarray([64500, 64501, 64502]);
const setsArb: fc.Arbitrary<Sets> = fc.record({
  hostingAsns: asnSet.map((xs) => new Map(xs.map((a) => [a, `host-${a}`] as const))),
  dropAsns: asnSet.map((xs) => new Set(xs)),
  asnTags: fc.array(fc.tuple(fc.constantFrom(64500, 64501, 64502), fc.subarray(['dsl', 'mobile', 'satnet', 'vpsh', 'cdn'])), { maxLength: 3 }).map((xs) => new Map(xs.map(([a, t]) => [a, new Set(t)] as const))),
  asnClass: fc.array(fc.tuple(fc.constantFrom(64500, 64501, 64502), fc.constantFrom('T1', 'T2')), { maxLength: 3 }).map((xs) => new Map(xs)),
  operators: fc.array(fc.tuple(fc.constantFrom(64500, 64501, 64502), fc.record({ kind: fc.constantFrom<'mobile' | 'cdn'>('mobile', 'cdn'), name: nameArb, anycast: fc.boolean() })), { maxLength: 2 }).map((xs) => new Map(xs)),
  vpnAsnWide: asnSet.map((xs) => new Set(xs)),
});

describe('precedence rules: what holds for any facts (PRODUCT.md section 3, spec 2.3-2.5)', () => {
  it('property: bogons are all nulls and no signals; names follow their flags; relays and crawlers are never VPN; labels follow the deciding source', () => {
    fc.assert(
      fc.property(factsArb, setsArb, fc.boolean(), (f, sets, hasRoas) => {
        const { geo, network: n, signals: s } = classify(f, sets, hasRoas);
        const isDatacenter = s.connection_type === 'datacenter';
        const risk = scoreSignals({ ...s, is_datacenter: isDatacenter });
        // Special-purpose space is always a bogon; unallocated space only while nothing shows it in use.
        const inUse = f.route !== null || f.mapped !== null || f.asn !== null || f.rir !== null || f.drop;
        expect(n.is_bogon).toBe(f.bogon || (f.unallocated && !inUse));
        if (n.is_bogon) {
          expect(Object.values(geo).every((v) => v === null)).toBe(true);
          expect(n).toMatchObject({ asn: 0, as_org: '', is_announced: false, rpki: null, allocation_date: null, registration_country: null });
          expect(s.connection_type).toBe('unknown');
          expect(s.connection_evidence).toBe('authoritative');
          expect(risk).toEqual({ score: 0, level: 'low', reasons: [] });
          expect(Object.entries(s).filter(([k, v]) => k.startsWith('is_') || k === 'recent_abuse' ? v !== false : k.endsWith('_provider') || k.endsWith('_name') || k === 'vpn_operator' ? v !== null : false)).toEqual([]);
          return;
        }
        expect(f.bogon).toBe(false);
        expect(n.rpki).not.toBeNull();
        if (!hasRoas) expect(n.rpki).toBe('unknown');
        if (n.asn === 0) expect(n.as_org).toBe('');
        expect(n.is_announced).toBe(f.route !== null || f.mapped !== null);
        // Names: null exactly when their flag is false (vpn_operator may be null for a VPN whose list names none).
        expect(s.relay_provider !== null).toBe(s.is_relay);
        expect(s.verified_bot_name !== null).toBe(s.is_verified_bot);
        if (s.vpn_operator !== null) expect(s.is_vpn).toBe(true);
        if (!isDatacenter) expect(s.datacenter_provider).toBeNull();
        // Precedence: a relay range is not a VPN; verified crawlers are never VPN, proxy or recent abuse.
        if (s.is_relay) expect(s.is_vpn).toBe(false);
        if (s.is_verified_bot) expect([s.is_vpn, s.is_proxy, s.recent_abuse]).toEqual([false, false, false]);
        // connection_type: authoritative exactly when a provider-published range decided it.
        expect(s.connection_evidence === 'authoritative').toBe(f.datacenterPublished !== null);
        if (f.datacenterPublished !== null) expect([s.connection_type, s.datacenter_provider]).toEqual(['datacenter', f.datacenterPublished.provider]);
        // Flags that no precedence rule overrides.
        expect(s.is_tor).toBe(f.tor);
        expect(s.is_public_resolver).toBe(f.resolver);
        if (f.drop) expect(s.is_drop_listed).toBe(true);
      }),
    );
  });
});
