/**
 * Verified crawlers: the address ranges crawler operators publish so that
 * sites can verify a bot, each entry valued with the bot's name.
 *
 * Publisher formats:
 * - Google (`googlebot.json`, `special-crawlers.json`,
 *   `user-triggered-fetchers.json`) and Apple (`applebot.json`):
 *   `{"creationTime": "2026-08-21T14:45:42.000000", "prefixes": [{"ipv4Prefix": "66.249.64.0/27"}, {"ipv6Prefix": "2001:4860:4801:10::/64"}]}`;
 *   the zone-less creationTime is read as UTC.
 * - ipverse/bot-ip-blocks `crawlers.json` (re-processed aggregate):
 *   `{"services": {"GPTBot": {"ip_list_authoritative": true, "last_changed_at": "...", "ipv4": [...], "ipv6": [...]}, ...}}`.
 *   Services with `ip_list_authoritative: false` (Meta-ExternalAgent,
 *   Yandex: whole ASNs, not a verification list) are skipped and named in
 *   the source note; they are not rejected lines.
 * - Per-bot text lists extracted from the official JSON (Bingbot, OpenAI,
 *   DuckDuckBot, Perplexity): one CIDR per line (`lines.ts`).
 *
 * Every entry is a range the operator itself publishes, so the evidence is
 * `authoritative`; prefixes with host bits set are rejected, not widened, since
 * widening a verification range would vouch for addresses the operator never
 * listed.
 *
 * Precedence: `CRAWLER_FEEDS` is in precedence order. The operators' own
 * files come first, then the per-bot lists, then the ipverse aggregate (it
 * adds ClaudeBot, Amazonbot, CCBot, Ahrefs, ...), and last `openai-all`
 * (name "OpenAI"), which is only used where none of GPTBot, ChatGPT-User or
 * OAI-SearchBot matches. A crawler is a more specific authoritative class
 * than a broad list: where an aggregate blocklist or a VPN/hosting list also
 * holds a crawler range, the crawler source decides that address's class.
 *
 * @module
 */
import { FeedError } from '../errors.js';
import { defineFeed } from './declare.js';
import { defaultRouteEntry, parseCidr } from './read/cidr.js';
import { isoFromZonelessUtc } from './read/dates.js';
import { isObject, jsonType, parseJson } from './read/json.js';
import { constantCidrList } from './read/lines.js';
import type { Diagnostic, Prefix, PrefixesFound } from './types.js';

/** A verified crawler's name, e.g. `Googlebot`. */
export interface CrawlerValue {
  readonly name: string;
}

/**
 * A parser of the `{creationTime, prefixes: [{ipv4Prefix | ipv6Prefix}]}`
 * schema (Google's and Apple's files) whose ranges are the bot `name`.
 */
export function crawlerRangesJson(name: string) {
  const value = { name };
  return (data: Uint8Array | string, id: string): PrefixesFound<CrawlerValue> => {
    const doc = parseJson(id, data);
    const list = isObject(doc) ? doc['prefixes'] : undefined;
    if (!Array.isArray(list)) throw new FeedError(id, 'feed_format', 'expected an object with a "prefixes" array');
    const prefixes: Prefix<CrawlerValue>[] = [];
    const rejected: Diagnostic[] = [];
    list.forEach((item: unknown, i) => {
      const v4 = isObject(item) ? item['ipv4Prefix'] : undefined;
      const v6 = isObject(item) ? item['ipv6Prefix'] : undefined;
      const text = typeof v4 === 'string' ? v4 : typeof v6 === 'string' ? v6 : null;
      if (text === null || (v4 !== undefined && v6 !== undefined)) {
        rejected.push({ feed: id, line: i + 1, message: 'record needs exactly one of ipv4Prefix / ipv6Prefix (a string)' });
        return;
      }
      const p = cidrEntry(text, typeof v4 === 'string' ? 4 : 6, value);
      if (typeof p === 'string') rejected.push({ feed: id, line: i + 1, message: p });
      else prefixes.push(p);
    });
    if (prefixes.length === 0) throw new FeedError(id, 'feed_format', `no usable prefix among ${list.length} records`);
    return { prefixes, rejected, dataDate: isObject(doc) ? isoFromZonelessUtc(doc['creationTime']) : null };
  };
}

// ----------------------------------------------------------- ipverse aggregate

/**
 * Reads ipverse `crawlers.json`. Diagnostics number the prefixes 1.. across
 * the whole file in file order; a service that is not an object, or an
 * `ipv4` / `ipv6` member that is not an array, is one rejected record in
 * that count (the other services and members are read). `data_date` is the
 * newest `last_changed_at`.
 */
export function parseIpverseCrawlers(data: Uint8Array | string, id: string): PrefixesFound<CrawlerValue> {
  const doc = parseJson(id, data);
  const services = isObject(doc) ? doc['services'] : undefined;
  if (!isObject(services)) throw new FeedError(id, 'feed_format', 'expected an object with a "services" object');
  const prefixes: Prefix<CrawlerValue>[] = [];
  const rejected: Diagnostic[] = [];
  const skipped: string[] = [];
  let index = 0;
  let newest: string | null = null;
  // One damaged service is its own rejected record, not a reason to refuse every other crawler's ranges.
  const lengthOf = (list: unknown): number => (Array.isArray(list) ? list.length : 0);
  for (const [name, svc] of Object.entries(services)) {
    if (!isObject(svc)) {
      rejected.push({ feed: id, line: ++index, message: `service ${JSON.stringify(name)} is ${jsonType(svc)}, not an object` });
      continue;
    }
    const v4: unknown = svc['ipv4'] ?? [];
    const v6: unknown = svc['ipv6'] ?? [];
    if (svc['ip_list_authoritative'] !== true) {
      skipped.push(`${name} (${lengthOf(v4)} IPv4 + ${lengthOf(v6)} IPv6)`);
      index += lengthOf(v4) + lengthOf(v6);
      continue;
    }
    const changed = isoFromZonelessUtc(svc['last_changed_at']);
    if (changed !== null && (newest === null || changed > newest)) newest = changed;
    const value = { name };
    for (const [version, list] of [[4, v4], [6, v6]] as const) {
      if (!Array.isArray(list)) {
        rejected.push({ feed: id, line: ++index, message: `${name} ipv${version} is ${jsonType(list)}, not an array` });
        continue;
      }
      list.forEach((text: unknown, i) => {
        index++;
        const p = typeof text === 'string' ? cidrEntry(text, version, value) : 'not a string';
        if (typeof p === 'string') rejected.push({ feed: id, line: index, message: `${name} ipv${version}[${i}]: ${p}` });
        else prefixes.push(p);
      });
    }
  }
  if (prefixes.length === 0) throw new FeedError(id, 'feed_format', 'no usable prefix in any authoritative service');
  const note =
    'RE-PROCESSED aggregate of the operators\' lists (CIDRs collapsed) by ipverse/bot-ip-blocks; ' +
    `skipped ASN-wide services (ip_list_authoritative: false), not verification lists: ${skipped.join(', ') || 'none'}`;
  return { prefixes, rejected, dataDate: newest, note };
}

// ------------------------------------------------------------ per-bot lists

/** A parser of a one-CIDR-per-line list whose ranges are the bot `name`; host bits set are rejected. */
export const crawlerList = (name: string): ((data: Uint8Array | string, feed: string) => PrefixesFound<CrawlerValue>) =>
  constantCidrList({ name });

// ------------------------------------------------------------ declarations

const CRAWLER = { attribution_required: false, evidence: 'authoritative', role: 'crawler', use: 'build', origin: 'feeds' } as const;
const IP_RANGES_JSON = 'JSON {creationTime (zone-less UTC), prefixes[].ipv4Prefix|ipv6Prefix}';
const GOOGLE = 'https://developers.google.com/static/search/apis/ipranges/';

/** Google's and Apple's own files: `{creationTime, prefixes}`. */
const operatorFile = (id: string, name: string, path: string, publisher: string, url: string) =>
  defineFeed({
    ...CRAWLER,
    id,
    publisher,
    url,
    licence: `${publisher} public file (no licence stated)`,
    format: IP_RANGES_JSON,
    refresh: '7d',
    path,
    download: { url },
    parse: crawlerRangesJson(name),
  });

const LORD_ALFRED = 'lord-alfred/ipranges (CC0)';
const BORESTAD = 'borestad/iplists (no licence file; README says MIT)';

/** A per-bot list extracted from the operator's JSON by a third party; `url` is the operator's file. */
const extractedList = (id: string, name: string, path: string, publisher: string, url: string, via: string, extra = '') =>
  defineFeed({
    ...CRAWLER,
    id,
    publisher,
    url,
    licence: `not stated by ${publisher}; extracted list from ${via}`,
    note: `RE-PROCESSED: one CIDR per line extracted from ${url} by ${via.replace(/ \(.*$/, '')}; the official JSON was not available${extra}`,
    format: 'one CIDR per line',
    refresh: '30d',
    path,
    // The operator's JSON: a different format from this extract (see issue 8 on --fetch).
    download: { url },
    parse: crawlerList(name),
  });

/** The crawler feeds, in precedence order (see the module header). */
export const CRAWLER_FEEDS = [
  operatorFile('crawler-googlebot', 'Googlebot', 'crawlers/googlebot.json', 'Google', `${GOOGLE}googlebot.json`),
  operatorFile('crawler-google-special', 'Google Special Crawler', 'crawlers/special-crawlers.json', 'Google', `${GOOGLE}special-crawlers.json`),
  operatorFile(
    'crawler-google-user-triggered', 'Google User-Triggered Fetcher', 'crawlers/user-triggered-fetchers.json', 'Google', `${GOOGLE}user-triggered-fetchers.json`,
  ),
  operatorFile('crawler-applebot', 'Applebot', 'crawlers/applebot.json', 'Apple', 'https://search.developer.apple.com/applebot.json'),
  extractedList('crawler-bingbot', 'Bingbot', 'crawlers/bingbot-ipv4.txt', 'Microsoft', 'https://www.bing.com/toolbox/bingbot.json', LORD_ALFRED),
  extractedList('crawler-openai-gptbot', 'GPTBot', 'crawlers/openai-gptbot-ipv4.txt', 'OpenAI', 'https://openai.com/gptbot.json', BORESTAD),
  extractedList(
    'crawler-openai-chatgpt-user', 'ChatGPT-User', 'crawlers/openai-chatgpt-user-ipv4.txt', 'OpenAI', 'https://openai.com/chatgpt-user.json', BORESTAD,
  ),
  extractedList(
    'crawler-openai-searchbot', 'OAI-SearchBot', 'crawlers/openai-searchbot-ipv4.txt', 'OpenAI', 'https://openai.com/searchbot.json', BORESTAD,
  ),
  extractedList(
    'crawler-duckduckbot', 'DuckDuckBot', 'crawlers/duckduckbot-ipv4.txt', 'DuckDuckGo', 'https://duckduckgo.com/duckduckbot.json', LORD_ALFRED,
  ),
  extractedList(
    'crawler-perplexitybot', 'PerplexityBot', 'crawlers/perplexity-ipv4.txt', 'Perplexity', 'https://www.perplexity.ai/perplexitybot.json', LORD_ALFRED,
  ),
  defineFeed({
    ...CRAWLER,
    id: 'crawler-ipverse',
    publisher: "ipverse (bot-ip-blocks), from each operator's list",
    url: 'https://raw.githubusercontent.com/ipverse/bot-ip-blocks/HEAD/crawlers.json',
    licence: 'CC0-1.0',
    format: 'JSON {services: {<name>: {ip_list_authoritative, last_changed_at, ipv4: [CIDR], ipv6: [CIDR]}}}',
    refresh: '1d',
    path: 'crawlers/ipverse-crawlers.json',
    download: { url: 'https://raw.githubusercontent.com/ipverse/bot-ip-blocks/HEAD/crawlers.json' },
    parse: parseIpverseCrawlers,
  }),
  extractedList(
    'crawler-openai-all', 'OpenAI', 'crawlers/openai-all-ipv4.txt', 'OpenAI', 'https://openai.com/gptbot.json', LORD_ALFRED,
    '; union of the GPTBot, ChatGPT-User and OAI-SearchBot lists without bot names: used only where those specific lists do not match',
  ),
];

// ----------------------------------------------------------------- helpers

/** A prefix of the expected family with host bits zero, or the reason it is not. */
function cidrEntry<V>(text: string, version: 4 | 6, value: V): Prefix<V> | string {
  const c = parseCidr(text.trim());
  if (!c.ok) return c.message;
  if (c.version !== version) return `IPv${c.version} prefix where IPv${version} is expected: ${JSON.stringify(text)}`;
  if (c.hostBitsSet) return `host bits set: ${JSON.stringify(text)}`;
  return defaultRouteEntry(c.length, text) ?? { version, start: c.start, length: c.length, value };
}
