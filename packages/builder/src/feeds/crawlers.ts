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
import { feedText, parseCidr } from './cidr.js';
import { isoFromZonelessUtc } from './dates.js';
import { parseCidrList } from './lines.js';
import type { FeedSpec } from './spec.js';
import { FeedError } from './types.js';
import type { Diagnostic, Prefix, PrefixFeed, SourceMeta } from './types.js';

/** A verified crawler's name, e.g. `Googlebot`. */
export interface CrawlerValue {
  readonly name: string;
}

const GOOGLE = 'https://developers.google.com/static/search/apis/ipranges/';

// ---------------------------------------------------------------- JSON files

interface JsonSpec {
  readonly meta: SourceMeta;
  readonly name: string;
}

const jsonMeta = (id: string, publisher: string, url: string, licence: string): SourceMeta => ({
  id,
  publisher,
  url,
  licence,
  attribution_required: false,
  data_date: null,
  evidence: 'authoritative',
});

const GOOGLEBOT: JsonSpec = {
  meta: jsonMeta('crawler-googlebot', 'Google', `${GOOGLE}googlebot.json`, 'Google public file (no licence stated)'),
  name: 'Googlebot',
};
const GOOGLE_SPECIAL: JsonSpec = {
  meta: jsonMeta('crawler-google-special', 'Google', `${GOOGLE}special-crawlers.json`, 'Google public file (no licence stated)'),
  name: 'Google Special Crawler',
};
const GOOGLE_USER: JsonSpec = {
  meta: jsonMeta('crawler-google-user-triggered', 'Google', `${GOOGLE}user-triggered-fetchers.json`, 'Google public file (no licence stated)'),
  name: 'Google User-Triggered Fetcher',
};
const APPLEBOT: JsonSpec = {
  meta: jsonMeta('crawler-applebot', 'Apple', 'https://search.developer.apple.com/applebot.json', 'Apple public file (no licence stated)'),
  name: 'Applebot',
};

/** Reads the `{creationTime, prefixes: [{ipv4Prefix | ipv6Prefix}]}` schema. */
function parseIpRangesJson(spec: JsonSpec, data: Uint8Array | string): PrefixFeed<CrawlerValue> {
  const id = spec.meta.id;
  const doc = parseJson(id, data);
  const list = isObject(doc) ? doc['prefixes'] : undefined;
  if (!Array.isArray(list)) throw new FeedError(id, 'expected an object with a "prefixes" array');
  const prefixes: Prefix<CrawlerValue>[] = [];
  const rejected: Diagnostic[] = [];
  const value = { name: spec.name };
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
  if (prefixes.length === 0) throw new FeedError(id, `no usable prefix among ${list.length} records`);
  const date = isObject(doc) ? isoFromZonelessUtc(doc['creationTime']) : null;
  return { source: { ...spec.meta, data_date: date, entries: prefixes.length }, prefixes, rejected };
}

export const parseGooglebot = (data: Uint8Array | string): PrefixFeed<CrawlerValue> => parseIpRangesJson(GOOGLEBOT, data);
export const parseGoogleSpecialCrawlers = (data: Uint8Array | string): PrefixFeed<CrawlerValue> =>
  parseIpRangesJson(GOOGLE_SPECIAL, data);
export const parseGoogleUserTriggeredFetchers = (data: Uint8Array | string): PrefixFeed<CrawlerValue> =>
  parseIpRangesJson(GOOGLE_USER, data);
export const parseApplebot = (data: Uint8Array | string): PrefixFeed<CrawlerValue> => parseIpRangesJson(APPLEBOT, data);

// ----------------------------------------------------------- ipverse aggregate

const IPVERSE_META: SourceMeta = {
  id: 'crawler-ipverse',
  publisher: 'ipverse (bot-ip-blocks), from each operator\'s list',
  url: 'https://raw.githubusercontent.com/ipverse/bot-ip-blocks/HEAD/crawlers.json',
  licence: 'CC0-1.0',
  attribution_required: false,
  data_date: null,
  evidence: 'authoritative',
};

/**
 * Reads ipverse `crawlers.json`. Diagnostics number the prefixes 1.. across
 * the whole file in file order. `data_date` is the newest `last_changed_at`.
 */
export function parseIpverseCrawlers(data: Uint8Array | string): PrefixFeed<CrawlerValue> {
  const id = IPVERSE_META.id;
  const doc = parseJson(id, data);
  const services = isObject(doc) ? doc['services'] : undefined;
  if (!isObject(services)) throw new FeedError(id, 'expected an object with a "services" object');
  const prefixes: Prefix<CrawlerValue>[] = [];
  const rejected: Diagnostic[] = [];
  const skipped: string[] = [];
  let index = 0;
  let newest: string | null = null;
  for (const [name, svc] of Object.entries(services)) {
    if (!isObject(svc)) throw new FeedError(id, `service ${JSON.stringify(name)} is not an object`);
    const v4 = svc['ipv4'] ?? [];
    const v6 = svc['ipv6'] ?? [];
    if (!Array.isArray(v4) || !Array.isArray(v6)) throw new FeedError(id, `service ${JSON.stringify(name)}: ipv4/ipv6 are not arrays`);
    if (svc['ip_list_authoritative'] !== true) {
      skipped.push(`${name} (${v4.length} IPv4 + ${v6.length} IPv6)`);
      index += v4.length + v6.length;
      continue;
    }
    const changed = isoFromZonelessUtc(svc['last_changed_at']);
    if (changed !== null && (newest === null || changed > newest)) newest = changed;
    const value = { name };
    for (const [version, list] of [[4, v4], [6, v6]] as const) {
      list.forEach((text: unknown, i) => {
        index++;
        const p = typeof text === 'string' ? cidrEntry(text, version, value) : 'not a string';
        if (typeof p === 'string') rejected.push({ feed: id, line: index, message: `${name} ipv${version}[${i}]: ${p}` });
        else prefixes.push(p);
      });
    }
  }
  if (prefixes.length === 0) throw new FeedError(id, 'no usable prefix in any authoritative service');
  const note =
    'RE-PROCESSED aggregate of the operators\' lists (CIDRs collapsed) by ipverse/bot-ip-blocks; ' +
    `skipped ASN-wide services (ip_list_authoritative: false), not verification lists: ${skipped.join(', ') || 'none'}`;
  return { source: { ...IPVERSE_META, data_date: newest, entries: prefixes.length, note }, prefixes, rejected };
}

// ------------------------------------------------------------ per-bot lists

interface ListSpec {
  readonly meta: SourceMeta;
  readonly name: string;
  readonly path: string;
}

const LORD_ALFRED = 'lord-alfred/ipranges (CC0)';
const BORESTAD = 'borestad/iplists (no licence file; README says MIT)';

const listSpec = (id: string, name: string, path: string, publisher: string, url: string, via: string, extra = ''): ListSpec => ({
  name,
  path,
  meta: {
    id,
    publisher,
    url,
    licence: `not stated by ${publisher}; extracted list from ${via}`,
    attribution_required: false,
    data_date: null,
    evidence: 'authoritative',
    note: `RE-PROCESSED: one CIDR per line extracted from ${url} by ${via.replace(/ \(.*$/, '')}; the official JSON was not available${extra}`,
  },
});

const BINGBOT = listSpec('crawler-bingbot', 'Bingbot', 'crawlers/bingbot-ipv4.txt', 'Microsoft', 'https://www.bing.com/toolbox/bingbot.json', LORD_ALFRED);
const GPTBOT = listSpec('crawler-openai-gptbot', 'GPTBot', 'crawlers/openai-gptbot-ipv4.txt', 'OpenAI', 'https://openai.com/gptbot.json', BORESTAD);
const CHATGPT_USER = listSpec(
  'crawler-openai-chatgpt-user', 'ChatGPT-User', 'crawlers/openai-chatgpt-user-ipv4.txt', 'OpenAI', 'https://openai.com/chatgpt-user.json', BORESTAD,
);
const OAI_SEARCHBOT = listSpec(
  'crawler-openai-searchbot', 'OAI-SearchBot', 'crawlers/openai-searchbot-ipv4.txt', 'OpenAI', 'https://openai.com/searchbot.json', BORESTAD,
);
const OPENAI_ALL = listSpec(
  'crawler-openai-all', 'OpenAI', 'crawlers/openai-all-ipv4.txt', 'OpenAI', 'https://openai.com/gptbot.json', LORD_ALFRED,
  '; union of the GPTBot, ChatGPT-User and OAI-SearchBot lists without bot names: used only where those specific lists do not match',
);
const DUCKDUCKBOT = listSpec(
  'crawler-duckduckbot', 'DuckDuckBot', 'crawlers/duckduckbot-ipv4.txt', 'DuckDuckGo', 'https://duckduckgo.com/duckduckbot.json', LORD_ALFRED,
);
const PERPLEXITYBOT = listSpec(
  'crawler-perplexitybot', 'PerplexityBot', 'crawlers/perplexity-ipv4.txt', 'Perplexity', 'https://www.perplexity.ai/perplexitybot.json', LORD_ALFRED,
);

function parseCrawlerList(spec: ListSpec, data: Uint8Array | string): PrefixFeed<CrawlerValue> {
  const value = { name: spec.name };
  const { prefixes, rejected } = parseCidrList(spec.meta.id, data, () => value, { hostBits: 'reject' });
  return { source: { ...spec.meta, entries: prefixes.length }, prefixes, rejected };
}

export const parseBingbot = (data: Uint8Array | string): PrefixFeed<CrawlerValue> => parseCrawlerList(BINGBOT, data);
export const parseGptbot = (data: Uint8Array | string): PrefixFeed<CrawlerValue> => parseCrawlerList(GPTBOT, data);
export const parseChatgptUser = (data: Uint8Array | string): PrefixFeed<CrawlerValue> => parseCrawlerList(CHATGPT_USER, data);
export const parseOaiSearchbot = (data: Uint8Array | string): PrefixFeed<CrawlerValue> => parseCrawlerList(OAI_SEARCHBOT, data);
export const parseOpenaiAll = (data: Uint8Array | string): PrefixFeed<CrawlerValue> => parseCrawlerList(OPENAI_ALL, data);
export const parseDuckduckbot = (data: Uint8Array | string): PrefixFeed<CrawlerValue> => parseCrawlerList(DUCKDUCKBOT, data);
export const parsePerplexitybot = (data: Uint8Array | string): PrefixFeed<CrawlerValue> => parseCrawlerList(PERPLEXITYBOT, data);

// ---------------------------------------------------------------- registry

const spec = (id: string, path: string, url: string, parse: FeedSpec['parse']): FeedSpec => ({ id, path, url, kind: 'prefix', parse });

/** The crawler feeds, in precedence order (see the module header). */
export const CRAWLER_FEEDS: readonly FeedSpec[] = [
  spec(GOOGLEBOT.meta.id, 'crawlers/googlebot.json', GOOGLEBOT.meta.url, parseGooglebot),
  spec(GOOGLE_SPECIAL.meta.id, 'crawlers/special-crawlers.json', GOOGLE_SPECIAL.meta.url, parseGoogleSpecialCrawlers),
  spec(GOOGLE_USER.meta.id, 'crawlers/user-triggered-fetchers.json', GOOGLE_USER.meta.url, parseGoogleUserTriggeredFetchers),
  spec(APPLEBOT.meta.id, 'crawlers/applebot.json', APPLEBOT.meta.url, parseApplebot),
  spec(BINGBOT.meta.id, BINGBOT.path, BINGBOT.meta.url, parseBingbot),
  spec(GPTBOT.meta.id, GPTBOT.path, GPTBOT.meta.url, parseGptbot),
  spec(CHATGPT_USER.meta.id, CHATGPT_USER.path, CHATGPT_USER.meta.url, parseChatgptUser),
  spec(OAI_SEARCHBOT.meta.id, OAI_SEARCHBOT.path, OAI_SEARCHBOT.meta.url, parseOaiSearchbot),
  spec(DUCKDUCKBOT.meta.id, DUCKDUCKBOT.path, DUCKDUCKBOT.meta.url, parseDuckduckbot),
  spec(PERPLEXITYBOT.meta.id, PERPLEXITYBOT.path, PERPLEXITYBOT.meta.url, parsePerplexitybot),
  spec(IPVERSE_META.id, 'crawlers/ipverse-crawlers.json', IPVERSE_META.url, parseIpverseCrawlers),
  spec(OPENAI_ALL.meta.id, OPENAI_ALL.path, OPENAI_ALL.meta.url, parseOpenaiAll),
];

// ----------------------------------------------------------------- helpers

/** A prefix of the expected family with host bits zero, or the reason it is not. */
function cidrEntry<V>(text: string, version: 4 | 6, value: V): Prefix<V> | string {
  const c = parseCidr(text.trim());
  if (!c.ok) return c.message;
  if (c.version !== version) return `IPv${c.version} prefix where IPv${version} is expected: ${JSON.stringify(text)}`;
  if (c.hostBitsSet) return `host bits set: ${JSON.stringify(text)}`;
  return { version, start: c.start, length: c.length, value };
}

function parseJson(feed: string, data: Uint8Array | string): unknown {
  const text = feedText(data);
  if (text.trim() === '') throw new FeedError(feed, 'empty file');
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new FeedError(feed, `not JSON: ${(e as Error).message}`);
  }
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
