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
 * one listing on one of ~30 lists is too weak alone. The other feeds are each
 * one publisher's own curated list of the last days and count on their own
 * (`isRecentAbuse`).
 *
 * Precedence: FireHOL level1 is an aggregate that also holds bogons
 * (fullbogons) and Spamhaus DROP; its value is marked `broad: true`, and the
 * combiner lets the bogon and DROP sources decide those addresses (a bogon
 * is not "recent abuse"; a DROP range is drop-listed). Where a specific
 * authoritative source (crawler, public resolver, iCloud relay) classifies an
 * address, that class stands and the blocklist only adds the abuse flag.
 *
 * @module
 */
import { isoFromRfc5322, lastUpdatedComment } from './dates.js';
import { listLines, parseCidrList } from './lines.js';
import type { FeedSpec } from './spec.js';
import { parseCidr } from './cidr.js';
import { FeedError } from './types.js';
import type { Diagnostic, Prefix, PrefixFeed, SourceMeta } from './types.js';

/** How many lists hold the address (IPsum's count; 1 for a single list), and whether the list is a broad aggregate. */
export interface AbuseValue {
  readonly lists: number;
  readonly broad: boolean;
}

/** IPsum entries count as recent abuse from this many lists up (IPsum's level-2 file). */
export const IPSUM_MIN_LISTS = 2;

const IPSUM_ID = 'abuse-ipsum';

/**
 * Whether an entry of feed `feedId` marks recent abuse: IPsum entries need
 * `IPSUM_MIN_LISTS` lists, any other abuse feed's entry counts on its own.
 * (Bogon/DROP precedence over `broad` entries is the combiner's job.)
 *
 * @example
 * isRecentAbuse('abuse-ipsum', { lists: 1, broad: false }) // => false
 * isRecentAbuse('abuse-blocklist-de', { lists: 1, broad: false }) // => true
 */
export function isRecentAbuse(feedId: string, value: AbuseValue): boolean {
  return feedId === IPSUM_ID ? value.lists >= IPSUM_MIN_LISTS : value.lists >= 1;
}

// ------------------------------------------------------------------ IPsum

const IPSUM_META: SourceMeta = {
  id: IPSUM_ID,
  publisher: 'IPsum (stamparm)',
  url: 'https://raw.githubusercontent.com/stamparm/ipsum/master/ipsum.txt',
  licence: 'Unlicense (public domain)',
  attribution_required: false,
  data_date: null,
  evidence: 'beta',
  note: `entries keep their list count; recent abuse needs count >= ${IPSUM_MIN_LISTS}`,
};

/** Reads IPsum `ipsum.txt` (`IP<TAB>count`). */
export function parseIpsum(data: Uint8Array | string): PrefixFeed<AbuseValue> {
  const id = IPSUM_META.id;
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
    else prefixes.push({ version: c.version, start: c.start, length: c.length, value: { lists: count, broad: false } });
  }
  if (lines.length === 0) throw new FeedError(id, 'no data line (empty list)');
  if (prefixes.length === 0) throw new FeedError(id, `no line is IP<TAB>count (line ${rejected[0]!.line}: ${rejected[0]!.message})`);
  let date: string | null = null;
  for (const c of comments) {
    const m = /^Last update:\s*(.+)$/i.exec(c.text);
    if (m) date = isoFromRfc5322(m[1]!);
  }
  return { source: { ...IPSUM_META, data_date: date, entries: prefixes.length }, prefixes, rejected };
}

// ---------------------------------------------------------- single lists

interface ListSpec {
  readonly meta: SourceMeta;
  readonly path: string;
  readonly cidrs: boolean;
  readonly broad: boolean;
}

const MIRROR = 'idleadmin/ThreatFeed';

const list = (
  id: string, path: string, publisher: string, url: string, terms: string, processed: string, opts: { cidrs?: boolean; broad?: boolean } = {},
): ListSpec => ({
  path,
  cidrs: opts.cidrs ?? false,
  broad: opts.broad ?? false,
  meta: {
    id,
    publisher,
    url,
    licence: `${terms}; mirror ${MIRROR} Apache-2.0`,
    attribution_required: true,
    data_date: null,
    evidence: 'beta',
    note: `RE-PROCESSED by ${MIRROR}: ${processed}; data date = the mirror's "# Last updated" line`,
  },
});

const ONE_IP = 'one IP per line plus a "# Last updated" header line';

const BLOCKLIST_DE = list('abuse-blocklist-de', 'abuse/blocklist_de-all.txt', 'blocklist.de', 'https://lists.blocklist.de/lists/all.txt', 'not stated', `${ONE_IP}, sorted`);
const CINSSCORE = list(
  'abuse-cinsscore', 'abuse/cinsscore-ci-badguys.txt', 'Collective Intelligence Network Security (CINS Army)', 'https://cinsscore.com/list/ci-badguys.txt', 'not stated', ONE_IP,
);
const GREENSNOW = list('abuse-greensnow', 'abuse/greensnow.txt', 'GreenSnow', 'https://blocklist.greensnow.co/greensnow.txt', 'not stated', ONE_IP);
const ET_COMPROMISED = list(
  'abuse-et-compromised', 'abuse/et-compromised-ips.txt', 'Proofpoint Emerging Threats', 'https://rules.emergingthreats.net/blockrules/compromised-ips.txt',
  'Proofpoint ET Open terms', ONE_IP,
);
const THREATFOX = list(
  'abuse-threatfox', 'abuse/threatfox-ips.txt', 'abuse.ch ThreatFox', 'https://threatfox.abuse.ch/export/', 'CC0 (abuse.ch)', 'IPs only (ports of the IP:port IOCs stripped) plus a header line',
);
const BINARYDEFENSE = list(
  'abuse-binarydefense', 'abuse/binarydefense-banlist.txt', 'Binary Defense (Artillery)', 'https://www.binarydefense.com/banlist.txt', 'not stated', ONE_IP,
);
const BRUTEFORCEBLOCKER = list(
  'abuse-bruteforceblocker', 'abuse/bruteforceblocker.txt', 'danger.rulez.sk (BruteForceBlocker)', 'https://danger.rulez.sk/projects/bruteforceblocker/blist.php',
  'not stated', 'IPs only (the official "IP # date count id" columns dropped)',
);
const DSHIELD = list(
  'abuse-dshield', 'abuse/dshield-block.txt', 'SANS ISC DShield', 'https://feeds.dshield.org/block.txt', 'SANS ISC DShield terms',
  'a.b.c.0/24 per line (the official tab-separated start/end/netblock/attacks columns dropped)', { cidrs: true },
);
const FIREHOL_L1 = list(
  'abuse-firehol-level1', 'abuse/firehol_level1.txt', 'FireHOL', 'https://iplists.firehol.org/files/firehol_level1.netset', "each source's own terms",
  "FireHOL's header replaced by one line; broad aggregate (also holds fullbogons and Spamhaus DROP): bogon/DROP sources decide those addresses",
  { cidrs: true, broad: true },
);

function parseAbuseList(spec: ListSpec, data: Uint8Array | string): PrefixFeed<AbuseValue> {
  const value: AbuseValue = { lists: 1, broad: spec.broad };
  const { prefixes, rejected, comments } = parseCidrList(spec.meta.id, data, () => value, { hostBits: 'reject', addressesOnly: !spec.cidrs });
  const source = { ...spec.meta, data_date: lastUpdatedComment(comments), entries: prefixes.length };
  return { source, prefixes, rejected };
}

type Parse = (data: Uint8Array | string) => PrefixFeed<AbuseValue>;
export const parseBlocklistDe: Parse = (d) => parseAbuseList(BLOCKLIST_DE, d);
export const parseCinsscore: Parse = (d) => parseAbuseList(CINSSCORE, d);
export const parseGreensnow: Parse = (d) => parseAbuseList(GREENSNOW, d);
export const parseEtCompromised: Parse = (d) => parseAbuseList(ET_COMPROMISED, d);
export const parseThreatfox: Parse = (d) => parseAbuseList(THREATFOX, d);
export const parseBinarydefense: Parse = (d) => parseAbuseList(BINARYDEFENSE, d);
export const parseBruteforceblocker: Parse = (d) => parseAbuseList(BRUTEFORCEBLOCKER, d);
export const parseDshield: Parse = (d) => parseAbuseList(DSHIELD, d);
/** FireHOL level1: every entry is `broad: true` (see the module header). */
export const parseFireholLevel1: Parse = (d) => parseAbuseList(FIREHOL_L1, d);

// ---------------------------------------------------------------- registry

const spec = (s: ListSpec, parse: Parse): FeedSpec => ({ id: s.meta.id, path: s.path, url: s.meta.url, kind: 'prefix', parse });

/** The abuse feeds; FireHOL level1 (broad) last. */
export const ABUSE_FEEDS: readonly FeedSpec[] = [
  { id: IPSUM_META.id, path: 'abuse/ipsum.txt', url: IPSUM_META.url, kind: 'prefix', parse: parseIpsum },
  spec(BLOCKLIST_DE, parseBlocklistDe),
  spec(CINSSCORE, parseCinsscore),
  spec(GREENSNOW, parseGreensnow),
  spec(ET_COMPROMISED, parseEtCompromised),
  spec(THREATFOX, parseThreatfox),
  spec(BINARYDEFENSE, parseBinarydefense),
  spec(BRUTEFORCEBLOCKER, parseBruteforceblocker),
  spec(DSHIELD, parseDshield),
  spec(FIREHOL_L1, parseFireholLevel1),
];
