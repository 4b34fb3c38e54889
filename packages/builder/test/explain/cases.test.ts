/**
 * Explain cases on hand-made inputs (the combiner tests' input, one source
 * row per role, named after it), through the real writer, sidecar writer and portable reader: the
 * rule and sources named for a Tor exit inside AWS, a CDN edge in a VPN
 * aggregate, an address only the asmap maps, a mobile operator of the
 * curated table, a bogon; and the typed errors for a missing, foreign or
 * corrupt sidecar — never a crash or a wrong explanation.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadSnapshot, type ExplanationField, type IpIntel } from '@ipintel/core';
import { crc32, encodeSnapshot, readSnapshotMeta } from '@ipintel/core/writer';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { ipIntelErrorOf, sourceRow } from '@ipintel/testkit';
import { sidecarOf } from '../../src/build/sidecar.js';
import { combine } from '../../src/combine/combine.js';
import { OPERATORS } from '../../src/feeds/curated/operators.js';
import type { AsnRole, CombineInput, PrefixRole, Provenance } from '../../src/combine/input.js';
import { input as baseInput, p4, v4 } from '../support/combine-input.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 60) });

const PREFIX_ROLES: PrefixRole[] = ['routes', 'routesMapped', 'rir', 'bogons', 'unallocated', 'datacenterPublished', 'datacenterInferred', 'tor', 'vpn', 'vpnBroad', 'proxy', 'relay', 'crawlers', 'resolvers', 'drop', 'abuse'];
const ASN_ROLES: AsnRole[] = ['hostingAsns', 'asnClass', 'operators', 'dropAsns', 'vpnAsnWide'];
const ROWS = [...PREFIX_ROLES, ...ASN_ROLES, 'asnTags', 'asn', 'geo', 'roas'];

type Over = Partial<Omit<CombineInput, 'provenance' | 'sources'>>;

/** The combiner tests' input (support/combine-input.ts) plus `over`, with one source row per role and its provenance. */
function input(over: Over = {}): CombineInput {
  const base: Omit<CombineInput, 'provenance'> = baseInput({ sources: ROWS.map((r, i) => sourceRow(r, `2026-08-${String(1 + (i % 28)).padStart(2, '0')}`)), ...over });
  const row = (r: string): number => ROWS.indexOf(r);
  const run = (r: string, n: number) => (n === 0 ? [] : [{ source: row(r), count: n }]);
  const provenance: Provenance = {
    prefixes: Object.fromEntries(PREFIX_ROLES.map((r) => [r, run(r, base[r].length)])) as unknown as Provenance['prefixes'],
    v4: { geo: run('geo', base.v4.geo.length), asn: run('asn', base.v4.asn.length) },
    v6: { geo: run('geo', base.v6.geo.length), asn: run('asn', base.v6.asn.length) },
    asns: Object.fromEntries(ASN_ROLES.map((r) => [r, new Map([...base[r].keys()].map((a) => [a, row(r)]))])) as unknown as Provenance['asns'],
    asnTags: new Map([...base.asnTags].map(([a, tags]) => [a, new Map([...tags].map((t) => [t, row('asnTags')]))])),
    roas: base.validate === null ? null : row('roas'),
  };
  return { ...base, provenance };
}

function built(over: Over = {}): { snapshot: Uint8Array; sidecar: Uint8Array } {
  const i = input(over);
  const { model } = combine(i);
  const snapshot = encodeSnapshot(model);
  return { snapshot, sidecar: sidecarOf(i, model, readSnapshotMeta(snapshot)) };
}

function explainer(over: Over = {}): IpIntel {
  const b = built(over);
  return loadSnapshot(b.snapshot, { explain: b.sidecar });
}

/**
 * The sidecar with the prefix lengths of role `role`'s IPv6 section edited,
 * its body deflated again and every checksum and size sealed (the layout of
 * core's explain/format.ts: prelude, JSON header, deflated sections).
 */
function withSection6(sidecar: Uint8Array, role: string, edit: (lengths: Uint8Array) => void, family: 4 | 6 = 6): Uint8Array {
  const view = new DataView(sidecar.buffer, sidecar.byteOffset, sidecar.byteLength);
  const headLength = view.getUint32(12, true);
  const header = JSON.parse(new TextDecoder().decode(sidecar.subarray(20, 20 + headLength))) as { body: { raw: number; stored: number; checksum: number } };
  const raw = new Uint8Array(inflateRawSync(sidecar.subarray(20 + headLength)));
  let pos = 0;
  const uint = (): number => {
    let n = 0;
    for (let scale = 1; ; scale *= 128) {
      const b = raw[pos++]!;
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n;
    }
  };
  const skip = (count: number): void => {
    for (let i = 0; i < count; i++) while (raw[pos++]! >= 0x80);
  };
  const text = (): string => {
    const len = uint();
    pos += len;
    return new TextDecoder().decode(raw.subarray(pos - len, pos));
  };
  let found = false;
  while (pos < raw.length) {
    const name = text();
    const kind = raw[pos++]!; // 0 prefix, 1 interval, 2 span, 3 asn
    const version = raw[pos++]!;
    const n = uint();
    text();
    if (kind === 0) {
      skip(n);
      if (name === role && version === family) {
        edit(raw.subarray(pos, pos + n));
        found = true;
      }
      pos += n;
      skip(2 * n);
    } else skip((kind === 1 ? 4 : 3) * n);
  }
  if (!found) throw new Error(`no IPv${family} section of ${role}`);
  const body = new Uint8Array(deflateRawSync(raw));
  header.body = { ...header.body, stored: body.length, checksum: crc32(body) };
  const head = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(20 + head.length + body.length);
  out.set(sidecar.subarray(0, 20));
  const o = new DataView(out.buffer);
  o.setUint32(12, head.length, true);
  o.setUint32(16, crc32(head), true);
  out.set(head, 20);
  out.set(body, 20 + head.length);
  return out;
}

const field = (intel: IpIntel, ip: string, name: string): ExplanationField => intel.check(ip, { explain: true }).explanation!.fields.find((f) => f.field === name)!;
const roles = (f: ExplanationField): string[] => f.sources.map((s) => s.role);

describe('explain: the rule and sources of each case', () => {
  it('a Tor exit inside AWS: both explained, each by its own source', () => {
    const s = explainer({ datacenterPublished: [p4(8, 8, 0, 0, 16, { provider: 'AWS', cdn: false, anycast: false })], tor: [p4(8, 8, 8, 9, 32, {})] });
    expect(field(s, '8.8.8.9', 'signals.is_tor')).toMatchObject({ value: true, rule: 'listed', sources: [{ source: 'tor', matched: '8.8.8.9/32', data_date: '2026-08-08' }] });
    expect(field(s, '8.8.8.9', 'signals.connection_type')).toMatchObject({ value: 'datacenter', rule: 'connection-published', sources: [{ source: 'datacenterPublished', matched: '8.8.0.0/16', value: { provider: 'AWS' } }] });
    expect(field(s, '8.8.8.9', 'network.rpki')).toMatchObject({
      value: 'valid',
      rule: 'rpki-route',
      sources: [{ source: 'routes', matched: '8.8.8.0/24', value: { origins: [15169], rpki: ['valid'] } }, { source: 'roas', matched: '8.8.8.0/24', value: 'AS15169 valid' }, { source: 'asn' }],
    });
  });

  it("a CDN edge in a VPN aggregate: rule 4 says not VPN, naming the edge range and the aggregate", () => {
    const s = explainer({ datacenterPublished: [p4(8, 8, 8, 0, 24, { provider: 'CloudFront', cdn: true, anycast: false })], vpnBroad: [p4(8, 8, 0, 0, 16, { brand: null })] });
    const f = field(s, '8.8.8.8', 'signals.is_vpn');
    expect(f).toMatchObject({ value: false, rule: 'cdn-edge-not-vpn' });
    expect(roles(f)).toEqual(['datacenterPublished', 'vpnBroad']);
    expect(f.sources[1]!.matched).toBe('8.8.0.0/16');
  });

  it('an address only the asmap maps: routing inferred, RPKI unknown', () => {
    const s = explainer({ routesMapped: [p4(9, 9, 0, 0, 16, { origins: [19281] })], v4: { geo: [], asn: [{ first: v4(9, 9, 9, 0), last: v4(9, 9, 9, 255), value: { asn: 19281, org: 'Quad9' } }] } });
    const r = s.check('9.9.9.9', { explain: true });
    expect(r.evidence.routing).toBe('inferred');
    const f = r.explanation!.fields.find((x) => x.field === 'network.is_announced')!;
    expect(f).toMatchObject({ value: true, rule: 'routing-asmap', sources: [{ role: 'routesMapped', matched: '9.9.0.0/16', value: [19281] }] });
    expect(field(s, '9.9.9.9', 'network.rpki').rule).toBe('rpki-unknown');
  });

  it('a mobile operator of the curated table: rule 8, with the table and the ASN row', () => {
    // T-Mobile US (AS21928) is tagged both dsl and mobile: the tags alone would say isp.
    const s = explainer({
      operators: OPERATORS,
      asnTags: new Map([[21928, new Set(['dsl', 'mobile'])]]),
      v4: { geo: [], asn: [{ first: v4(172, 32, 0, 0), last: v4(172, 63, 255, 255), value: { asn: 21928, org: 'T-Mobile USA, Inc.' } }] },
    });
    const f = field(s, '172.58.1.1', 'signals.connection_type');
    expect(f).toMatchObject({ value: 'mobile', rule: 'connection-operator', sources: [{ role: 'operators', matched: 'AS21928', value: { kind: 'mobile', name: 'T-Mobile US' } }, { role: 'asn', matched: '172.32.0.0-172.63.255.255' }] });
  });

  it('a bogon: the bogon rule decides every field, a Tor listing there changes nothing', () => {
    const s = explainer({ tor: [p4(10, 1, 1, 1, 32, {})] });
    for (const f of s.check('10.1.1.1', { explain: true }).explanation!.fields) expect(f, f.field).toMatchObject({ rule: 'bogon-special', sources: [{ source: 'bogons', matched: '10.0.0.0/8' }] });
  });

  it('the aggregate inside an ASN it expands whole, and ASN-DROP', () => {
    const s = explainer({ vpnBroad: [p4(8, 8, 8, 0, 24, { brand: null })], vpnAsnWide: new Set([15169]) });
    expect(field(s, '8.8.8.8', 'signals.is_vpn')).toMatchObject({ value: false, rule: 'vpn-asn-wide' });
    const d = explainer({ dropAsns: new Set([15169]) });
    expect(field(d, '8.8.8.8', 'signals.is_drop_listed')).toMatchObject({ value: true, rule: 'drop-asn', sources: [{ source: 'dropAsns', matched: 'AS15169' }, { source: 'asn' }] });
  });

  it('property: random prefix sets explain every probed address, each named prefix holding it', () => {
    const prefix = fc.tuple(fc.nat(255), fc.nat(255), fc.integer({ min: 8, max: 32 })).map(([a, b, len]) => {
      const start = (v4(8, a, b, 0) >> BigInt(32 - len)) << BigInt(32 - len);
      return { version: 4 as const, start, length: len };
    });
    const list = fc.array(prefix, { maxLength: 6 });
    fc.assert(
      fc.property(list, list, list, list, fc.array(fc.nat(0xffffff), { minLength: 5, maxLength: 5 }), (tor, vpnBroad, relay, dc, probes) => {
        const s = explainer({
          tor: tor.map((p) => ({ ...p, value: {} })),
          vpnBroad: vpnBroad.map((p) => ({ ...p, value: { brand: 'B' } })),
          relay: relay.map((p) => ({ ...p, value: { provider: 'R' } })),
          datacenterPublished: dc.map((p) => ({ ...p, value: { provider: 'D', cdn: true, anycast: false } })),
        });
        for (const low of probes) {
          const ip = `8.${low >> 16}.${(low >> 8) & 255}.${low & 255}`;
          const r = s.check(ip, { explain: true });
          for (const f of r.explanation!.fields) {
            for (const src of f.sources.filter((x) => x.matched.includes('/'))) {
              const [start, len] = src.matched.split('/');
              const first = BigInt(start!.split('.').reduce((a, b) => a * 256 + Number(b), 0));
              const addr = BigInt(ip.split('.').reduce((a, b) => a * 256 + Number(b), 0));
              expect(addr >= first && addr < first + (1n << BigInt(32 - Number(len)))).toBe(true);
            }
          }
        }
      }),
    );
  });
});

describe('explain: typed errors', () => {
  it('no sidecar: explain_unavailable; check() without explain works as before', () => {
    const s = loadSnapshot(built().snapshot);
    expect(s.check('8.8.8.8').network.asn).toBe(15169);
    expect(ipIntelErrorOf(() => s.check('8.8.8.8', { explain: true })).code).toBe('explain_unavailable');
    expect(ipIntelErrorOf(() => s.checkBatch(['8.8.8.8'], { explain: true })).code).toBe('explain_unavailable');
  });

  it('explain must be a boolean', () => {
    expect(ipIntelErrorOf(() => explainer().check('8.8.8.8', { explain: 'yes' as unknown as boolean })).code).toBe('invalid_input');
  });

  it("the sidecar of another build: explain_mismatch", () => {
    const a = built();
    const b = built({ tor: [p4(8, 8, 8, 9, 32, {})] });
    expect(ipIntelErrorOf(() => loadSnapshot(a.snapshot, { explain: b.sidecar }).check('8.8.8.8', { explain: true })).code).toBe('explain_mismatch');
  });

  it('a sidecar that does not re-derive the answer (same identity, other facts): explain_mismatch, never a wrong explanation', () => {
    const withTor = input({ tor: [p4(8, 8, 8, 9, 32, {})] });
    const { model } = combine(withTor);
    const snapshot = encodeSnapshot(model);
    // The sidecar written from an input without the Tor listing, stamped with this snapshot's identity.
    const lying = sidecarOf(input(), model, readSnapshotMeta(snapshot));
    const s = loadSnapshot(snapshot, { explain: lying });
    expect(s.check('8.8.8.8', { explain: true }).explanation).toBeDefined();
    const e = ipIntelErrorOf(() => s.check('8.8.8.9', { explain: true }));
    expect(e.code).toBe('explain_mismatch');
    expect(e.message).toMatch(/is_tor/);
  });

  it('property: a corrupt sidecar (a flipped byte, truncated, empty, garbage) is explain_corrupt, never a crash', () => {
    const { snapshot, sidecar } = built({ tor: [p4(8, 8, 8, 9, 32, {})] });
    fc.assert(
      fc.property(fc.nat(sidecar.length - 1), fc.integer({ min: 1, max: 255 }), (at, xor) => {
        const bad = sidecar.slice();
        bad[at]! ^= xor;
        const e = ipIntelErrorOf(() => loadSnapshot(snapshot, { explain: bad }).check('8.8.8.9', { explain: true }));
        expect(['explain_corrupt', 'explain_mismatch']).toContain(e.code);
      }),
    );
    for (const bad of [sidecar.subarray(0, sidecar.length - 7), sidecar.subarray(0, 10), new Uint8Array(0), new TextEncoder().encode('not a sidecar at all, just text')]) {
      expect(ipIntelErrorOf(() => loadSnapshot(snapshot, { explain: bad }).check('8.8.8.9', { explain: true })).code).toBe('explain_corrupt');
    }
  });

  it('a body whose stream inflates past its size (checksums right) is explain_corrupt, found as the inflate passes it', () => {
    const i = input({ tor: [p4(8, 8, 8, 9, 32, {})] });
    const { model } = combine(i);
    const snapshot = encodeSnapshot(model);
    // The body deflated with 64 MB of zeros after it: the header keeps the body's own size.
    const long = sidecarOf(i, model, readSnapshotMeta(snapshot), (raw, level) => deflateRawSync(Buffer.concat([raw, Buffer.alloc(64 << 20)]), { level }));
    const e = ipIntelErrorOf(() => loadSnapshot(snapshot, { explain: long }).check('8.8.8.9', { explain: true }));
    expect([e.code, e.message]).toEqual(['explain_corrupt', expect.stringMatching(/the body inflates to the wrong size/)]);
  });

  it('an IPv6 section is read on the first IPv6 explanation: a corrupt one (checksums right) fails IPv6 explanations only, every time', () => {
    const tor6 = { version: 6 as const, start: 0x20010db8n << 96n, length: 32, value: {} };
    const { snapshot, sidecar } = built({ tor: [p4(8, 8, 8, 9, 32, {}), tor6] });
    const good = loadSnapshot(snapshot, { explain: sidecar });
    expect(roles(field(good, '2001:db8::1', 'signals.is_tor'))).toContain('tor');
    const bad = loadSnapshot(snapshot, { explain: withSection6(sidecar, 'tor', (lengths) => (lengths[0] = 200)) });
    expect(roles(field(bad, '8.8.8.9', 'signals.is_tor'))).toContain('tor');
    for (let k = 0; k < 2; k++) {
      const e = ipIntelErrorOf(() => bad.check('2001:db8::1', { explain: true }));
      expect([e.code, e.message]).toEqual(['explain_corrupt', expect.stringMatching(/not a valid IPv6 prefix/)]);
    }
    expect(roles(field(bad, '8.8.8.9', 'signals.is_tor'))).toContain('tor');
  });

  it('an IPv4 prefix with host bits set, or longer than 32, is explain_corrupt (checksums right); a /32 and a /16 without host bits are prefixes', () => {
    const { snapshot, sidecar } = built({ tor: [p4(8, 8, 8, 9, 32, {}), p4(9, 0, 0, 0, 8, {})] });
    for (const [edit, ok] of [
      [(l: Uint8Array) => (l[0] = 24), false], // 8.8.8.9/24: host bits
      [(l: Uint8Array) => (l[1] = 33), false],
      [(l: Uint8Array) => (l[1] = 7), false], // 9.0.0.0/7: host bits
      [(l: Uint8Array) => (l[1] = 16), true], // 9.0.0.0/16
    ] as const) {
      const intel = loadSnapshot(snapshot, { explain: withSection6(sidecar, 'tor', edit, 4) });
      if (ok) expect(intel.check('9.0.0.1', { explain: true }).explanation).toBeDefined();
      else expect(ipIntelErrorOf(() => intel.check('9.0.0.1', { explain: true })).message).toMatch(/not a valid IPv4 prefix/);
    }
  });

  it('check() and checkBatch() without explain never read the sidecar', () => {
    let reads = 0;
    const s = loadSnapshot(built().snapshot, {
      explain: () => {
        reads++;
        return new Uint8Array(0);
      },
    });
    s.check('8.8.8.8');
    s.check('8.8.8.8', { format: 'thirdparty', explain: true });
    s.checkBatch(['8.8.8.8', '10.0.0.1']);
    expect(reads).toBe(0);
  });
});
