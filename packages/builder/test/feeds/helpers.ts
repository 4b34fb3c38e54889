/**
 * What the feed tests share: where the fixture and full-size feed folders
 * are, reading a registered feed's copy from either, and prefix text for
 * exact comparisons.
 *
 * Full-size copies: a vendored feed (listed in data/feeds/sources.json) is
 * read from data/feeds, so its full-size tests run on every clone. A feed
 * the repository may not carry is read from the team's collection
 * (IPINTEL_FEEDS, else ../shared/feeds), and only by the separate
 * `pnpm feeds:full` suite (the `*.full.ts` files), never by `pnpm test`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bigIntToText } from '@ipintel/core/writer';
import { readNpmFile } from '../../src/acquire.js';
import { feedById, type Feed } from '../../src/feeds/registry.js';
import type { AnyFound } from '../../src/feeds/declare.js';
import type { FeedResult, Found, Prefix } from '../../src/feeds/types.js';

export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const FIXTURES = join(ROOT, 'fixtures/feeds');
/** The feeds the repository carries, with their manifest. */
export const VENDORED = join(ROOT, 'data/feeds');
/** The team's full collection, read by `pnpm feeds:full` only: IPINTEL_FEEDS, else ../shared/feeds. */
export const COLLECTION = process.env['IPINTEL_FEEDS'] ?? join(ROOT, '..', 'shared', 'feeds');

interface Manifest {
  readonly files: readonly { readonly path: string }[];
  readonly excluded: readonly { readonly paths: readonly string[]; readonly reason: string }[];
}
/** data/feeds/sources.json. */
export const MANIFEST = JSON.parse(readFileSync(join(VENDORED, 'sources.json'), 'utf8')) as Manifest;
const VENDORED_PATHS = new Set(MANIFEST.files.map((f) => f.path));

/** Whether the repository carries the feed's copy (a feeds-folder feed listed in the manifest). */
export const isVendored = (feed: Feed): boolean => feed.origin === 'feeds' && VENDORED_PATHS.has(feed.path);

/**
 * Where a feed's full-size copy is read: data/feeds when vendored, else the
 * collection, which must exist (the full suite fails without it, it never skips).
 */
function fullSizeFile(feed: Feed & { readonly path: string }): string {
  if (isVendored(feed)) return join(VENDORED, feed.path);
  if (!existsSync(COLLECTION)) {
    throw new Error(`${feed.id} is not vendored: its full-size copy is read from the collection, which is not at ${COLLECTION} (set IPINTEL_FEEDS)`);
  }
  return join(COLLECTION, feed.path);
}

/** The path of a feed's copy (feeds and npm origins); throws for a built-in table. */
function pathOf(feed: Feed): string {
  if (feed.origin === 'built-in') throw new Error(`${feed.id} is built in: it has no file`);
  return feed.path;
}

/** The fixture bytes of a registered feed. */
export const fixtureBytes = (id: string): Uint8Array => readFileSync(join(FIXTURES, pathOf(feedById(id))));

/** A registered feed read from its fixture, through the registry (source row included). */
export function readFixture<F extends Found = AnyFound>(id: string): FeedResult<F> {
  const feed = feedById(id);
  return feed.read(feed.origin === 'built-in' ? new Uint8Array(0) : fixtureBytes(id)) as unknown as FeedResult<F>;
}

/** A registered feed read from its full-size copy: the full-size folder, or the npm package of an npm table. */
export async function readFullSize<F extends Found = AnyFound>(id: string): Promise<FeedResult<F>> {
  const feed = feedById(id);
  if (feed.origin === 'npm') {
    const npm = await readNpmFile(feed.id, feed.npm.package, feed.npm.file);
    return feed.read(npm.bytes, { dataDate: npm.dataDate }) as unknown as FeedResult<F>;
  }
  const bytes = feed.origin === 'built-in' ? new Uint8Array(0) : readFileSync(fullSizeFile(feed));
  return feed.read(bytes) as unknown as FeedResult<F>;
}

/** Bytes of a registered feed's full-size file (data/feeds when vendored, else the collection). */
export function fullSizeBytes(id: string): Uint8Array {
  const feed = feedById(id);
  if (feed.origin !== 'feeds') throw new Error(`${id} is not a feeds-folder feed`);
  return readFileSync(fullSizeFile(feed));
}

/** Bytes of a file of the collection by path (the full suite only). */
export function collectionBytes(path: string): Uint8Array {
  if (!existsSync(COLLECTION)) throw new Error(`no feed collection at ${COLLECTION} (set IPINTEL_FEEDS)`);
  return readFileSync(join(COLLECTION, path));
}

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/** `8.8.8.0/24` text of a prefix. */
export const cidr = (p: Prefix<unknown>): string => `${bigIntToText(p.version, p.start)}/${p.length}`;

/** `8.8.8.0/24 <value>` lines, for exact comparisons. */
export function show<V>(prefixes: readonly Prefix<V>[], fmt: (v: V) => string): string[] {
  return prefixes.map((p) => `${cidr(p)} ${fmt(p.value)}`);
}
