/**
 * Explain sidecars whose checksums are right but whose contents are not what
 * a builder writes (made by hand, or damaged before they were sealed): every
 * explanation asked of one answers or throws a typed `explain_*` error,
 * never a TypeError, and a header cannot make the reader allocate what no
 * body of its size inflates to.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ipIntelErrorOf, modelFromPrefixes } from '@ipintel/testkit';
import { IpIntelError, loadSnapshot, nodeInflate } from '../src/index.js';
import { crc32, encodeSidecar, encodeSnapshot, readSnapshotMeta, snapshotIdentity, type IntervalSectionInput, type PrefixSectionInput, type AsnSectionInput } from '../src/writer.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 300) });

const v4 = (a: number, b: number, c: number, d: number): bigint => BigInt(((a << 24) | (b << 16) | (c << 8) | d) >>> 0);
const snapshot = encodeSnapshot(modelFromPrefixes([{ start: v4(8, 8, 8, 0), length: 24, value: 1 }], [{ start: 0x20010db8n << 96n, length: 32, value: 2 }], 3));
const identity = (() => {
  const meta = readSnapshotMeta(snapshot);
  return { build_date: meta.build_date, identity: snapshotIdentity(meta) };
})();

type Entry = { version: 4 | 6; start: bigint; length: number; value: unknown };
const p4 = (a: number, b: number, c: number, d: number, length: number, value: unknown = null): Entry => ({ version: 4, start: v4(a, b, c, d), length, value });
const p6 = (high: bigint, length: number, value: unknown = null): Entry => ({ version: 6, start: high << 96n, length, value });
const prefixes = (role: PrefixSectionInput<never>['role'], list: Entry[]): PrefixSectionInput<never> =>
  ({ role, prefixes: list, runs: [{ source: 0, count: list.length }], value: (v: unknown) => v }) as unknown as PrefixSectionInput<never>;
const asnTable = (version: 4 | 6, first: bigint, last: bigint, asn: unknown, kind: 'interval' | 'span' = 'interval'): IntervalSectionInput<never> =>
  ({ role: 'asn', version, kind, intervals: [{ first, last, value: asn }], runs: [{ source: 0, count: 1 }], value: (v: unknown) => v }) as unknown as IntervalSectionInput<never>;

/** A sidecar of this snapshot (its identity) holding what the arguments say, whatever its values are. */
function sidecar(parts: { prefixes?: PrefixSectionInput<never>[]; intervals?: IntervalSectionInput<never>[]; asns?: AsnSectionInput[]; roas?: number | null }): Uint8Array {
  return encodeSidecar({ snapshot: identity, roas_source: parts.roas === undefined ? 0 : parts.roas, prefixes: parts.prefixes ?? [], intervals: parts.intervals ?? [], asns: parts.asns ?? [] });
}

/** What an explained check of `ip` throws (an IpIntelError, else the test fails), or 'ok'. */
function outcome(sc: Uint8Array, ip: string): string {
  const intel = loadSnapshot(snapshot, { explain: sc });
  try {
    intel.check(ip, { explain: true });
    return 'ok';
  } catch (e) {
    if (e instanceof IpIntelError) return e.code;
    throw e;
  }
}

const asn4 = asnTable(4, v4(8, 8, 8, 0), v4(8, 8, 8, 255), 64500);

describe('a crafted sidecar is refused as explain_corrupt, never a TypeError', () => {
  it('a value of the wrong shape for its role', () => {
    const cases: [string, Parameters<typeof sidecar>[0]][] = [
      ['route null', { prefixes: [prefixes('routes', [p4(8, 8, 8, 0, 24, null)])], intervals: [asn4] }],
      ['route a number', { prefixes: [prefixes('routes', [p4(8, 8, 8, 0, 24, 5)])], intervals: [asn4] }],
      ['route without rpki', { prefixes: [prefixes('routes', [p4(8, 8, 8, 0, 24, { origins: [64500] })])], intervals: [asn4], roas: null }],
      ['asmap null', { prefixes: [prefixes('routesMapped', [p4(8, 8, 8, 0, 24, null)])], intervals: [asn4] }],
      ['operator null', { intervals: [asn4], asns: [{ role: 'operators', entries: [[64500, null, 0]] }] }],
      ['an ASN table without ASNs (a span)', { intervals: [asnTable(4, v4(8, 8, 8, 0), v4(8, 8, 8, 255), null, 'span')] }],
      ['an IPv6 route null', { prefixes: [prefixes('routes', [p6(0x20010db8n, 32, null)])], intervals: [asnTable(6, 0x20010db8n << 96n, (0x20010db9n << 96n) - 1n, 64500)] }],
    ];
    for (const [name, parts] of cases) {
      const ip = name.includes('IPv6') ? '2001:db8::1' : '8.8.8.8';
      expect([name, outcome(sidecar(parts), ip)]).toEqual([name, 'explain_corrupt']);
    }
    // The same sidecars with values of the right shape explain (or differ from the snapshot: explain_mismatch).
    const good = sidecar({ prefixes: [prefixes('routes', [p4(8, 8, 8, 0, 24, { origins: [64500], rpki: ['unknown'] })])], intervals: [asn4], asns: [{ role: 'operators', entries: [[64500, { kind: 'cdn', name: 'T', anycast: false }, 0]] }] });
    expect(['ok', 'explain_mismatch']).toContain(outcome(good, '8.8.8.8'));
  });
});

/** The sidecar with its body (inflated) edited, deflated again and every size and checksum sealed. */
function resealed(sc: Uint8Array, edit: (raw: number[]) => void): Uint8Array {
  const view = new DataView(sc.buffer, sc.byteOffset, sc.byteLength);
  const headLength = view.getUint32(12, true);
  const header = JSON.parse(new TextDecoder().decode(sc.subarray(20, 20 + headLength))) as { body: object };
  const raw = Array.from(inflateRawSync(sc.subarray(20 + headLength)));
  edit(raw);
  const body = deflateRawSync(Uint8Array.from(raw));
  const head = new TextEncoder().encode(JSON.stringify({ ...header, body: { raw: raw.length, stored: body.length, checksum: crc32(body) } }));
  const out = new Uint8Array(20 + head.length + body.length);
  out.set(sc.subarray(0, 20));
  new DataView(out.buffer).setUint32(12, head.length, true);
  new DataView(out.buffer).setUint32(16, crc32(head), true);
  out.set(head, 20);
  out.set(body, 20 + head.length);
  return out;
}

/** A sidecar with sections of every kind, both families. */
const full = sidecar({
  prefixes: [
    prefixes('routes', [p4(8, 8, 8, 0, 24, { origins: [64500], rpki: ['valid'] }), p6(0x20010db8n, 32, { origins: [64500], rpki: ['unknown'] })]),
    prefixes('routesMapped', [p4(8, 8, 0, 0, 16, [64500]), p6(0x20010db8n, 32, [64500])]),
    prefixes('rir', [p4(8, 0, 0, 0, 8, { date: '2020-01-01', country: 'TL' })]),
    prefixes('tor', [p4(8, 8, 8, 9, 32), p6(0x20010db8n, 48)]),
    prefixes('vpn', [p4(8, 8, 4, 0, 24, 'V')]),
    prefixes('datacenterPublished', [p4(8, 8, 8, 0, 24, { provider: 'P', cdn: true, anycast: true })]),
    prefixes('bogons', [p4(10, 0, 0, 0, 8), p6(0xfe800000n, 10)]),
  ],
  intervals: [
    asn4,
    asnTable(6, 0x20010db8n << 96n, (0x20010db9n << 96n) - 1n, 64500),
    { role: 'geo', version: 4, kind: 'span', intervals: [{ first: v4(8, 0, 0, 0), last: v4(8, 255, 255, 255), value: null }], runs: [{ source: 0, count: 1 }], value: () => null } as unknown as IntervalSectionInput<never>,
  ],
  asns: [
    { role: 'operators', entries: [[64500, { kind: 'cdn', name: 'T', anycast: true }, 0]] },
    { role: 'asnTags', entries: [[64500, 'cdn', 0]] },
    { role: 'dropAsns', entries: [[64500, null, 0]] },
  ],
});
const IPS = ['8.8.8.8', '8.8.8.9', '8.8.4.4', '10.1.1.1', '2001:db8::1', '2001:db8:0:1::1', 'fe80::1', '::ffff:8.8.8.9', '0.0.0.0', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'];

describe('a damaged body (checksums right)', () => {
  it('a section named in bytes that are not UTF-8 is explain_corrupt', () => {
    // The first section's name ("routes") with its first byte made 0xff.
    const bad = resealed(full, (raw) => (raw[1] = 0xff));
    expect(outcome(bad, '8.8.8.8')).toBe('explain_corrupt');
  });

  it('property: bytes of the body changed, added or removed: every explanation is a typed error or an answer', () => {
    const edit = fc.tuple(fc.nat(), fc.constantFrom('set', 'insert', 'delete'), fc.oneof(fc.nat(255), fc.constantFrom(0, 0x7f, 0x80, 0xff, 3, 4, 6)));
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), (edits) => {
        const bad = resealed(full, (raw) => {
          for (const [at, op, b] of edits) {
            const i = at % raw.length;
            if (op === 'set') raw[i] = b;
            else if (op === 'insert') raw.splice(i, 0, b);
            else raw.splice(i, 1);
          }
        });
        const intel = loadSnapshot(snapshot, { explain: bad });
        for (const ip of IPS) {
          try {
            intel.check(ip, { explain: true });
          } catch (e) {
            if (!(e instanceof IpIntelError) || !e.code.startsWith('explain_')) throw e;
          }
        }
      }),
    );
  });
});

describe('a header that claims a body larger than its stored bytes inflate to', () => {
  /** The sidecar with its header's raw body size replaced (the header's checksum sealed again). */
  function claiming(sc: Uint8Array, raw: number): Uint8Array {
    const headLength = new DataView(sc.buffer, sc.byteOffset, sc.byteLength).getUint32(12, true);
    const header = JSON.parse(new TextDecoder().decode(sc.subarray(20, 20 + headLength))) as { body: { raw: number } };
    const head = new TextEncoder().encode(JSON.stringify({ ...header, body: { ...header.body, raw } }));
    const out = new Uint8Array(20 + head.length + sc.length - 20 - headLength);
    out.set(sc.subarray(0, 20));
    new DataView(out.buffer).setUint32(12, head.length, true);
    new DataView(out.buffer).setUint32(16, crc32(head), true);
    out.set(head, 20);
    out.set(sc.subarray(20 + headLength), 20 + head.length);
    return out;
  }

  it('is explain_corrupt before the inflater is asked for a buffer of that size (2 GB for a few hundred bytes: every inflater allocates it first)', () => {
    for (const raw of [2 ** 31, 2 ** 40, -1, 1.5]) {
      const asked: number[] = [];
      const inflate = (stored: Uint8Array, rawSize: number): Uint8Array => {
        asked.push(rawSize);
        return nodeInflate(stored, Math.min(rawSize, 1 << 20));
      };
      const intel = loadSnapshot(snapshot, { explain: claiming(full, raw), inflate });
      expect(ipIntelErrorOf(() => intel.check('8.8.8.8', { explain: true })).code).toBe('explain_corrupt');
      expect(asked).not.toContain(raw);
    }
  });
});

describe('a sidecar of another build', () => {
  it('is explain_mismatch from its header: its body is not inflated (nor decoded) at each explanation refused', () => {
    const other = encodeSidecar({ snapshot: { ...identity, identity: `${identity.build_date}#00000000` }, roas_source: null, prefixes: [prefixes('tor', [p4(8, 8, 8, 9, 32)])], intervals: [asn4], asns: [] });
    let inflated = 0;
    const intel = loadSnapshot(snapshot, {
      explain: other,
      inflate: (stored, rawSize) => {
        inflated++;
        return nodeInflate(stored, rawSize);
      },
    });
    inflated = 0;
    for (let k = 0; k < 3; k++) {
      expect(intel.canExplain()).toBe(false);
      expect(ipIntelErrorOf(() => intel.check('8.8.8.8', { explain: true })).code).toBe('explain_mismatch');
    }
    expect(inflated).toBe(0);
  });
});

describe("the header's build date", () => {
  // An explanation shows the header's build_date; the identity, compared with the snapshot's, starts with the snapshot's.
  it('is explain_corrupt unless it is an ISO UTC time and the one its identity starts with', () => {
    const made = (build_date: string): Uint8Array => encodeSidecar({ snapshot: { build_date, identity: identity.identity }, roas_source: 0, prefixes: [], intervals: [asn4], asns: [] });
    expect(outcome(made('x'), '8.8.8.8')).toBe('explain_corrupt');
    expect(outcome(made('1999-01-01T00:00:00.000Z'), '8.8.8.8')).toBe('explain_corrupt');
    // With the snapshot's date the header is read; this hand-made body then disagrees with the snapshot's answer.
    expect(outcome(made(identity.build_date), '8.8.8.8')).toBe('explain_mismatch');
  });
});
