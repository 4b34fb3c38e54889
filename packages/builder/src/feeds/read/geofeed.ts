/**
 * RFC 8805 self-published geofeeds (DigitalOcean `geo/google.csv`, Linode
 * `geoip.linode.com`): CSV `ip_prefix,alpha2code,region,city,postal_code`,
 * no header row, `#` comment lines (Linode writes `# Last modified: ...`).
 * Only the prefix column is read here (the geo columns are the provider's
 * own statement about its ranges, not a geolocation source for the
 * snapshot). A line whose first field is not a prefix (or is one with host
 * bits set), or that is not valid CSV, is a Diagnostic; blank and comment
 * lines are not counted.
 *
 * @module
 */
import { FeedError } from '../../errors.js';
import type { Diagnostic, Prefix } from '../types.js';
import { defaultRouteEntry, parseCidr } from './cidr.js';
import { parseCsvLine } from './csv.js';
import { listLines } from './lines.js';
import type { CommentLine } from './lines.js';

export interface GeofeedPrefixes<V> {
  readonly prefixes: Prefix<V>[];
  readonly rejected: Diagnostic[];
  readonly comments: CommentLine[];
}

/**
 * The prefixes of a geofeed, each with `value`.
 *
 * @throws FeedError when the file has no data line, or no line starts with a prefix.
 * @example
 * parseGeofeedPrefixes('do', '159.203.0.0/16,US,US-NJ,North Bergen,07094\n', true).prefixes.length // => 1
 */
export function parseGeofeedPrefixes<V>(feed: string, data: Uint8Array | string, value: V): GeofeedPrefixes<V> {
  const { lines, comments } = listLines(data, { trailingComments: false });
  const prefixes: Prefix<V>[] = [];
  const rejected: Diagnostic[] = [];
  for (const l of lines) {
    const fields = parseCsvLine(l.text);
    if (fields === null) {
      rejected.push({ feed, line: l.line, message: 'malformed CSV (unbalanced quotes)' });
      continue;
    }
    const text = fields[0]!.trim();
    const c = parseCidr(text);
    if (!c.ok) {
      rejected.push({ feed, line: l.line, message: c.message });
      continue;
    }
    // Never widened to the network around it (read/lines.ts says why).
    if (c.hostBitsSet) {
      rejected.push({ feed, line: l.line, message: `host bits set: ${JSON.stringify(text)}` });
      continue;
    }
    const whole = defaultRouteEntry(c.length, text);
    if (whole !== null) {
      rejected.push({ feed, line: l.line, message: whole });
      continue;
    }
    prefixes.push({ version: c.version, start: c.start, length: c.length, value });
  }
  if (lines.length === 0) throw new FeedError(feed, 'feed_empty', 'no data line (empty geofeed)');
  if (prefixes.length === 0) {
    throw new FeedError(feed, 'feed_format', `no line starts with a prefix (line ${rejected[0]!.line}: ${rejected[0]!.message})`);
  }
  return { prefixes, rejected, comments };
}
