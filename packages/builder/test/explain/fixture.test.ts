/**
 * Explain on the fixture snapshot, built from fixtures/feeds as `ipintel
 * build --feeds` builds the world one (with its sidecar): for random
 * addresses of both families the explanation's fields are check()'s, every
 * named source holds the named prefix when its fixture file is read again
 * with its adapter, and every prefix holds the address; the golden cases
 * name the sources and rules the precedence list says.
 */
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IpIntelError, open, openSync, parseAddress, type CheckResult, type ExplanationField, type IpIntel } from '@ipintel/core';
import { addressToBigInt } from '@ipintel/core/writer';
import { REPO_ROOT, tempDir } from '@ipintel/testkit';
import { buildSnapshot } from '../../src/build/build.js';
import { FEEDS } from '../../src/feeds/registry.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 200) });

const feeds = join(REPO_ROOT, 'fixtures/feeds');
const tmp = tempDir('ipintel-explain-');
let intel: IpIntel;

afterAll(() => tmp.cleanup());
beforeAll(async () => {
  const out = join(tmp.dir, 'fixture.ipintel');
  const report = await buildSnapshot({ out, feeds, buildDate: '2026-08-22T00:00:00.000Z', attributionUrl: 'https://example.test/attribution' });
  expect(report.explain?.path).toBe(`${out}.explain`);
  intel = openSync(out);
}, 120_000);

/** What each source's fixture files hold, read again with the feeds' adapters: prefixes, ranges and ASNs by source row id. */
interface Holds {
  prefixes: Set<string>;
  roas: { version: 4 | 6; start: bigint; length: number; maxLength: number; asn: number }[];
  ranges: { version: 4 | 6; first: bigint; last: bigint }[];
  asns: Set<number>;
}
const holds = new Map<string, Holds>();
function sourceHolds(id: string): Holds {
  if (holds.size === 0) {
    for (const feed of FEEDS) {
      if (feed.use === 'context') continue;
      let bytes: Uint8Array;
      if (feed.origin === 'built-in') bytes = new Uint8Array(0);
      else if (existsSync(join(feeds, feed.path))) bytes = readFileSync(join(feeds, feed.path));
      else continue;
      const result = feed.read(bytes) as {
        source: { id: string };
        prefixes?: { version: 4 | 6; start: bigint; length: number }[];
        ranges?: { version?: 4 | 6; first: bigint; last: bigint }[];
        asns?: Map<number, unknown>;
        roas?: Holds['roas'];
      };
      const h = holds.get(result.source.id) ?? { prefixes: new Set<string>(), roas: [], ranges: [], asns: new Set<number>() };
      h.roas.push(...(result.roas ?? []));
      holds.set(result.source.id, h);
      for (const p of result.prefixes ?? []) h.prefixes.add(`${p.version}|${p.start}|${p.length}`);
      const family = (feed as { path?: string }).path?.includes('ipv6') ? 6 : 4;
      for (const r of result.ranges ?? []) h.ranges.push({ version: r.version ?? family, first: r.first, last: r.last });
      for (const a of result.asns?.keys() ?? []) h.asns.add(a);
    }
  }
  const h = holds.get(id);
  if (h === undefined) throw new Error(`no fixture file of source ${id}`);
  return h;
}

const v4Arb = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((b) => b.join('.'));
/** Addresses near the fixtures' listed ones (same /16), so that most runs hit sources. */
const GOLDEN = (JSON.parse(readFileSync(join(REPO_ROOT, 'fixtures/golden/cases.json'), 'utf8')) as { cases: { ip: string }[] }).cases.map((c) => c.ip);
const nearArb = fc.tuple(fc.constantFrom(...GOLDEN.filter((ip) => !ip.includes(':'))), fc.nat(65535)).map(([ip, low]) => {
  const [a, b] = ip.split('.');
  return `${a}.${b}.${low >> 8}.${low & 255}`;
});
const v6Arb = fc.tuple(fc.constantFrom('2600:1f18', '2a02:26f7', '2001:4860', '2001:db8', '2c0f:f248', '2a0c:9a40'), fc.array(fc.nat(0xffff), { minLength: 6, maxLength: 6 })).map(([head, rest]) => `${head}:${rest.map((x) => x.toString(16)).join(':')}`);

function valueAt(r: CheckResult, field: string): unknown {
  if (field === 'geo') return r.geo;
  const [part, key] = field.split('.') as ['network' | 'signals', string];
  return (r[part] as unknown as Record<string, unknown>)[key];
}

/** Asserts everything the explanation of `ip` claims. */
function checkExplanation(ip: string): ExplanationField[] {
  const plain = intel.check(ip);
  const explained = intel.check(ip, { explain: true });
  const { explanation, ...rest } = explained;
  expect(rest).toStrictEqual(plain);
  const a = parseAddress(ip);
  const addr = addressToBigInt(a);
  const bits = a.version === 4 ? 32 : 128;
  const dates = new Map(intel.info.sources.map((s) => [s.id, s.data_date]));
  for (const f of explanation!.fields) {
    expect(f.value, f.field).toStrictEqual(valueAt(plain, f.field));
    for (const s of f.sources) {
      expect(s.data_date, `${f.field} ${s.source}`).toBe(dates.get(s.source));
      const cidr = /^(.+)\/(\d+)$/.exec(s.matched);
      const range = /^([^-]+)-([^-]+)$/.exec(s.matched);
      if (cidr !== null) {
        const start = addressToBigInt(parseAddress(cidr[1]!));
        const length = Number(cidr[2]);
        // The prefix holds the address.
        expect(addr >= start && addr < start + (1n << BigInt(bits - length)), `${f.field}: ${s.matched} holds ${ip}`).toBe(true);
        if (s.role === 'roas') {
          // The ROA set behind the route's status: RFC 6811 on its ROAs gives the status named.
          const [asText, status] = String(s.value).split(' ');
          const origin = Number(asText!.slice(2));
          const bitsOf = a.version === 4 ? 32 : 128;
          const covering = sourceHolds(s.source).roas.filter((r) => r.version === a.version && r.length <= length && (start >> BigInt(bitsOf - r.length)) === (r.start >> BigInt(bitsOf - r.length)));
          const valid = covering.some((r) => r.asn === origin && r.asn !== 0 && length <= r.maxLength);
          expect(valid ? 'valid' : covering.length > 0 ? 'invalid' : 'not-found', `${s.source} on ${s.matched} from AS${origin}`).toBe(status);
        } else if (s.role === 'geo') {
          expect(sourceHolds(s.source).ranges.some((r) => r.version === a.version && r.first <= addr && addr <= r.last), `${s.source} has a geo row for ${ip}`).toBe(true);
        } else {
          expect(sourceHolds(s.source).prefixes.has(`${a.version}|${start}|${length}`), `${s.source} lists ${s.matched}`).toBe(true);
        }
      } else if (range !== null) {
        const first = addressToBigInt(parseAddress(range[1]!));
        const last = addressToBigInt(parseAddress(range[2]!));
        expect(first <= addr && addr <= last, `${s.matched} holds ${ip}`).toBe(true);
        expect(sourceHolds(s.source).ranges.some((r) => r.first === first && r.last === last), `${s.source} has the range ${s.matched}`).toBe(true);
      } else {
        const asn = /^AS(\d+)$/.exec(s.matched);
        expect(asn, s.matched).not.toBeNull();
        expect(Number(asn![1])).toBe(plain.network.asn);
        expect(sourceHolds(s.source).asns.has(plain.network.asn), `${s.source} lists ${s.matched}`).toBe(true);
      }
    }
  }
  return [...explanation!.fields];
}

const field = (fields: readonly ExplanationField[], name: string): ExplanationField => fields.find((f) => f.field === name)!;

describe('explain on the fixture snapshot', () => {
  it('property: for random IPv4 addresses the explanation is check()\'s answer, its sources hold its prefixes, its prefixes the address', () => {
    fc.assert(fc.property(fc.oneof(v4Arb, nearArb), (ip) => void checkExplanation(ip)));
  });

  it('property: the same for random IPv6 addresses', () => {
    fc.assert(fc.property(v6Arb, (ip) => void checkExplanation(ip)));
  });

  it('every golden case is explained, and the named sources hold the named prefixes', () => {
    for (const ip of GOLDEN) checkExplanation(ip);
  });

  it('a Tor exit: the exit list decides is_tor, and the aggregate VPN list yields to it', () => {
    const f = checkExplanation('185.220.101.1');
    expect(field(f, 'signals.is_tor')).toMatchObject({ value: true, rule: 'listed', sources: [{ source: 'tor-exits', matched: '185.220.101.1/32' }] });
    expect(field(f, 'network.rpki').rule).toBe('rpki-route');
  });

  it('a ProtonVPN exit: the per-server list and its operator', () => {
    const f = checkExplanation('149.88.27.201');
    expect(field(f, 'signals.is_vpn')).toMatchObject({ value: true, rule: 'vpn-per-server' });
    expect(field(f, 'signals.vpn_operator')).toMatchObject({ value: 'ProtonVPN', rule: 'vpn-per-server', sources: [{ role: 'vpn', matched: '149.88.27.201/32' }] });
    expect(field(f, 'signals.is_vpn').sources[0]!.source).toMatch(/proton/);
  });

  it('an iCloud Private Relay address in a broad VPN list: the relay rule says not VPN', () => {
    const f = checkExplanation('172.224.226.5');
    expect(field(f, 'signals.is_relay')).toMatchObject({ value: true, rule: 'listed' });
    expect(field(f, 'signals.is_vpn')).toMatchObject({ value: false, rule: 'relay-not-vpn' });
    expect(field(f, 'signals.is_vpn').sources.map((s) => s.role)).toEqual(['relay', 'vpnBroad']);
  });

  it('a bogon: every field is decided by the bogon rule, with the special-purpose registry entry', () => {
    const f = checkExplanation('10.0.0.1');
    for (const x of f) expect(x.rule, x.field).toBe('bogon-special');
    expect(field(f, 'network.is_bogon').sources).toMatchObject([{ role: 'bogons', matched: '10.0.0.0/8' }]);
  });

  it('a verified crawler: the crawler rule keeps abuse and VPN off', () => {
    const f = checkExplanation('66.249.64.1');
    expect(field(f, 'signals.is_verified_bot')).toMatchObject({ value: true, rule: 'listed', sources: [{ source: 'crawler-googlebot' }] });
  });
});

describe('explain sidecar files', () => {
  const out = (): string => join(tmp.dir, 'fixture.ipintel');
  const code = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      if (e instanceof IpIntelError) return e.code;
      throw e;
    }
    return 'none';
  };

  it('open() reads <snapshot>.explain lazily, or explainPath; a snapshot without one says explain_unavailable', async () => {
    const alone = join(tmp.dir, 'alone.ipintel');
    copyFileSync(out(), alone);
    const s = await open(alone);
    expect(s.check('185.220.101.1').signals.is_tor).toBe(true);
    expect(code(() => s.check('185.220.101.1', { explain: true }))).toBe('explain_unavailable');
    const withPath = openSync(alone, { explainPath: `${out()}.explain` });
    expect(withPath.check('185.220.101.1', { explain: true }).explanation?.fields.length).toBeGreaterThan(20);
  });

  it("another build's sidecar is explain_mismatch; --no-explain writes none and removes an old one", async () => {
    const other = join(tmp.dir, 'other.ipintel');
    const report = await buildSnapshot({ out: other, feeds, buildDate: '2026-08-23T00:00:00.000Z', attributionUrl: 'https://example.test/attribution' });
    expect(existsSync(`${other}.explain`)).toBe(true);
    expect(code(() => openSync(out(), { explainPath: `${other}.explain` }).check('8.8.8.8', { explain: true }))).toBe('explain_mismatch');
    const again = await buildSnapshot({ out: other, feeds, buildDate: '2026-08-23T00:00:00.000Z', attributionUrl: 'https://example.test/attribution', explain: false });
    expect(again.explain).toBeNull();
    expect(again.bytes).toBe(report.bytes);
    expect(existsSync(`${other}.explain`)).toBe(false);
  }, 120_000);

  it('the sidecar is written deterministically', async () => {
    const again = join(tmp.dir, 'again.ipintel');
    await buildSnapshot({ out: again, feeds, buildDate: '2026-08-22T00:00:00.000Z', attributionUrl: 'https://example.test/attribution' });
    expect(readFileSync(`${again}.explain`).equals(readFileSync(`${out()}.explain`))).toBe(true);
  }, 120_000);
});

describe('explanation values', () => {
  /** Every object or array inside `v`. */
  const objectsIn = (v: unknown, out: object[] = []): object[] => {
    if (typeof v === 'object' && v !== null) {
      out.push(v);
      for (const x of Object.values(v)) objectsIn(x, out);
    }
    return out;
  };

  it('are frozen all the way down, so a caller cannot change later explanations', () => {
    let seen = 0;
    for (const ip of ['8.8.8.8', '1.1.1.1', '66.249.66.1', '185.220.101.1', '2001:4860::8888', '172.224.226.5']) {
      const fields = intel.check(ip, { explain: true }).explanation!.fields;
      for (const f of fields) {
        for (const s of f.sources) {
          for (const o of objectsIn(s.value)) {
            seen++;
            expect(Object.isFrozen(o)).toBe(true);
          }
        }
      }
      expect(intel.check(ip, { explain: true }).explanation).toEqual(intel.check(ip, { explain: true }).explanation);
    }
    // The fixture's sources carry object values (providers, origin lists): the test saw some.
    expect(seen).toBeGreaterThan(0);
  });
});
