/**
 * Plain text lists: one CIDR prefix or bare address per line, `#` comments.
 *
 * The shape shared by Cloudflare's `ips-v4`, the Tor bulk exit list, X4BNet's
 * output lists, lord-alfred's extracted lists, az0's `IP # brand` files and
 * most blocklists:
 *
 * ```
 * # Last updated: 2026-08-22T16:18:35.025Z     <- whole-line comment (kept, for dates)
 * 104.16.0.0/13                                <- prefix
 * 185.220.101.1                                <- bare address = /32 or /128
 * 95.181.238.9         # Bahamas               <- trailing comment (passed to `value`)
 * ```
 *
 * Rules: blank lines and whole-line comments are skipped and not counted;
 * every other line is either an entry or a `Diagnostic` (never dropped
 * silently). A prefix with host bits set (`1.2.3.4/24`) is a Diagnostic, never
 * widened to the network around it: a cut line (`2400:cb00::/3` from `/32`)
 * would otherwise label space the publisher never listed. A file with no data line, or
 * where no data line parses (an HTML error page, a different format), throws
 * `FeedError`: that is a wrong file, not a list with bad lines.
 *
 * Addresses are parsed only through `parseCidr` (core's strict parser).
 *
 * @module
 */
import { FeedError } from '../../errors.js';
import type { Diagnostic, Prefix, PrefixesFound } from '../types.js';
import { defaultRouteEntry, parseCidr } from './cidr.js';
import { feedText, splitLines } from './text.js';

/** A data line: its 1-based number, the text before any `#`, and the comment after it. */
export interface ListLine {
  readonly line: number;
  /** Trimmed text before the first `#`. */
  readonly text: string;
  /** Trimmed text after the first `#`, or null when there is none. */
  readonly comment: string | null;
}

/** A whole-line comment: 1-based number and the text after `#`, trimmed. */
export interface CommentLine {
  readonly line: number;
  readonly text: string;
}

/**
 * Splits a `#`-commented text list into data lines and whole-line comments.
 * With `trailingComments: false` a `#` after data is part of the data (CSV
 * names may contain one) and `comment` is always null.
 */
export function listLines(
  data: Uint8Array | string,
  options: { readonly trailingComments?: boolean } = {},
): { lines: ListLine[]; comments: CommentLine[] } {
  const trailing = options.trailingComments ?? true;
  const lines: ListLine[] = [];
  const comments: CommentLine[] = [];
  splitLines(feedText(data)).forEach((raw, i) => {
    const t = raw.trim();
    if (t === '') return;
    if (t.startsWith('#')) {
      comments.push({ line: i + 1, text: t.slice(1).trim() });
      return;
    }
    const hash = trailing ? t.indexOf('#') : -1;
    lines.push(
      hash < 0
        ? { line: i + 1, text: t, comment: null }
        : { line: i + 1, text: t.slice(0, hash).trim(), comment: t.slice(hash + 1).trim() },
    );
  });
  return { lines, comments };
}

export interface CidrListOptions {
  /** Only bare addresses are allowed (a `/n` is a Diagnostic). Default false. */
  readonly addressesOnly?: boolean;
  /** A per-family file (`ipv4.txt`): an entry of the other family is a Diagnostic. */
  readonly family?: 4 | 6;
}

export interface CidrList<V> {
  readonly prefixes: Prefix<V>[];
  readonly rejected: Diagnostic[];
  /** Whole-line comments, for data dates and headers. */
  readonly comments: CommentLine[];
}

/**
 * Parses a plain CIDR/address list. `value` gives each entry's value from its
 * line (e.g. a brand from the trailing comment); it may return `{ reject: reason }`
 * to reject the line with that reason instead.
 *
 * @throws FeedError when the file has no data line, or no data line parses.
 * @example
 * parseCidrList('cloudflare', '104.16.0.0/13\nbad\n', () => true)
 * // => { prefixes: [{ version: 4, start: 1745879040n, length: 13, value: true }],
 * //      rejected: [{ feed: 'cloudflare', line: 2, message: 'not an address: "bad"' }], comments: [] }
 */
export function parseCidrList<V>(
  feed: string,
  data: Uint8Array | string,
  value: (line: ListLine) => V | { readonly reject: string },
  options: CidrListOptions = {},
): CidrList<V> {
  const { lines, comments } = listLines(data);
  const prefixes: Prefix<V>[] = [];
  const rejected: Diagnostic[] = [];
  for (const l of lines) {
    const reject = (message: string): void => {
      rejected.push({ feed, line: l.line, message });
    };
    if (l.text === '') {
      reject('no address before the comment');
      continue;
    }
    const c = parseCidr(l.text);
    if (!c.ok) {
      reject(c.message);
      continue;
    }
    // Only a line that reads as a prefix is called one (an HTML line has slashes too).
    if (options.addressesOnly && l.text.includes('/')) {
      reject(`expected a single address, got a prefix: ${JSON.stringify(l.text.slice(0, 60))}`);
      continue;
    }
    const whole = defaultRouteEntry(c.length, l.text);
    if (whole !== null) {
      reject(whole);
      continue;
    }
    if (options.family !== undefined && c.version !== options.family) {
      reject(`IPv${c.version} entry in an IPv${options.family} list`);
      continue;
    }
    if (c.hostBitsSet) {
      reject(`host bits set: ${JSON.stringify(l.text)}`);
      continue;
    }
    const v = value(l);
    if (isReject(v)) {
      reject(v.reject);
      continue;
    }
    prefixes.push({ version: c.version, start: c.start, length: c.length, value: v });
  }
  if (lines.length === 0) throw new FeedError(feed, 'feed_empty', 'no data line (empty list)');
  if (prefixes.length === 0) {
    const first = rejected[0]!;
    throw new FeedError(feed, 'feed_format', `no line is an address or CIDR (line ${first.line}: ${first.message})`);
  }
  return { prefixes, rejected, comments };
}

/**
 * An adapter for a plain list whose entries all have one `value` and which
 * states no date (per-family provider lists, relay and VPN extracts).
 */
export function constantCidrList<V>(value: V, options: CidrListOptions = {}): (data: Uint8Array | string, feed: string) => PrefixesFound<V> {
  return (data, feed) => {
    const { prefixes, rejected } = parseCidrList(feed, data, () => value, options);
    return { prefixes, rejected, dataDate: null };
  };
}

function isReject<V>(v: V | { readonly reject: string }): v is { readonly reject: string } {
  return typeof v === 'object' && v !== null && typeof (v as { reject?: unknown }).reject === 'string';
}

/**
 * Drops exact duplicates (same version, start and length), keeping the first
 * occurrence and the original order.
 */
export function uniquePrefixes<V>(prefixes: readonly Prefix<V>[]): Prefix<V>[] {
  const seen = new Set<string>();
  const out: Prefix<V>[] = [];
  for (const p of prefixes) {
    const key = `${p.version}/${p.start}/${p.length}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(p);
  }
  return out;
}
