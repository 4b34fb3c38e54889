/**
 * One contract suite run against every registered feed (as hono runs one
 * router suite against every router): the fixture parses to the expected
 * counts, every entry is well-formed and carries what its role promises the
 * build, empty input and an HTML error page throw a typed FeedError, parsing
 * is deterministic, the source row carries the declaration's publisher, URL,
 * licence and evidence, and the full-size copy meets its expectations.
 * Format-specific rules and exact values are in the per-module test files.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FeedError } from '../../src/errors.js';
import { ROLES, type AnyFound, type Role } from '../../src/feeds/declare.js';
import { FEEDS, type Feed } from '../../src/feeds/registry.js';
import type { FeedResult } from '../../src/feeds/types.js';
import { EXPECTED, NO_FULL_SIZE_CHECK, type Expected } from './expectations.js';
import { FIXTURES, HAVE_FULL_SIZE, readFixture, readFullSize } from './helpers.js';

const HTML_ERROR_PAGE =
  '<!DOCTYPE html>\n<html>\n<head><title>503 Service Unavailable</title></head>\n<body>\n<h1>Service Unavailable</h1>\n<p>Try again later.</p>\n</body>\n</html>\n';

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

function expectWellFormed(feed: Feed, r: FeedResult<AnyFound>): void {
  const shape = ROLES[feed.role].entries;
  if (feed.use === 'build') expect(shape in r, `${feed.id}: a ${feed.role} feed returns ${shape}`).toBe(true);
  if ('prefixes' in r) {
    for (const p of r.prefixes) {
      const bits = p.version === 4 ? 32 : 128;
      expect(p.length >= 0 && p.length <= bits, `${feed.id}: prefix length ${p.length}`).toBe(true);
      expect(p.start & ((1n << BigInt(bits - p.length)) - 1n), `${feed.id}: host bits of ${p.start}/${p.length}`).toBe(0n);
    }
  }
  if ('asns' in r) for (const a of r.asns.keys()) expect(Number.isInteger(a) && a >= 0 && a <= 0xffffffff, `${feed.id}: AS${a}`).toBe(true);
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
const withoutTimings = (r: unknown): unknown => JSON.parse(JSON.stringify(r, (k, v) => (k === 'ms' ? undefined : typeof v === 'bigint' ? `${v}n` : v instanceof Map ? [...v] : v)));

function expectCounts(r: FeedResult<AnyFound>, want: Expected): void {
  expect({ entries: r.source.entries, rejected: r.rejected.length, date: r.source.data_date }).toEqual(want);
}

describe('the expectations table', () => {
  it('has one row per registered feed, and none for a feed that is not registered', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(FEEDS.map((f) => f.id).sort());
  });

  it('gives every feed without full-size counts a reason', () => {
    const without = Object.entries(EXPECTED).filter(([, e]) => e.full === null).map(([id]) => id);
    expect(without.sort()).toEqual(Object.keys(NO_FULL_SIZE_CHECK).sort());
  });

  it('every file of the fixtures folder is a registered feed, and every feed has a fixture', () => {
    const files = readdirSync(FIXTURES, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile() && d.name !== 'README.md' && !d.name.endsWith('.mjs'))
      .map((d) => relative(FIXTURES, join(d.parentPath, d.name)));
    const paths = FEEDS.flatMap((f) => (f.origin === 'built-in' ? [] : [f.path]));
    expect(new Set(files)).toEqual(new Set(paths));
  });
});

describe.each(FEEDS.map((f) => [f.id, f] as const))('feed %s', (id, feed) => {
  const fixture = (): FeedResult<AnyFound> => readFixture(id);

  it(`reads its fixture: ${EXPECTED[id]?.fixture.entries} entries, ${EXPECTED[id]?.fixture.rejected} rejected`, () => {
    const r = fixture();
    expectCounts(r, EXPECTED[id]!.fixture);
    expectWellFormed(feed, r);
  });

  it('derives its source row from the declaration', () => {
    const s = fixture().source;
    expect(s.id).toBe(feed.row ?? feed.id);
    expect(s.publisher).toBe(feed.publisher);
    expect(s.url).toBe(feed.url);
    expect(s.attribution_required).toBe(feed.attribution_required);
    expect(s.evidence).toBe(feed.evidence);
    // A file may state its own terms before the declared ones (Spamhaus' copyright line).
    expect(s.licence === feed.licence || s.licence.endsWith(`; ${feed.licence}`), s.licence).toBe(true);
    expect(Object.keys(s).slice(0, 7)).toEqual(['id', 'publisher', 'url', 'licence', 'attribution_required', 'data_date', 'entries']);
  });

  it('is deterministic: two reads are deep-equal (timings aside)', () => {
    expect(withoutTimings(fixture())).toEqual(withoutTimings(fixture()));
  });

  // A built-in table reads no bytes: it cannot be empty or an error page.
  if (feed.origin !== 'built-in') {
    it('throws FeedError feed_empty for empty input', () => {
      expect(() => feed.read(new Uint8Array(0))).toThrow(expect.objectContaining({ name: 'FeedError', code: 'feed_empty', feed: id }));
    });

    it('throws FeedError feed_format for an HTML error page', () => {
      let error: unknown;
      try {
        feed.read(HTML_ERROR_PAGE);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(FeedError);
      expect(error).toMatchObject({ code: 'feed_format', feed: id });
    });
  }

  // NO_FULL_SIZE_CHECK names where the others are read in full.
  if (EXPECTED[id]?.full !== null) {
    it.skipIf(!HAVE_FULL_SIZE && feed.origin === 'feeds')('reads its full-size copy with the SOURCES.md counts', async () => {
      const r = await readFullSize(id);
      expectCounts(r, EXPECTED[id]!.full!);
      expectWellFormed(feed, r);
    });
  }
});
