import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toThirdParty } from '../src/portable.js';
import { nativeArb } from '@ipintel/testkit';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 1000) });

describe('thirdparty shape (spec 2.7)', () => {
  it('maps every native field as the spec says, omitting what is unknown', () => {
    fc.assert(
      fc.property(nativeArb, (n) => {
        const t = toThirdParty(n);
        const g = n.geo;
        expect(t.ip).toBe(n.ip);
        expect(t.city).toBe(g.city ?? undefined);
        expect(t.region).toBe(g.region ?? undefined);
        expect(t.country).toBe(g.country_code ?? undefined);
        expect(t.timezone).toBe(g.timezone ?? undefined);
        if (g.latitude !== null && g.longitude !== null) {
          const [lat, lon] = t.loc!.split(',').map(Number);
          expect([lat, lon]).toEqual([g.latitude, g.longitude]);
          expect(t.loc).toBe(`${String(g.latitude)},${String(g.longitude)}`);
        } else {
          expect('loc' in t).toBe(false);
        }
        if (n.network.asn === 0) expect('org' in t).toBe(false);
        else expect(t.org).toBe(`AS${n.network.asn} ${n.network.as_org}`.trimEnd());
        expect(t.privacy).toEqual({
          vpn: n.signals.is_vpn,
          proxy: n.signals.is_proxy,
          tor: n.signals.is_tor,
          relay: n.signals.is_relay,
          hosting: n.signals.connection_type === 'datacenter',
          service: n.signals.relay_provider ?? n.signals.datacenter_provider ?? '',
        });
        // Flags appear only when true, as in the layout.
        expect('bogon' in t).toBe(n.network.is_bogon);
        expect(toThirdParty({ ...n, network: { ...n.network, is_bogon: true } }).bogon).toBe(true);
        expect(t.anycast).toBe(n.signals.is_anycast ? true : undefined);
        // Nothing of risk, evidence or the provider field leaks.
        expect(Object.keys(t).filter((k) => !['ip', 'city', 'region', 'country', 'loc', 'org', 'timezone', 'bogon', 'anycast', 'privacy'].includes(k))).toEqual([]);
        expect(JSON.parse(JSON.stringify(t))).toEqual(t);
      }),
    );
  });

  it('keeps the layout order of keys', () => {
    fc.assert(
      fc.property(nativeArb, (n) => {
        const order = ['ip', 'city', 'region', 'country', 'loc', 'org', 'timezone', 'bogon', 'anycast', 'privacy'];
        const keys = Object.keys(toThirdParty(n));
        expect(keys).toEqual(order.filter((k) => keys.includes(k)));
      }),
    );
  });
});
