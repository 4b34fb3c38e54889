/**
 * One contract suite run against every registered feed (as hono runs one
 * router suite against every router): the fixture parses to the expected
 * counts, every entry is well-formed and carries what its role promises the
 * build, empty input and an HTML error page throw a typed FeedError, parsing
 * is deterministic, the source row carries the declaration's publisher, URL,
 * licence and evidence, and the full-size copy meets its expectations.
 * Format-specific rules and exact values are in the per-module test files.
 *
 * Full-size copies: a vendored feed's is read from data/feeds, an npm
 * table's from its package, so those checks run on every clone. A feed the
 * repository may not carry must be listed as excluded in
 * data/feeds/sources.json with its reason; its full-size check runs in
 * `pnpm feeds:full` (full/collection.full.ts), which reads the collection.
 * Nothing here skips.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FeedError } from '../../src/errors.js';
import type { AnyFound } from '../../src/feeds/declare.js';
import { unpackFeed } from '../../src/feeds/read/compression.js';
import { FEEDS } from '../../src/feeds/registry.js';
import type { FeedResult } from '../../src/feeds/types.js';
import { expectCounts, expectWellFormed, withoutTimings } from './contract-checks.js';
import { EXPECTED, NO_FULL_SIZE_CHECK } from './expectations.js';
import { FIXTURES, MANIFEST, fixtureBytes, isVendored, readFixture, readFullSize } from './helpers.js';

const HTML_ERROR_PAGE =
  '<!DOCTYPE html>\n<html>\n<head><title>503 Service Unavailable</title></head>\n<body>\n<h1>Service Unavailable</h1>\n<p>Try again later.</p>\n</body>\n</html>\n';

/** Feeds in a binary format (MMDB, asmap bytecode): the rest are text, decoded as UTF-8. */
const BINARY_FEEDS = new Set(['asmap-bytecode', 'icloud-relay-mmdb']);

/** The bytes with 0xFF put at the end of their middle line (before its CR LF or LF), and where it is. */
function withInvalidByte(text: Uint8Array): { bytes: Uint8Array; line: number; offset: number } {
  const ends = [...text.keys()].filter((i) => text[i] === 0x0a);
  if (ends.length === 0 || ends.at(-1) !== text.length - 1) ends.push(text.length); // a last line without a line end
  const k = Math.floor((ends.length - 1) / 2);
  let offset = ends[k]!;
  if (offset > 0 && text[offset - 1] === 0x0d) offset--;
  return { bytes: new Uint8Array([...text.subarray(0, offset), 0xff, ...text.subarray(offset)]), line: k + 1, offset };
}

describe('the expectations table', () => {
  it('has one row per registered feed, and none for a feed that is not registered', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(FEEDS.map((f) => f.id).sort());
  });

  it('gives every feed without full-size counts a reason', () => {
    const without = Object.entries(EXPECTED).filter(([, e]) => e.full === null).map(([id]) => id);
    expect(without.sort()).toEqual(Object.keys(NO_FULL_SIZE_CHECK).sort());
  });

  it('every feeds-folder feed is vendored (its full size is tested here) or excluded in sources.json with a reason', () => {
    const excluded = new Map(MANIFEST.excluded.flatMap((e) => e.paths.map((p) => [p, e.reason] as const)));
    const folderFeeds = FEEDS.flatMap((f) => (f.origin === 'feeds' ? [f] : []));
    const unaccounted = folderFeeds.filter((f) => !isVendored(f) && !excluded.get(f.path)?.trim());
    expect(unaccounted.map((f) => `${f.id} (${f.path})`)).toEqual([]);
    // Never both, and never a copy of a feed whose declaration says it may not be carried.
    const both = folderFeeds.filter((f) => isVendored(f) && (excluded.has(f.path) || f.redistributable === false));
    expect(both.map((f) => f.id)).toEqual([]);
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
    expect(s.refresh).toBe(feed.refresh);
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

  // Text is decoded through feedText, which reports bytes that are not UTF-8 (read/utf8.ts): an adapter that
  // decoded on its own would hide them. The binary formats decode nothing as feed text.
  if (feed.origin !== 'built-in' && BINARY_FEEDS.has(id)) {
    it('is binary: its fixture is not UTF-8, and nothing is reported as invalid UTF-8', () => {
      expect(() => new TextDecoder('utf-8', { fatal: true }).decode(unpackFeed(id, fixtureBytes(id)))).toThrow(TypeError);
      expect(fixture().invalidUtf8).toBeUndefined();
    });
  } else if (feed.origin !== 'built-in') {
    it('reports a byte that is not UTF-8 where it is: in its result, or in the error the file then gets', () => {
      expect(fixture().invalidUtf8).toBeUndefined();
      const { bytes, line, offset } = withInvalidByte(unpackFeed(id, fixtureBytes(id)));
      let result: FeedResult<AnyFound> | undefined;
      let error: unknown;
      try {
        result = feed.read(bytes);
      } catch (e) {
        error = e;
      }
      if (result !== undefined) expect(result.invalidUtf8).toEqual({ count: 1, line, offset });
      else {
        expect(error).toBeInstanceOf(FeedError);
        expect((error as FeedError).message).toContain(`the first at line ${line} (byte ${offset})`);
      }
    });
  }

  // NO_FULL_SIZE_CHECK names where the others are read in full; a feed the
  // repository does not carry is read in full by `pnpm feeds:full`.
  if (EXPECTED[id]?.full !== null && (feed.origin !== 'feeds' || isVendored(feed))) {
    it(`reads its full-size copy (${feed.origin === 'feeds' ? 'data/feeds' : feed.origin}) with the SOURCES.md counts`, async () => {
      const r = await readFullSize(id);
      expectCounts(r, EXPECTED[id]!.full!);
      expectWellFormed(feed, r);
    });
  }
});
