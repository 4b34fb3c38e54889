/**
 * The checks the contract suite (contract.test.ts) and the full-size suite
 * of the collection (full/collection.full.ts) apply to a feed's result:
 * well-formed entries whose values meet their role's contract, and the
 * expected counts.
 */
import { expect } from 'vitest';
import { ROLES, type AnyFound, type Role } from '../../src/feeds/declare.js';
import type { Feed } from '../../src/feeds/registry.js';
import type { FeedResult } from '../../src/feeds/types.js';
import type { Expected } from './expectations.js';

const isText = (v: unknown): boolean => typeof v === 'string' && v !== '';
const textOrNull = (v: unknown): boolean => v === null || isText(v);

/** What each role's values must hold: what build/roles.ts reads from them. */
const VALUE_CONTRACT: Readonly<Record<Role, (v: unknown) => boolean>> = {
  routes: (v) => Array.isArray((v as { origins?: unknown }).origins) && (v as { origins: unknown[] }).origins.every((a) => Number.isInteger(a)),
  rpki: () => true,
  allocation: (v) => textOrNull((v as { date?: unknown }).date) && textOrNull((v as { country?: unknown }).country),
  'bogon-special': (v) => isText((v as { kind?: unknown }).kind),
  'bogon-unallocated': (v) => isText((v as { kind?: unknown }).kind),
  datacenter: (v) => {
    const d = v as { provider?: unknown; cdn?: unknown; anycast?: unknown };
    return textOrNull(d.provider) && typeof d.cdn === 'boolean' && typeof d.anycast === 'boolean';
  },
  'hosting-asn': (v) => textOrNull(v),
  'asn-tag': (v) => typeof v === 'string',
  'as-names': (v) => isText((v as { class?: unknown }).class),
  tor: (v) => v === true,
  vpn: (v) => textOrNull((v as { brand?: unknown }).brand),
  'vpn-asn': (v) => textOrNull((v as { brand?: unknown }).brand),
  proxy: (v) => v === true,
  relay: (v) => isText((v as { provider?: unknown }).provider),
  crawler: (v) => isText((v as { name?: unknown }).name),
  resolver: (v) => textOrNull((v as { operator?: unknown }).operator),
  drop: (v) => textOrNull((v as { sblid?: unknown }).sblid),
  'drop-asn': (v) => typeof v === 'object' && v !== null,
  abuse: (v) => Number.isInteger((v as { lists?: unknown }).lists) && (v as { lists: number }).lists >= 1,
  geo: (v) => typeof v === 'object' && v !== null,
  asn: (v) => Number.isInteger((v as { asn?: unknown }).asn),
  'asn-kind': (v) => {
    const k = v as { kind?: unknown; name?: unknown; anycast?: unknown; why?: unknown };
    return (k.kind === 'mobile' || k.kind === 'cdn') && isText(k.name) && typeof k.anycast === 'boolean' && isText(k.why);
  },
};

/** The values of a result, whatever its shape. */
function values(r: AnyFound): unknown[] {
  if ('prefixes' in r) return r.prefixes.map((p) => p.value);
  if ('asns' in r) return [...r.asns.values()];
  if ('roas' in r) return r.roas;
  return r.ranges.map((x) => ('geo' in (x as object) ? (x as { geo: unknown }).geo : x));
}

export function expectWellFormed(feed: Feed, r: FeedResult<AnyFound>): void {
  const shape = ROLES[feed.role].entries;
  if (feed.use === 'build') expect(shape in r, `${feed.id}: a ${feed.role} feed returns ${shape}`).toBe(true);
  // Checked in plain loops and asserted once: an expect() per prefix took ~16 s of the asmap feed's 700,000.
  if ('prefixes' in r) {
    const bad: string[] = [];
    for (const p of r.prefixes) {
      const bits = p.version === 4 ? 32 : 128;
      if (!(p.length >= 0 && p.length <= bits)) bad.push(`prefix length ${p.length}`);
      else if ((p.start & ((1n << BigInt(bits - p.length)) - 1n)) !== 0n) bad.push(`host bits of ${p.start}/${p.length}`);
    }
    expect(bad.slice(0, 5), `${feed.id}: malformed prefixes`).toEqual([]);
  }
  if ('asns' in r) {
    const bad = [...r.asns.keys()].filter((a) => !(Number.isInteger(a) && a >= 0 && a <= 0xffffffff));
    expect(bad.slice(0, 5), `${feed.id}: ASNs out of range`).toEqual([]);
  }
  if (feed.use === 'build') {
    const bad = values(r).find((v) => !VALUE_CONTRACT[feed.role](v));
    expect(bad, `${feed.id}: a value that breaks the ${feed.role} contract`).toBeUndefined();
  }
  for (const d of r.rejected) {
    expect(d.feed).toBe(feed.id);
    expect(Number.isInteger(d.line) && d.line >= 0).toBe(true);
    expect(d.message).not.toBe('');
  }
}

/** A copy of a result without the `ms` timings adapters report in their stats. */
export const withoutTimings = (r: unknown): unknown => JSON.parse(JSON.stringify(r, (k, v) => (k === 'ms' ? undefined : typeof v === 'bigint' ? `${v}n` : v instanceof Map ? [...v] : v)));

export function expectCounts(r: FeedResult<AnyFound>, want: Expected): void {
  expect({ entries: r.source.entries, rejected: r.rejected.length, date: r.source.data_date }).toEqual(want);
}

