/**
 * ASN lists with the name in a trailing comment, as X4BNet writes them
 * (`input/vpn/ASN.txt`, `input/datacenter/ASN.txt`):
 *
 * ```
 * AS9009 # M247, GB (NordVPN)
 * AS55286<TAB># SERVER-MANIA, CA
 * ```
 *
 * (bgp.tools `AS<n>,name` tag lists are read by `bgptools.ts`.)
 *
 * Rules: blank lines and whole-line `#` comments are skipped; every other
 * line is an entry or a Diagnostic. An ASN listed twice keeps its first name
 * and the later line is reported (`duplicate`), so `entries + rejected`
 * always equals the number of data lines. AS0 and numbers above 2^32-1 are
 * rejected. Names are trimmed; URLs inside X4BNet comments (issue links,
 * ipinfo pages) are not names and are removed, leaving null when nothing
 * else is left.
 *
 * @module
 */
import { FeedError } from '../../errors.js';
import type { Diagnostic } from '../types.js';
import { listLines } from './lines.js';
import type { CommentLine } from './lines.js';
import { parseAsn } from './numbers.js';

export interface AsnList<V> {
  readonly asns: Map<number, V>;
  readonly rejected: Diagnostic[];
  readonly comments: CommentLine[];
}

/** A free-text name without URLs and the punctuation they leave behind; null when empty. */
export function cleanName(text: string | null): string | null {
  if (text === null) return null;
  const s = text
    .replace(/https?:\/\/[^\s)]+/g, ' ')
    .replace(/\(\s*\)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[-–,;:]\s*|\s*[-–,;:]$/g, '')
    .trim();
  return s === '' ? null : s;
}

/**
 * `AS<n> # name` lines. The name is the comment, URLs removed (`cleanName`).
 *
 * @throws FeedError when the file has no data line or no line is an ASN entry.
 * @example
 * parseAsnCommentList('x', 'AS9009 # M247, GB (NordVPN)\n', (n) => n).asns // => Map { 9009 => 'M247, GB (NordVPN)' }
 */
export function parseAsnCommentList<V>(feed: string, data: Uint8Array | string, value: (name: string | null) => V): AsnList<V> {
  const { lines, comments } = listLines(data);
  const asns = new Map<number, V>();
  const firstLine = new Map<number, number>();
  const rejected: Diagnostic[] = [];
  for (const l of lines) {
    const asn = parseAsn(l.text);
    if (asn === null) {
      rejected.push({ feed, line: l.line, message: `not an ASN: ${JSON.stringify(l.text.slice(0, 40))}` });
      continue;
    }
    const first = firstLine.get(asn);
    if (first !== undefined) {
      rejected.push({ feed, line: l.line, message: `duplicate AS${asn} (first on line ${first})` });
      continue;
    }
    firstLine.set(asn, l.line);
    asns.set(asn, value(cleanName(l.comment)));
  }
  if (lines.length === 0) throw new FeedError(feed, 'feed_empty', 'no data line (empty list)');
  if (asns.size === 0) {
    const first = rejected[0]!;
    throw new FeedError(feed, 'feed_format', `no line is an ASN entry (line ${first.line}: ${first.message})`);
  }
  return { asns, rejected, comments };
}
