/**
 * Registering feed declarations: the checks that involve several of them
 * (unique ids, unique paths, source rows shared only by agreeing
 * declarations), and `read`, which runs a declaration's adapter and derives
 * the snapshot source row from the declaration plus what the adapter found.
 * Publisher, URL and licence are written once, in the declaration.
 *
 * @module
 */
import type { SourceInfo } from '@ipintel/core';
import { DeclarationError, FeedError } from '../errors.js';
import type { AnyFound, FeedDeclaration } from './declare.js';
import { watchInvalidUtf8 } from './read/text.js';
import { describeInvalidUtf8, joinInvalidUtf8, type InvalidUtf8 } from './read/utf8.js';
import type { FeedResult } from './types.js';

/** What the origin of a copy says about it. */
export interface CopyFacts {
  /** The date the origin gives (an npm package's version date). */
  readonly dataDate?: string | null;
  /** The publisher's own file, freshly downloaded: the declaration's `copyDate` (the date of the folder copy) does not apply. */
  readonly fromPublisher?: boolean;
}

/** A registered feed: its declaration, plus `read`. */
export type Feed = FeedDeclaration & {
  /**
   * Reads a copy of the feed: runs the adapter and derives the source row.
   *
   * @throws FeedError `feed_empty` for zero bytes, `feed_format` when the
   *   adapter read no entry at all, or whatever the adapter throws.
   */
  readonly read: (data: Uint8Array | string, copy?: CopyFacts) => FeedResult<AnyFound>;
};

/** Entries an adapter read: its explicit count, else the size of what it returned. */
export function countEntries(found: AnyFound): number {
  if (found.entries !== undefined) return found.entries;
  if ('prefixes' in found) return found.prefixes.length;
  if ('asns' in found) return found.asns.size;
  if ('roas' in found) return found.roas.length;
  return found.ranges.length;
}

/**
 * The snapshot's source row: who, where, under which licence and how often
 * refreshed from the declaration; the data date, entry count and any note
 * or licence statement from the file. Keys in the order docs/snapshot-format.md shows (the meta
 * is JSON, so the order is part of the snapshot's bytes).
 */
export function sourceRow(d: FeedDeclaration, found: AnyFound, copy: CopyFacts = {}): SourceInfo {
  const note = found.note ?? d.note;
  return {
    id: d.row ?? d.id,
    publisher: d.publisher,
    url: d.url,
    licence: found.licence ?? d.licence,
    attribution_required: d.attribution_required,
    data_date: found.dataDate ?? copy.dataDate ?? (copy.fromPublisher === true ? null : d.copyDate) ?? null,
    entries: countEntries(found),
    refresh: d.refresh,
    ...(d.evidence !== undefined ? { evidence: d.evidence } : {}),
    ...(note !== undefined ? { note } : {}),
  };
}

/**
 * Runs the adapter and derives the source row. Invalid UTF-8 the adapter's
 * decoding met (read/text.ts) goes into the result as `invalidUtf8`, and
 * into the message of a FeedError the file gets: a file in another encoding
 * (UTF-16 saved by an editor, Latin-1) often reads no entry at all, and the
 * encoding is then the reason to see.
 */
function read(d: FeedDeclaration, data: Uint8Array | string, copy?: CopyFacts): FeedResult<AnyFound> {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  if (d.origin !== 'built-in' && bytes.length === 0) throw new FeedError(d.id, 'feed_empty', 'empty file (0 bytes)');
  const heard: InvalidUtf8[] = [];
  try {
    const found = watchInvalidUtf8(() => d.parse(bytes, d.id), heard);
    const source = sourceRow(d, found, copy);
    if (source.entries === 0) {
      const first = found.rejected[0];
      throw first === undefined
        ? new FeedError(d.id, 'feed_empty', 'no entry in the file')
        : new FeedError(d.id, 'feed_format', `no entry read: every record was rejected (line ${first.line}: ${first.message})`);
    }
    const invalidUtf8 = joinInvalidUtf8(heard);
    return { ...found, source, ...(invalidUtf8 !== null ? { invalidUtf8 } : {}) };
  } catch (e) {
    const invalidUtf8 = joinInvalidUtf8(heard);
    if (invalidUtf8 === null || !(e instanceof FeedError)) throw e;
    // The same error with the encoding added (the message without its `<feed>: ` prefix, which the constructor adds again).
    throw new FeedError(e.feed, e.code, `${e.message.slice(e.feed.length + 2)}; ${describeInvalidUtf8(invalidUtf8)}`, { cause: e });
  }
}

/** The fields declarations that share one source row must agree on. */
const ROW_FIELDS = ['publisher', 'url', 'licence', 'attribution_required', 'evidence', 'note', 'role', 'refresh'] as const;

/**
 * Checks a list of declarations as a whole and returns them registered, in
 * the same order.
 *
 * @throws DeclarationError for a repeated id or path, a source row id that
 *   is another feed's id, or declarations of one row that disagree.
 */
export function register(declarations: readonly FeedDeclaration[]): readonly Feed[] {
  const ids = new Set<string>();
  const paths = new Map<string, string>();
  const rows = new Map<string, FeedDeclaration>();
  for (const d of declarations) {
    if (ids.has(d.id)) throw new DeclarationError(null, 'id', `id "${d.id}" is declared twice`);
    ids.add(d.id);
    if (d.origin !== 'built-in') {
      const other = paths.get(d.path);
      if (other !== undefined) throw new DeclarationError(null, 'path', `"${other}" and "${d.id}" have the same path ${d.path}`);
      paths.set(d.path, d.id);
    }
  }
  for (const d of declarations) {
    if (d.row === undefined) continue;
    if (ids.has(d.row)) throw new DeclarationError(d.id, 'row', `row "${d.row}" is the id of another feed`);
    const first = rows.get(d.row);
    if (first === undefined) {
      rows.set(d.row, d);
      continue;
    }
    for (const f of ROW_FIELDS) {
      if (first[f] !== d[f]) throw new DeclarationError(d.id, f, `${f} differs from "${first.id}", which shares the row "${d.row}"`);
    }
  }
  return Object.freeze(declarations.map((d): Feed => Object.freeze({ ...d, read: (data: Uint8Array | string, copy?: CopyFacts) => read(d, data, copy) })));
}
