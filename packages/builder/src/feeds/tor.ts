/**
 * Tor exit relays: The Tor Project's bulk exit list.
 *
 * Publisher format (https://check.torproject.org/torbulkexitlist): one IPv4
 * address per line, no header, the publisher's order. The mirror copy in
 * `feeds/tor/` adds ONE first line `# Last updated: <ISO time>` (the mirror's
 * fetch time); it is read as the data date and the source note says so. Any
 * other line that is not a single address (a prefix, junk) is a Diagnostic.
 *
 * Precedence: Tor is authoritative and specific: an exit address is Tor even
 * where broad lists (x4bnet VPN/datacenter ranges, blocklists) also match it.
 * bgp.tools `tags-tor.csv` (ASNs hosting relays) is context only and never
 * sets `is_tor`.
 *
 * @module
 */
import { defineFeed } from './declare.js';
import { lastUpdatedComment } from './read/dates.js';
import { parseCidrList } from './read/lines.js';
import type { PrefixesFound } from './types.js';

/**
 * Parses the bulk exit list. Value `true` per exit address (/32, or /128 if
 * the list ever carries IPv6).
 *
 * @throws FeedError when the file has no address line.
 * @example
 * parseTorExits('# Last updated: 2026-08-22T16:18:35.025Z\n185.220.101.1\n', 'tor-exits').dataDate
 * // => '2026-08-22T16:18:35.025Z'
 */
export function parseTorExits(data: Uint8Array | string, feed: string): PrefixesFound<true> {
  const { prefixes, rejected, comments } = parseCidrList(feed, data, () => true as const, { addressesOnly: true });
  const dataDate = lastUpdatedComment(comments);
  const mirrored = "Mirror copy (idleadmin/ThreatFeed): the publisher's list plus one added '# Last updated' line; data_date is the mirror's fetch time";
  return { prefixes, rejected, dataDate, ...(dataDate !== null ? { note: mirrored } : {}) };
}

export const TOR_EXITS = defineFeed({
  id: 'tor-exits',
  publisher: 'The Tor Project',
  url: 'https://check.torproject.org/torbulkexitlist',
  licence: 'not stated (Tor Project public data)',
  attribution_required: false,
  evidence: 'authoritative',
  format: 'one IPv4 address per line, no header',
  refresh: '1d',
  role: 'tor',
  use: 'build',
  origin: 'feeds',
  path: 'tor/torbulkexitlist.txt',
  download: { url: 'https://check.torproject.org/torbulkexitlist' },
  parse: parseTorExits,
});
