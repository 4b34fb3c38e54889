/**
 * Feed declarations and the registry: every check `defineFeed` and
 * `register` make fires, with a message naming the feed and the field; the
 * registered feeds pass them all; the source row is derived from the
 * declaration plus what the adapter found.
 */
import { describe, expect, it } from 'vitest';
import { DeclarationError } from '../../src/errors.js';
import { ASN_TAGS, ROLES, defineFeed, isFeedPath, refreshMs, type FeedDeclaration } from '../../src/feeds/declare.js';
import { register } from '../../src/feeds/register.js';
import { FEEDS, feedById } from '../../src/feeds/registry.js';
import type { PrefixesFound } from '../../src/feeds/types.js';

const parse = (): PrefixesFound<true> => ({ prefixes: [{ version: 4, start: 0x01020300n, length: 24, value: true }], rejected: [], dataDate: null });

/** A valid declaration; tests change one field at a time. */
const base = {
  id: 'example-list',
  publisher: 'Example',
  url: 'https://example.test/list',
  licence: 'CC0',
  attribution_required: false,
  evidence: 'authoritative',
  format: 'one address per line',
  refresh: '1d',
  role: 'tor',
  use: 'build',
  origin: 'feeds',
  path: 'tor/example.txt',
  download: { url: 'https://example.test/list' },
  parse,
} as const;

/** Declares `base` with `change` applied (a field set to undefined is removed); returns the error, or null. */
function declare(change: Record<string, unknown>): DeclarationError | null {
  const d: Record<string, unknown> = { ...base, ...change };
  for (const [k, v] of Object.entries(change)) if (v === undefined) delete d[k];
  try {
    defineFeed(d as unknown as FeedDeclaration);
    return null;
  } catch (e) {
    if (!(e instanceof DeclarationError)) throw e;
    return e;
  }
}

describe('defineFeed: a bad declaration throws when its module loads, naming the field', () => {
  it('accepts the valid base declaration and freezes it', () => {
    expect(declare({})).toBeNull();
    expect(Object.isFrozen(defineFeed(base))).toBe(true);
  });

  const bad: [string, Record<string, unknown>, string, RegExp][] = [
    ['an id that is not kebab-case', { id: 'Example_List' }, 'id', /kebab-case/],
    ['a missing id', { id: undefined }, 'id', /kebab-case/],
    ['an unknown field (a typo)', { refesh: '1d' }, 'refesh', /not a declaration field/],
    ['an empty publisher', { publisher: ' ' }, 'publisher', /non-empty/],
    ['a missing licence', { licence: undefined }, 'licence', /non-empty/],
    ['a missing format', { format: undefined }, 'format', /non-empty/],
    ['a url that is not http(s)', { url: 'ftp://example.test/x' }, 'url', /http\(s\) URL/],
    ['attribution_required not boolean', { attribution_required: 'yes' }, 'attribution_required', /true or false/],
    ['an unknown role', { role: 'botnet' }, 'role', /must be one of/],
    ['an unknown use', { use: 'sometimes' }, 'use', /"build" or "context"/],
    ['a missing evidence', { evidence: undefined }, 'evidence', /authoritative, inferred or beta/],
    ['an unknown evidence', { evidence: 'certain' }, 'evidence', /authoritative, inferred or beta/],
    ['an unparseable refresh', { refresh: 'daily' }, 'refresh', /"12h" or "7d"/],
    ['a zero refresh', { refresh: '0d' }, 'refresh', /"12h" or "7d"/],
    ['an absolute path', { path: '/etc/passwd' }, 'path', /relative path/],
    ['a path leaving the folder', { path: 'tor/../../x' }, 'path', /relative path/],
    ['a missing download', { download: undefined }, 'download', /\{ url/],
    ['a download with a bad url', { download: { url: 'nope' } }, 'download', /\{ url/],
    ['a locator that is not a function', { download: { url: 'https://example.test', locate: 'x' } }, 'download', /locate must be a function/],
    ['an unknown download field', { download: { url: 'https://example.test', mirror: 'x' } }, 'download', /unknown field mirror/],
    ['an unknown origin', { origin: 'ftp' }, 'origin', /"feeds", "npm" or "built-in"/],
    ['a file for a built-in table', { origin: 'built-in' }, 'path', /built-in table has no file/],
    ['an npm origin without its package', { origin: 'npm', download: undefined }, 'npm', /package, file/],
    ['a download for an npm table', { origin: 'npm', npm: { package: 'p', file: 'f' } }, 'download', /not downloaded/],
    ['broad on a role without broad lists', { broad: true }, 'broad', /vpn role only/],
    ['a tag outside the asn-tag role', { tag: 'mobile' }, 'tag', /asn-tag role only/],
    ['an asn-tag feed without its tag', { role: 'asn-tag' }, 'tag', /must name the bgp\.tools tag/],
    ['a build asn-tag the build does not read', { role: 'asn-tag', tag: 'anycast' }, 'use', /context only/],
    ['minLists outside abuse', { minLists: 2 }, 'minLists', /abuse feed only/],
    ['a copyDate that is not a date', { copyDate: 'yesterday' }, 'copyDate', /not a date/],
    ['redistributable not boolean', { redistributable: 'yes' }, 'redistributable', /true, false or absent/],
    ['a missing adapter', { parse: undefined }, 'parse', /adapter function/],
  ];
  for (const [what, change, field, message] of bad) {
    it(`rejects ${what}`, () => {
      const e = declare(change);
      expect(e, what).not.toBeNull();
      expect(e!.field).toBe(field);
      expect(e!.code).toBe('declaration_invalid');
      expect(e!.message).toMatch(message);
      expect(e!.message).toMatch(/^feed (declaration "|registry)/);
    });
  }

  it('accepts what those rules allow: a context feed, a built tag, geo without evidence', () => {
    expect(declare({ role: 'as-names', use: 'context' })).toBeNull();
    expect(declare({ role: 'asn-tag', tag: 'mobile' })).toBeNull();
    expect(declare({ role: 'asn-tag', tag: 'anycast', use: 'context' })).toBeNull();
    expect(declare({ role: 'geo', evidence: undefined })).toBeNull();
    expect(declare({ role: 'abuse', minLists: 2 })).toBeNull();
    expect(declare({ role: 'vpn', broad: false })).toBeNull();
    expect(declare({ refresh: '12h' })).toBeNull();
  });

  it('refresh and path rules', () => {
    expect([refreshMs('12h'), refreshMs('7d'), refreshMs('365d')]).toEqual([43_200_000, 604_800_000, 31_536_000_000]);
    for (const bad of ['', '1w', '1.5d', '-1d', 'd', '10000d']) expect(refreshMs(bad)).toBeNull();
    expect(isFeedPath('bgp/asmap/x.txt.gz')).toBe(true);
    for (const bad of ['', '/x', 'a//b', './a', 'a\\b', 'a/..']) expect(isFeedPath(bad)).toBe(false);
  });
});

describe('register: the checks across declarations', () => {
  const d = (over: Record<string, unknown>): FeedDeclaration => defineFeed({ ...base, ...over });
  const fails = (list: FeedDeclaration[]): DeclarationError => {
    try {
      register(list);
    } catch (e) {
      if (e instanceof DeclarationError) return e;
      throw e;
    }
    throw new Error('registered');
  };

  it('rejects a repeated id, a repeated path, a row named like a feed, and disagreeing declarations of one row', () => {
    expect(fails([d({}), d({ path: 'tor/other.txt' })]).message).toMatch(/id "example-list" is declared twice/);
    expect(fails([d({}), d({ id: 'other' })]).message).toMatch(/"example-list" and "other" have the same path tor\/example.txt/);
    expect(fails([d({}), d({ id: 'b', path: 'b', row: 'example-list' })]).message).toMatch(/row "example-list" is the id of another feed/);
    const e = fails([d({ id: 'a', path: 'a', row: 'r' }), d({ id: 'b', path: 'b', row: 'r', licence: 'other' })]);
    expect([e.feed, e.field]).toEqual(['b', 'licence']);
  });

  it('the registered feeds pass every check: unique ids and paths, known roles, parseable refresh', () => {
    expect(() => register(FEEDS)).not.toThrow();
    expect(new Set(FEEDS.map((f) => f.id)).size).toBe(FEEDS.length);
    for (const f of FEEDS) {
      expect(Object.hasOwn(ROLES, f.role)).toBe(true);
      expect(refreshMs(f.refresh)).not.toBeNull();
    }
    expect(FEEDS.filter((f) => f.role === 'asn-tag' && f.use === 'build').every((f) => Object.hasOwn(ASN_TAGS, f.tag!))).toBe(true);
    expect(() => feedById('no-such-feed')).toThrow(/no registered feed "no-such-feed"/);
  });

  it('every role the build maps has at least one build feed', () => {
    const built = new Set(FEEDS.filter((f) => f.use === 'build').map((f) => f.role));
    for (const [role, r] of Object.entries(ROLES)) if (r.build) expect(built.has(role as keyof typeof ROLES), role).toBe(true);
  });
});

describe('the source row, derived', () => {
  const [feed] = register([defineFeed({ ...base, note: 'declared note', copyDate: '2026-01-02' })]);

  it('takes who, where and the licence from the declaration, the count from the adapter, the date from the copy', () => {
    expect(feed!.read('x').source).toEqual({
      id: 'example-list',
      publisher: 'Example',
      url: 'https://example.test/list',
      licence: 'CC0',
      attribution_required: false,
      data_date: '2026-01-02',
      entries: 1,
      refresh: '1d',
      evidence: 'authoritative',
      note: 'declared note',
    });
  });

  it('a date the file states beats the origin (npm version) date, which beats the declared copy date', () => {
    const [dated] = register([defineFeed({ ...base, copyDate: '2026-01-02', parse: () => ({ ...parse(), dataDate: '2026-03-04' }) })]);
    expect(dated!.read('x', { dataDate: '2026-02-03' }).source.data_date).toBe('2026-03-04');
    expect(feed!.read('x', { dataDate: '2026-02-03' }).source.data_date).toBe('2026-02-03');
  });

  it("the file's own note and terms replace the declared ones; a row id merges families", () => {
    const [own] = register([defineFeed({ ...base, row: 'example', note: 'n', parse: () => ({ ...parse(), note: 'found', licence: '(c) X; CC0' }) })]);
    expect(own!.read('x').source).toMatchObject({ id: 'example', note: 'found', licence: '(c) X; CC0' });
  });

  it('zero bytes are feed_empty; an adapter that reads no entry is feed_format (rejected lines) or feed_empty (none)', () => {
    expect(() => feed!.read(new Uint8Array(0))).toThrow(expect.objectContaining({ code: 'feed_empty' }));
    const [nothing] = register([defineFeed({ ...base, parse: () => ({ prefixes: [], rejected: [], dataDate: null }) })]);
    expect(() => nothing!.read('x')).toThrow(expect.objectContaining({ code: 'feed_empty' }));
    const [allBad] = register([
      defineFeed({ ...base, parse: (_d, f) => ({ prefixes: [], rejected: [{ feed: f, line: 3, message: 'bad' }], dataDate: null }) }),
    ]);
    expect(() => allBad!.read('x')).toThrow(/no entry read: every record was rejected \(line 3: bad\)/);
  });
});
