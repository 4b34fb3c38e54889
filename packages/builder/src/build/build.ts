/**
 * One build: read every source, combine, encode, and replace the output file
 * atomically — only when everything succeeded. A source that shrank by more
 * than half since the last build fails the build (a truncated or broken
 * download must not silently empty a signal); the last good snapshot stays.
 * With `--fetch`, a feed whose download fails is read from its last good copy
 * when one is at hand (`fetch.lastGood`; load.ts); with `saveFeeds` the
 * downloaded copies are written to a feeds folder once the snapshot is in
 * place (save.ts).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { EXPLAIN_SUFFIX, loadSnapshot, nodeInflate, type SourceInfo } from '@ipintel/core';
import { QUALITY_LIMITS, isIsoUtcTime, qualityFailures, qualityReport, type QualityLabel, type QualityReport } from '@ipintel/core/internal';
import { encodeSnapshot, readSnapshotMeta } from '@ipintel/core/writer';
import { fromFolder, fromNetwork, type Acquire, type FetchOptions } from '../acquire.js';
import { combine, type CombineStats } from '../combine/combine.js';
import { BuildError } from '../errors.js';
import { makeFolderFor, removeFile, writeAtomically, type WriteInterrupts } from '../write-file.js';
import { saveFetched, type SaveReport } from '../save.js';
import { loadInputs, type SourceReport } from './load.js';
import { sidecarOf } from './sidecar.js';

export { BuildError };

export interface BuildOptions {
  /** Output path of the snapshot. */
  readonly out: string;
  /** Build offline from a folder laid out like `shared/feeds`. */
  readonly feeds?: string;
  /** Download every feed from its official URL (or a mirror). */
  readonly fetch?: FetchOptions;
  /**
   * With `fetch`: after the snapshot is written, write the downloaded copies
   * into this folder in the feeds-folder layout (only the files its
   * `sources.json` lists, when it has one; save.ts).
   */
  readonly saveFeeds?: string;
  /**
   * A folder holding geo and ASN tables at their declared paths
   * (`geo/dbip-city-ipv4.csv`, `bgp/ip-location-db-asn-ipv4.csv`, ...) to use
   * instead of the npm data packages. Default: the feeds folder when it
   * holds the geo table (as fixtures do).
   */
  readonly tables?: string;
  /** The build date as toISOString writes it (`2026-01-02T00:00:00.000Z`; else build_date_invalid); default SOURCE_DATE_EPOCH, else the newest source date. */
  readonly buildDate?: string;
  readonly attributionUrl?: string;
  /** Fail when a source has fewer than this share of its last build's entries (default 0.5). */
  readonly minShare?: number;
  /** The most of public IPv4 each label may hold in a world-scale snapshot (default core's QUALITY_LIMITS). */
  readonly qualityLimits?: Readonly<Partial<Record<QualityLabel, number>>>;
  readonly progress?: (message: string) => void;
  /**
   * Write the explain sidecar `<out>.explain` next to the snapshot (default
   * true; false removes a sidecar left by an earlier build).
   */
  readonly explain?: boolean;
  /**
   * Lets the caller stop the build while it writes a file (the snapshot,
   * its sidecar, a saved feed, the manifest): see WriteInterrupts. The
   * write stopped leaves its file as it was, and the build rejects with
   * BuildError `interrupted`; files written before it stay written.
   */
  readonly interrupts?: WriteInterrupts;
}

export interface BuildReport {
  readonly out: string;
  readonly bytes: number;
  /** The explain sidecar written (`<out>.explain`) and its size, or null with `explain: false`. */
  readonly explain: { readonly path: string; readonly bytes: number } | null;
  readonly ms: number;
  readonly reports: SourceReport[];
  readonly stats: CombineStats;
  readonly ranges: { readonly v4: number; readonly v6: number };
  readonly sources: readonly SourceInfo[];
  /** Shares of public IPv4 per label and their top ASNs (core's qualityReport). */
  readonly quality: QualityReport;
  /** ASNs whose bgp.tools tags conflict, largest first (docs/data.md): what the tag rules had to decide. */
  readonly conflicts: readonly TagConflict[];
  /** The build date the snapshot records. */
  readonly buildDate: string;
  /** What `saveFeeds` wrote, when given. */
  readonly saved?: SaveReport;
}

/** An ASN whose tags say two kinds at once (an eyeball tag with another, or with a hosting tag). */
export interface TagConflict {
  readonly asn: number;
  readonly tags: readonly string[];
  /** Its public IPv4 addresses in the snapshot. */
  readonly addresses: number;
}

const EYEBALL = new Set(['dsl', 'mobile', 'satnet']);
const HOSTING = new Set(['vpsh', 'cdn']);

/** ASNs tagged with two eyeball kinds, or an eyeball and a hosting kind, by their addresses. */
function tagConflicts(tags: ReadonlyMap<number, ReadonlySet<string>>, addresses: ReadonlyMap<number, number>, top = 15): TagConflict[] {
  const out: TagConflict[] = [];
  for (const [asn, set] of tags) {
    const eyeball = [...set].filter((t) => EYEBALL.has(t));
    const hosting = [...set].filter((t) => HOSTING.has(t));
    if (eyeball.length >= 2 || (eyeball.length >= 1 && hosting.length >= 1)) {
      out.push({ asn, tags: [...eyeball, ...hosting].sort(), addresses: addresses.get(asn) ?? 0 });
    }
  }
  return out.sort((a, b) => b.addresses - a.addresses || a.asn - b.asn).slice(0, top);
}

export const DEFAULT_ATTRIBUTION_URL = 'https://github.com/ipintel/ipintel/blob/main/docs/attribution.md';

function buildDateFromEnv(): string | null {
  const epoch = process.env['SOURCE_DATE_EPOCH'];
  if (epoch === undefined || epoch === '') return null;
  const ms = Number(epoch) * 1000;
  // Past year 9999 toISOString writes a six-digit year, a form no reader takes (core's isIsoUtcTime).
  if (!/^\d+$/.test(epoch) || !(ms <= LAST_BUILD_MS)) {
    throw new BuildError('build_date_invalid', `SOURCE_DATE_EPOCH must be whole seconds up to the end of 9999, got ${JSON.stringify(epoch)}`);
  }
  return new Date(ms).toISOString();
}

const LAST_BUILD_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

/** `BuildOptions.buildDate` as given, when it is the one form a snapshot holds (what toISOString writes). */
function givenBuildDate(date: unknown): string | undefined {
  if (date === undefined || isIsoUtcTime(date)) return date;
  throw new BuildError('build_date_invalid', `the build date must be an ISO UTC time as toISOString writes it, such as 2026-01-02T00:00:00.000Z; got ${typeof date === 'string' ? JSON.stringify(date.slice(0, 60)) : typeof date}`);
}

/**
 * Entry counts of the snapshot at `path`, if one is there and its header and meta check out (no column is read).
 * Only a regular file (a link to one included) is read: reading a named pipe would wait for a writer, and a
 * device might never end; the write refuses them (write-target.ts).
 */
async function previousCounts(path: string): Promise<Map<string, number> | null> {
  const there = await stat(path).catch(() => null);
  if (there === null || !there.isFile()) return null;
  try {
    const meta = readSnapshotMeta(new Uint8Array(await readFile(path)));
    return new Map(meta.sources.map((s) => [s.id, s.entries]));
  } catch {
    return null; // a broken previous file is no baseline
  }
}

export async function buildSnapshot(options: BuildOptions): Promise<BuildReport> {
  const t0 = performance.now();
  const say = options.progress ?? (() => {});
  if ((options.feeds === undefined) === (options.fetch === undefined) && options.feeds !== undefined) {
    throw new BuildError('options_conflict', 'choose one of --feeds DIR and --fetch');
  }
  if (options.saveFeeds !== undefined && options.fetch === undefined) {
    throw new BuildError('options_conflict', '--save-feeds DIR goes with --fetch (it saves the downloaded copies)');
  }
  let acquire: Acquire;
  let tables: string | null = options.tables ?? null;
  if (options.feeds !== undefined) {
    if (!existsSync(options.feeds)) throw new BuildError('feeds_not_found', `feeds folder not found: ${options.feeds}`);
    acquire = fromFolder(options.feeds);
    if (tables === null && existsSync(join(options.feeds, 'geo', 'dbip-city-ipv4.csv'))) tables = options.feeds;
  } else if (options.fetch !== undefined) {
    acquire = fromNetwork(options.fetch);
  } else {
    acquire = async () => null; // npm data packages and built-in tables only
  }
  const { input, reports, fetched } = await loadInputs({
    acquire,
    tables,
    lastGood: options.fetch?.lastGood ?? null,
    feedsFolder: options.feeds ?? null,
    buildDate: givenBuildDate(options.buildDate) ?? buildDateFromEnv(),
    attributionUrl: options.attributionUrl ?? DEFAULT_ATTRIBUTION_URL,
    progress: say,
  });

  // 1. A source that shrank by more than half fails the build before anything is written.
  const before = await previousCounts(options.out);
  const minShare = options.minShare ?? 0.5;
  if (before !== null) {
    const shrunk = input.sources.filter((s) => {
      const old = before.get(s.id);
      return old !== undefined && old > 0 && s.entries < old * minShare;
    });
    if (shrunk.length > 0) {
      const list = shrunk.map((s) => `${s.id} (${s.entries} entries, was ${before.get(s.id)})`).join(', ');
      throw new BuildError('source_shrunk', `sources shrank by more than ${Math.round((1 - minShare) * 100)}% since the last build: ${list}; kept the last good snapshot at ${options.out}`);
    }
  }

  // 2. Combine and encode.
  say('combining sources');
  const { model, stats } = combine(input);
  say('encoding snapshot');
  // Native zlib writes the same deflate-raw stream as fflate, several times faster.
  const bytes = encodeSnapshot(model, { deflate: (raw, level) => deflateRawSync(raw, { level }) });
  // 3. Prove the file loads and stays within the quality limits before it replaces the last good one.
  say('measuring quality');
  // preload: every column, the IPv6 index's included, is decoded and checked here, not on some later first use.
  const quality = qualityReport(loadSnapshot(bytes, { inflate: nodeInflate, preload: true }));
  const failures = qualityFailures(quality, options.qualityLimits ?? QUALITY_LIMITS);
  if (failures.length > 0) {
    const pct = (x: number): string => `${(100 * x).toFixed(2)}%`;
    const list = failures.map((f) => `${f.label} ${pct(f.share)} (limit ${pct(f.limit)}; top: ${quality.labels[f.label].top.slice(0, 3).map((a) => `AS${a.asn}`).join(', ')})`).join('; ');
    throw new BuildError('quality_failed', `the snapshot breaks its quality limits: ${list}; kept the last good snapshot at ${options.out}`);
  }
  let sidecar: Uint8Array | null = null;
  if (options.explain ?? true) {
    say('writing the explain sidecar');
    sidecar = sidecarOf(input, model, readSnapshotMeta(bytes), (raw, level) => deflateRawSync(raw, { level }));
  }
  await makeFolderFor(options.out);
  const explainPath = options.out + EXPLAIN_SUFFIX;
  // The snapshot first, then its sidecar: a sidecar of the old snapshot left by a failure between the two is refused (explain_mismatch).
  await writeAtomically(options.out, bytes, options.interrupts);
  if (sidecar !== null) await writeAtomically(explainPath, sidecar, options.interrupts);
  else await removeFile(explainPath);
  // 4. Only now, with the snapshot in place, do the downloads become the last good copies.
  const saved = options.saveFeeds === undefined ? undefined : await saveFetched(options.saveFeeds, fetched, new Date().toISOString(), options.interrupts);
  return {
    out: options.out,
    bytes: bytes.length,
    explain: sidecar === null ? null : { path: explainPath, bytes: sidecar.length },
    ms: performance.now() - t0,
    reports,
    stats,
    ranges: { v4: model.v4.starts.length, v6: model.v6.starts.length },
    sources: model.sources,
    quality,
    conflicts: tagConflicts(input.asnTags, quality.asnAddresses),
    buildDate: model.build_date,
    ...(saved !== undefined ? { saved } : {}),
  };
}
