/**
 * Recent abuse: public blocklists of addresses reported for attacks, scans,
 * brute force or malware C2 in the last days. Evidence `beta`.
 *
 * Publisher formats:
 * - IPsum `ipsum.txt` (original): a `#` header with
 *   `# Last update: Sat, 22 Aug 2026 03:00:29 +0200`, then `IP<TAB>count`,
 *   count = how many of ~30 public blocklists hold the address. Every line is
 *   kept with its count as `lists`.
 * - The other lists as the idleadmin/ThreatFeed mirror stores them: one
 *   `# Last updated: <ISO>` line (the mirror's fetch time, used as the data
 *   date), then one IP per line (DShield and FireHOL: one CIDR per line).
 *   These are re-processed copies (see each source's note).
 *
 * Threshold rule ("recent abuse"): an IPsum entry counts only when at least
 * `IPSUM_MIN_LISTS` (2) lists hold it, as IPsum's own `levels/2.txt` does:
 * one listing on one of ~30 lists is too weak alone; IPsum's declaration says
 * so (`minLists`). The other feeds are each one publisher's own curated list
 * of the last days and count on their own (`isRecentAbuse`).
 *
 * Precedence: FireHOL level1 is an aggregate that also holds bogons
 * (fullbogons) and Spamhaus DROP; its declaration is `broad`, and the
 * combiner lets the bogon and DROP sources decide those addresses (a bogon
 * is not "recent abuse"; a DROP range is drop-listed). Where a specific
 * authoritative source (crawler, public resolver, iCloud relay) classifies an
 * address, that class stands and the blocklist only adds the abuse flag.
 *
 * @module
 */
import { parseDshieldBlock, parseThreatfox } from './abuse-formats.js';
import { defineFeed, type Download } from './declare.js';
import { newestLink } from './read/links.js';
import { parseCidr } from './read/cidr.js';
import { isoFromRfc5322, lastUpdatedComment } from './read/dates.js';
import { listLines, parseCidrList } from './read/lines.js';
import { FeedError } from '../errors.js';
import type { Diagnostic, Prefix, PrefixesFound } from './types.js';

/** How many lists hold the address (IPsum's count; 1 for a single list). */
export interface AbuseValue {
  readonly lists: number;
}

/** IPsum entries count as recent abuse from this many lists up (IPsum's level-2 file). */
export const IPSUM_MIN_LISTS = 2;

/**
 * Whether an entry of a feed declared with `minLists` (absent: 1) marks
 * recent abuse. (Bogon/DROP precedence over `broad` feeds is the combiner's job.)
 *
 * @example
 * isRecentAbuse({ minLists: 2 }, { lists: 1 }) // => false
 * isRecentAbuse({}, { lists: 1 })              // => true
 */
export function isRecentAbuse(feed: { readonly minLists?: number }, value: AbuseValue): boolean {
  return value.lists >= (feed.minLists ?? 1);
}

// ------------------------------------------------------------------ IPsum

/** Reads IPsum `ipsum.txt` (`IP<TAB>count`). */
export function parseIpsum(data: Uint8Array | string, id: string): PrefixesFound<AbuseValue> {
  const { lines, comments } = listLines(data);
  const prefixes: Prefix<AbuseValue>[] = [];
  const rejected: Diagnostic[] = [];
  for (const l of lines) {
    const m = /^(\S+)\s+(\d{1,4})$/.exec(l.text);
    const c = m && !m[1]!.includes('/') ? parseCidr(m[1]!) : null;
    const count = m ? Number(m[2]) : 0;
    if (!m || c === null) rejected.push({ feed: id, line: l.line, message: `expected IP<TAB>count: ${JSON.stringify(l.text.slice(0, 60))}` });
    else if (!c.ok) rejected.push({ feed: id, line: l.line, message: c.message });
    else if (count < 1) rejected.push({ feed: id, line: l.line, message: `list count ${count} < 1` });
    else prefixes.push({ version: c.version, start: c.start, length: c.length, value: { lists: count } });
  }
  if (lines.length === 0) throw new FeedError(id, 'feed_empty', 'no data line (empty list)');
  if (prefixes.length === 0) throw new FeedError(id, 'feed_format', `no line is IP<TAB>count (line ${rejected[0]!.line}: ${rejected[0]!.message})`);
  let date: string | null = null;
  for (const c of comments) {
    const m = /^Last update:\s*(.+)$/i.exec(c.text);
    if (m) date = isoFromRfc5322(m[1]!);
  }
  return { prefixes, rejected, dataDate: date };
}

// ---------------------------------------------------------- single lists

const ONE_LIST: AbuseValue = Object.freeze({ lists: 1 });

/**
 * A parser of the mirror's lists: `# Last updated: <ISO>` then one address
 * per line, or (`cidrs`) one CIDR per line; host bits set are rejected.
 */
export function abuseList(cidrs: boolean) {
  return (data: Uint8Array | string, feed: string): PrefixesFound<AbuseValue> => {
    const { prefixes, rejected, comments } = parseCidrList(feed, data, () => ONE_LIST, { addressesOnly: !cidrs });
    return { prefixes, rejected, dataDate: lastUpdatedComment(comments) };
  };
}

// ------------------------------------------------------------ declarations

const ABUSE = { attribution_required: true, evidence: 'beta', refresh: '1d', role: 'abuse', use: 'build', origin: 'feeds' } as const;
const MIRROR = 'idleadmin/ThreatFeed';
const ONE_IP = 'one IP per line plus a "# Last updated" header line';

/**
 * One list as the idleadmin/ThreatFeed mirror stores it. `parse` and
 * `format`, for a publisher whose own file differs (abuse-formats.ts), read
 * both; `download` for one whose official URL is a page that leads to it.
 */
const mirrored = (
  id: string, path: string, publisher: string, url: string, terms: string, processed: string,
  opts: { cidrs?: boolean; context?: boolean; parse?: typeof parseThreatfox; format?: string; download?: Download } = {},
) =>
  defineFeed({
    ...ABUSE,
    id,
    publisher,
    url,
    licence: `${terms}; mirror ${MIRROR} Apache-2.0`,
    note: `RE-PROCESSED by ${MIRROR}: ${processed}; data date = the mirror's "# Last updated" line`,
    format: opts.format ?? (opts.cidrs ? '# Last updated: <ISO> line, then one CIDR per line' : '# Last updated: <ISO> line, then one IP per line'),
    ...(opts.context ? { use: 'context' } : {}),
    path,
    // The publisher's own URL: `--fetch` gets the publisher's file, which the adapter reads as well.
    download: opts.download ?? { url },
    parse: opts.parse ?? abuseList(opts.cidrs ?? false),
  });

/** The abuse feeds; FireHOL level1 (context only) last. */
export const ABUSE_FEEDS = [
  defineFeed({
    ...ABUSE,
    id: 'abuse-ipsum',
    publisher: 'IPsum (stamparm)',
    url: 'https://raw.githubusercontent.com/stamparm/ipsum/master/ipsum.txt',
    licence: 'Unlicense (public domain)',
    attribution_required: false,
    note: `entries keep their list count; recent abuse needs count >= ${IPSUM_MIN_LISTS}`,
    format: '# header with Last update (RFC 5322), then IP<TAB>count (lists holding it)',
    minLists: IPSUM_MIN_LISTS,
    path: 'abuse/ipsum.txt',
    download: { url: 'https://raw.githubusercontent.com/stamparm/ipsum/master/ipsum.txt' },
    parse: parseIpsum,
  }),
  mirrored('abuse-blocklist-de', 'abuse/blocklist_de-all.txt', 'blocklist.de', 'https://lists.blocklist.de/lists/all.txt', 'not stated', `${ONE_IP}, sorted`),
  mirrored(
    'abuse-cinsscore', 'abuse/cinsscore-ci-badguys.txt', 'Collective Intelligence Network Security (CINS Army)', 'https://cinsscore.com/list/ci-badguys.txt', 'not stated', ONE_IP,
  ),
  mirrored('abuse-greensnow', 'abuse/greensnow.txt', 'GreenSnow', 'https://blocklist.greensnow.co/greensnow.txt', 'not stated', ONE_IP),
  mirrored(
    'abuse-et-compromised', 'abuse/et-compromised-ips.txt', 'Proofpoint Emerging Threats', 'https://rules.emergingthreats.net/blockrules/compromised-ips.txt',
    'Proofpoint ET Open terms', ONE_IP,
  ),
  mirrored(
    'abuse-threatfox', 'abuse/threatfox-ips.txt', 'abuse.ch ThreatFox', 'https://threatfox.abuse.ch/export/',
    'abuse.ch Terms of Use (2025-11-04): free for not-for-profit use, commercial use needs a Spamhaus subscription; exports need an Auth-Key', 'IPs only (ports of the IP:port IOCs stripped) plus a header line',
    {
      parse: parseThreatfox,
      format: "the publisher's ip:port CSV export (# banner, quoted records); the mirror's copy: one IP per line",
      // The export URL is an index page: the locator takes its ip:port CSV export of recent IOCs.
      download: { url: 'https://threatfox.abuse.ch/export/', locate: newestLink(/\/export\/csv\/ip-port\/recent\/?$/, 'the ip:port CSV export of recent IOCs') },
    },
  ),
  mirrored(
    'abuse-binarydefense', 'abuse/binarydefense-banlist.txt', 'Binary Defense (Artillery)', 'https://www.binarydefense.com/banlist.txt', 'not stated', ONE_IP,
  ),
  mirrored(
    'abuse-bruteforceblocker', 'abuse/bruteforceblocker.txt', 'danger.rulez.sk (BruteForceBlocker)', 'https://danger.rulez.sk/projects/bruteforceblocker/blist.php',
    'not stated', 'IPs only (the official "IP # date count id" columns dropped)',
  ),
  mirrored(
    'abuse-dshield', 'abuse/dshield-block.txt', 'SANS ISC DShield', 'https://feeds.dshield.org/block.txt', 'SANS ISC DShield terms',
    'a.b.c.0/24 per line (the official tab-separated start/end/netblock/attacks columns dropped)',
    { parse: parseDshieldBlock, format: "the publisher's tab-separated start, end, netblock, attacks... rows under a # banner; the mirror's copy: one CIDR per line" },
  ),
  mirrored(
    'abuse-firehol-level1', 'abuse/firehol_level1.txt', 'FireHOL', 'https://iplists.firehol.org/files/firehol_level1.netset', "each source's own terms",
    "FireHOL's header replaced by one line; context only: an aggregate of fullbogons, Spamhaus DROP and other lists, not abuse reports (docs/data.md)",
    { cidrs: true, context: true },
  ),
];
