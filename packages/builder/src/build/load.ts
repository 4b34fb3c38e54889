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
 * A feeds-folder feed whose copy cannot be got or read (a failed download,
 * an HTML page where the list should be) is read from the last good copy
 * folder when one is given and holds it: the report says `kept`, with the
 * error, and the source row carries that copy's (older) date. With no last
 * good copy the error stops the build.
 *
 * A file that states no data date takes the one its folder's manifest
 * records for its exact bytes, if any (recorded-dates.ts; a last good copy,
 * its own folder's). A data date past this machine's clock is recorded as
 * none (future-dates.ts).
 *
 * @module
 */
import type { SourceInfo } from '@ipintel/core';
import { readFromFolder, readNpmFile, type Acquire } from '../acquire.js';
import type { CombineInput } from '../combine/input.js';
import { AcquireError, FeedError } from '../errors.js';
import { FEEDS, type Feed } from '../feeds/registry.js';
import type { AnyFound, CopyFacts } from '../feeds/registry.js';
import type { Diagnostic, FeedResult, InvalidUtf8 } from '../feeds/types.js';
import type { FetchedCopy } from '../save.js';
import { withoutFutureDate } from './future-dates.js';
import { NO_RECORDED_DATES, recordedDates, type RecordedDates } from './recorded-dates.js';
import { toCombineInput } from './roles.js';

/** What happened to one source, for the build summary. */
export interface SourceReport {
  readonly id: string;
  /** Where the copy came from: its path in the feeds folder, `npm <package> <file>`, or `built-in`. */
  readonly path: string;
  /**
   * `used`: in the snapshot; `kept`: in the snapshot from its last good copy
   * (see `failure`); `absent`: not in the folder; `not-used`: a context
   * feed, not a lookup source.
   */
  readonly status: 'used' | 'kept' | 'absent' | 'not-used';
  readonly source: SourceInfo | null;
  readonly rejected: Diagnostic[];
  readonly ms: number;
  /** `kept`: why the fresh copy was not used (its error's code and message). */
  readonly failure?: { readonly code: string; readonly message: string };
  /** The copy's bytes were not all UTF-8: how many invalid sequences (read as U+FFFD), and where the first is. */
  readonly invalidUtf8?: InvalidUtf8;
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
  /** A folder laid out like `shared/feeds` with each feed's last good copy, or null. */
  readonly lastGood?: string | null;
  /** The folder `acquire` reads (`--feeds DIR`), whose manifest may date the files that state no date; null for downloads. */
  readonly feedsFolder?: string | null;
  readonly progress?: (message: string) => void;
  /** The clock a data date is checked against (future-dates.ts); default `Date.now`. */
  readonly now?: () => number;
}

interface Copy {
  readonly bytes: Uint8Array;
  readonly from: string;
  readonly facts?: CopyFacts;
  /** The URL of a download (none for a file or a package). */
  readonly url?: string;
}

/** The manifests' recorded dates (recorded-dates.ts): of the feeds folder, and of the last good copies' folder. */
interface Recorded {
  readonly folder: RecordedDates;
  readonly lastGood: RecordedDates;
}

/** The bytes of one feed per its origin, or null when it is absent. */
async function copyOf(feed: Feed, options: LoadOptions, recorded: Recorded): Promise<Copy | null> {
  switch (feed.origin) {
    case 'built-in':
      return { bytes: new Uint8Array(0), from: 'built-in' };
    case 'feeds': {
      const got = await options.acquire(feed);
      if (got === null) return null;
      // A download is a new copy: the folder's record describes another one.
      const dataDate = got.url === undefined && !got.fromPublisher ? recorded.folder.dateOf(feed.path, got.bytes) : null;
      return {
        bytes: got.bytes,
        from: got.url ?? feed.path,
        ...(got.url !== undefined ? { url: got.url } : {}),
        ...(got.fromPublisher ? { facts: { fromPublisher: true } } : dataDate !== null ? { facts: { dataDate } } : {}),
      };
    }
    case 'npm': {
      const local = options.tables === null ? null : await readFromFolder(options.tables, feed);
      if (local !== null) return { bytes: local, from: feed.path };
      const npm = await readNpmFile(feed.id, feed.npm.package, feed.npm.file);
      return { bytes: npm.bytes, from: `npm ${feed.npm.package}@${npm.version} ${feed.npm.file}`, facts: { dataDate: npm.dataDate } };
    }
  }
}

type Read = { copy: Copy; result: FeedResult<AnyFound>; failure?: AcquireError | FeedError };

/** Gets and reads one feed; a failing feeds-folder copy falls back to its last good copy (see the module header). */
async function readOne(feed: Feed, options: LoadOptions, recorded: Recorded): Promise<Read | null> {
  try {
    const copy = await copyOf(feed, options, recorded);
    return copy === null ? null : { copy, result: feed.read(copy.bytes, copy.facts) };
  } catch (e) {
    const lastGood = options.lastGood ?? null;
    if (feed.origin !== 'feeds' || lastGood === null || !(e instanceof AcquireError || e instanceof FeedError)) throw e;
    const bytes = await readFromFolder(lastGood, feed);
    if (bytes === null) throw e;
    let result: FeedResult<AnyFound>;
    try {
      const dataDate = recorded.lastGood.dateOf(feed.path, bytes);
      result = feed.read(bytes, dataDate !== null ? { dataDate } : undefined);
    } catch {
      throw e; // the last good copy is no better: the fresh copy's error is the one to see
    }
    return { copy: { bytes, from: `${feed.path} (last good copy)` }, result, failure: e };
  }
}

/** One feed the build read. */
export interface Loaded {
  readonly feed: Feed;
  readonly result: FeedResult<AnyFound>;
}

export async function loadInputs(options: LoadOptions): Promise<{ input: CombineInput; reports: SourceReport[]; fetched: FetchedCopy[] }> {
  const say = options.progress ?? (() => {});
  const reports: SourceReport[] = [];
  const loaded: Loaded[] = [];
  const fetched: FetchedCopy[] = [];
  const recorded: Recorded = {
    folder: options.feedsFolder === undefined || options.feedsFolder === null ? NO_RECORDED_DATES : recordedDates(options.feedsFolder, say),
    lastGood: options.lastGood === undefined || options.lastGood === null ? NO_RECORDED_DATES : recordedDates(options.lastGood, say),
  };
  for (const feed of FEEDS) {
    const where = feed.origin === 'feeds' || feed.origin === 'npm' ? feed.path : 'built-in';
    if (feed.use === 'context') {
      // Parsed by the tests, not by builds: nothing in the snapshot comes from it.
      reports.push({ id: feed.id, path: where, status: 'not-used', source: null, rejected: [], ms: 0 });
      continue;
    }
    const t0 = performance.now();
    say(`reading ${feed.id}`);
    const read = await readOne(feed, options, recorded);
    if (read === null) {
      reports.push({ id: feed.id, path: where, status: 'absent', source: null, rejected: [], ms: 0 });
      continue;
    }
    const { copy, failure } = read;
    const result = withoutFutureDate(read.result, (options.now ?? Date.now)(), say);
    reports.push({
      id: feed.id,
      path: copy.from,
      status: failure === undefined ? 'used' : 'kept',
      source: result.source,
      rejected: result.rejected,
      ms: performance.now() - t0,
      ...(failure !== undefined ? { failure: { code: failure.code, message: failure.message } } : {}),
      ...(result.invalidUtf8 !== undefined ? { invalidUtf8: result.invalidUtf8 } : {}),
    });
    if (copy.url !== undefined && feed.origin === 'feeds') {
      fetched.push({ id: feed.id, path: feed.path, bytes: copy.bytes, url: copy.url, dataDate: result.source.data_date });
    }
    loaded.push({ feed, result });
  }
  return { input: toCombineInput(loaded, options, say), reports, fetched };
}
