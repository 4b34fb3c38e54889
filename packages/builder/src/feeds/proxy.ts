/**
 * Open / anonymising proxies: monosans/proxy-list (checked by
 * monosans/proxy-scraper-checker), two views of the same proxies.
 *
 * Publisher formats:
 * - `proxies.json`: a JSON array of
 *   `{protocol, username, password, host, port, timeout, exit_ip, asn, geolocation}`.
 *   `host` is the address a client connects to, `exit_ip` the address a
 *   website sees through the proxy (often different: a gateway, a CDN). BOTH
 *   are proxy addresses; each record yields its host and its exit_ip, and
 *   repeated addresses are kept once (so `entries` = distinct addresses, not
 *   records). A record whose host or exit_ip is not an IP address gives a
 *   Diagnostic numbered by record (1-based) for that field; the other field
 *   is still read.
 * - `proxies/all.txt`: `protocol://host:port` per line (`[v6]:port` for IPv6,
 *   optional `user:pass@`). Hosts repeat across protocols/ports; kept once.
 *
 * Precedence: a proxy list is `beta` evidence and never overrides a
 * specific authoritative class; the combiner only sets `is_proxy`. An exit_ip
 * inside a verified crawler's range is not reported as a proxy (docs/data.md
 * rule 5); inside the iCloud relay ranges it is still a proxy exit, and the
 * relay class decides the address's provider.
 *
 * @module
 */
import { FeedError } from '../errors.js';
import { defineFeed } from './declare.js';
import { parseAddressValue } from './read/cidr.js';
import { isObject, jsonType, parseJson } from './read/json.js';
import { uniquePrefixes } from './read/lines.js';
import { feedText, splitLines } from './read/text.js';
import type { Diagnostic, Prefix, PrefixesFound } from './types.js';

function hostPrefix(text: string): Prefix<true> | null {
  const a = parseAddressValue(text);
  return a === null ? null : { version: a.version, start: a.value, length: a.version === 4 ? 32 : 128, value: true };
}

/**
 * Parses `proxies.json`: every record's `host` and `exit_ip`, deduplicated.
 *
 * @throws FeedError when the file is not a JSON array, or has no record with an address.
 * @example
 * parseMonosansProxies('[{"host":"103.152.112.157","port":80,"exit_ip":"45.61.160.11"}]', 'monosans-proxies').prefixes.length // => 2
 */
export function parseMonosansProxies(data: Uint8Array | string, feed: string): PrefixesFound<true> {
  const doc = parseJson(feed, data);
  if (!Array.isArray(doc)) throw new FeedError(feed, 'feed_format', `expected a JSON array of proxies, got ${jsonType(doc)}`);
  if (doc.length === 0) throw new FeedError(feed, 'feed_empty', 'empty proxy array');
  const found: Prefix<true>[] = [];
  const rejected: Diagnostic[] = [];
  doc.forEach((rec: unknown, i) => {
    const line = i + 1;
    if (!isObject(rec)) {
      rejected.push({ feed, line, message: `record is ${jsonType(rec)}, not an object` });
      return;
    }
    for (const field of ['host', 'exit_ip'] as const) {
      const v = rec[field];
      if (field === 'exit_ip' && (v === null || v === undefined)) continue; // not measured: nothing to add
      if (typeof v !== 'string') {
        rejected.push({ feed, line, message: `${field} is ${jsonType(v)}, not a string` });
        continue;
      }
      const p = hostPrefix(v);
      if (p === null) rejected.push({ feed, line, message: `${field} is not an IP address: ${JSON.stringify(v.slice(0, 60))}` });
      else found.push(p);
    }
  });
  if (found.length === 0) throw new FeedError(feed, 'feed_format', 'no record has an IP address');
  return { prefixes: uniquePrefixes(found), rejected, dataDate: null };
}

/** `protocol://[user:pass@]host:port`, host an IPv4 or `[IPv6]`. */
const PROXY_URL = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/\s]*@)?(\[[^\]]+\]|[^:/\s]+):(\d{1,5})\/?$/i;

/**
 * Parses `proxies/all.txt`: the host of every `protocol://host:port` line,
 * deduplicated. Lines that are not that form, or whose host is not an IP
 * address (a hostname), are Diagnostics.
 *
 * @throws FeedError when no line is a proxy URL with an IP host.
 * @example
 * parseMonosansAll('socks5://103.152.112.157:1080\nhttp://103.152.112.157:80\n', 'monosans-all').prefixes.length // => 1
 */
export function parseMonosansAll(data: Uint8Array | string, feed: string): PrefixesFound<true> {
  const found: Prefix<true>[] = [];
  const rejected: Diagnostic[] = [];
  let dataLines = 0;
  splitLines(feedText(data)).forEach((raw, i) => {
    const t = raw.trim();
    if (t === '' || t.startsWith('#')) return;
    dataLines++;
    const line = i + 1;
    const m = PROXY_URL.exec(t);
    if (!m) {
      rejected.push({ feed, line, message: `not protocol://host:port: ${JSON.stringify(t.slice(0, 60))}` });
      return;
    }
    const port = Number(m[3]);
    if (port < 1 || port > 65535) {
      rejected.push({ feed, line, message: `port ${m[3]} outside 1..65535` });
      return;
    }
    const host = m[2]!.startsWith('[') ? m[2]!.slice(1, -1) : m[2]!;
    const p = hostPrefix(host);
    if (p === null) rejected.push({ feed, line, message: `host is not an IP address: ${JSON.stringify(host.slice(0, 60))}` });
    else found.push(p);
  });
  if (dataLines === 0) throw new FeedError(feed, 'feed_empty', 'no data line (empty list)');
  if (found.length === 0) throw new FeedError(feed, 'feed_format', `no line is a proxy URL with an IP host (line ${rejected[0]!.line}: ${rejected[0]!.message})`);
  return { prefixes: uniquePrefixes(found), rejected, dataDate: null };
}

const MONOSANS = {
  publisher: 'monosans (proxy-list / proxy-scraper-checker)',
  licence: 'MIT',
  attribution_required: false,
  evidence: 'beta',
  refresh: '1d',
  role: 'proxy',
  use: 'build',
  origin: 'feeds',
} as const;

export const MONOSANS_PROXIES = defineFeed({
  ...MONOSANS,
  id: 'monosans-proxies',
  url: 'https://raw.githubusercontent.com/monosans/proxy-list/main/proxies.json',
  format: 'JSON array of {protocol, host, port, exit_ip, ...}',
  path: 'proxy/monosans-proxies.json',
  download: { url: 'https://raw.githubusercontent.com/monosans/proxy-list/main/proxies.json' },
  parse: parseMonosansProxies,
});

export const MONOSANS_ALL = defineFeed({
  ...MONOSANS,
  id: 'monosans-all',
  url: 'https://raw.githubusercontent.com/monosans/proxy-list/main/proxies/all.txt',
  format: 'protocol://host:port per line',
  path: 'proxy/monosans-all.txt',
  download: { url: 'https://raw.githubusercontent.com/monosans/proxy-list/main/proxies/all.txt' },
  parse: parseMonosansAll,
});
