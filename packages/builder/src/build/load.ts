/**
 * Reads every registered feed the build uses, in registry order, and hands
 * the results to roles.ts, which sorts them into the combiner's inputs by
 * their declared role.
 *
 * Where the bytes come from depends on the declared origin: a feeds-folder
 * file through `acquire` (a folder or the network); an npm table from the
 * tables folder when it holds the declared path (how fixtures are built),
 * else from the npm package; a built-in table from the builder itself.
 * Context feeds (`use: 'context'`) are listed as not used and not read.
 *
 * @module
 */
import type { SourceInfo } from '@ipintel/core';
import { readFromFolder, readNpmFile, type Acquire } from '../acquire.js';
import type { CombineInput } from '../combine/input.js';
import { FEEDS, type Feed } from '../feeds/registry.js';
import type { AnyFound, CopyFacts } from '../feeds/registry.js';
import type { Diagnostic, FeedResult } from '../feeds/types.js';
import { toCombineInput } from './roles.js';

/** What happened to one source, for the build summary. */
export interface SourceReport {
  readonly id: string;
  /** Where the copy came from: its path in the feeds folder, `npm <package> <file>`, or `built-in`. */
  readonly path: string;
  /** `used`: in the snapshot; `absent`: not in the folder; `not-used`: a context feed, not a lookup source. */
  readonly status: 'used' | 'absent' | 'not-used';
  readonly source: SourceInfo | null;
  readonly rejected: Diagnostic[];
  readonly ms: number;
}

export interface LoadOptions {
  readonly acquire: Acquire;
  /**
   * Read npm tables (geo, ASN) from this folder when it holds their
   * declared path (`geo/dbip-city-ipv4.csv`, ...); null = npm packages.
   */
  readonly tables: string | null;
  readonly buildDate: string | null;
  readonly attributionUrl: string;
  readonly progress?: (message: string) => void;
}

/** One feed the build read. */
export interface Loaded {
  readonly feed: Feed;
  readonly result: FeedResult<AnyFound>;
}

interface Copy {
  readonly bytes: Uint8Array;
  readonly from: string;
  readonly facts?: CopyFacts;
}

/** The bytes of one feed per its origin, or null when it is absent. */
async function copyOf(feed: Feed, options: LoadOptions): Promise<Copy | null> {
  switch (feed.origin) {
    case 'built-in':
      return { bytes: new Uint8Array(0), from: 'built-in' };
    case 'feeds': {
      const bytes = await options.acquire(feed);
      return bytes === null ? null : { bytes, from: feed.path };
    }
    case 'npm': {
      const local = options.tables === null ? null : await readFromFolder(options.tables, feed);
      if (local !== null) return { bytes: local, from: feed.path };
      const npm = await readNpmFile(feed.id, feed.npm.package, feed.npm.file);
      return { bytes: npm.bytes, from: `npm ${feed.npm.package}@${npm.version} ${feed.npm.file}`, facts: { dataDate: npm.dataDate } };
    }
  }
}

export async function loadInputs(options: LoadOptions): Promise<{ input: CombineInput; reports: SourceReport[] }> {
  const say = options.progress ?? (() => {});
  const reports: SourceReport[] = [];
  const loaded: Loaded[] = [];
  for (const feed of FEEDS) {
    const where = feed.origin === 'feeds' || feed.origin === 'npm' ? feed.path : 'built-in';
    if (feed.use === 'context') {
      // Parsed by the tests, not by builds: nothing in the snapshot comes from it.
      reports.push({ id: feed.id, path: where, status: 'not-used', source: null, rejected: [], ms: 0 });
      continue;
    }
    const t0 = performance.now();
    const copy = await copyOf(feed, options);
    if (copy === null) {
      reports.push({ id: feed.id, path: where, status: 'absent', source: null, rejected: [], ms: 0 });
      continue;
    }
    say(`reading ${feed.id} (${copy.from})`);
    const result = feed.read(copy.bytes, copy.facts);
    reports.push({ id: feed.id, path: copy.from, status: 'used', source: result.source, rejected: result.rejected, ms: performance.now() - t0 });
    loaded.push({ feed, result });
  }
  return { input: toCombineInput(loaded, options, say), reports };
}
