/**
 * What the feed tests share: where the fixture and full-size feed folders
 * are, reading a registered feed's copy from either, and prefix text for
 * exact comparisons.
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
/** The full-size feeds: IPINTEL_FEEDS, else ../shared/feeds beside the repository. */
export const FULL_SIZE = process.env['IPINTEL_FEEDS'] ?? join(ROOT, '..', 'shared', 'feeds');
export const HAVE_FULL_SIZE = existsSync(FULL_SIZE);

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
  const bytes = feed.origin === 'built-in' ? new Uint8Array(0) : readFileSync(join(FULL_SIZE, feed.path));
  return feed.read(bytes) as unknown as FeedResult<F>;
}

/** Bytes of a full-size file by path. */
export const fullSizeBytes = (path: string): Uint8Array => readFileSync(join(FULL_SIZE, path));

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/** `8.8.8.0/24` text of a prefix. */
export const cidr = (p: Prefix<unknown>): string => `${bigIntToText(p.version, p.start)}/${p.length}`;

/** `8.8.8.0/24 <value>` lines, for exact comparisons. */
export function show<V>(prefixes: readonly Prefix<V>[], fmt: (v: V) => string): string[] {
  return prefixes.map((p) => `${cidr(p)} ${fmt(p.value)}`);
}

if (!HAVE_FULL_SIZE) console.log(`full-size feed tests skipped: no feeds folder at ${FULL_SIZE} (set IPINTEL_FEEDS)`);
