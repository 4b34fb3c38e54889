/**
 * Public DNS resolvers: addresses that answer DNS for anyone, valued with the
 * operator's name where the source gives one.
 *
 * Publisher formats:
 * - DNSCrypt `public-resolvers.md`: Markdown, one `## name` section per
 *   resolver with prose and one or more `sdns://` server stamps on their own
 *   lines. The operator is the section name. A stamp is base64url (no
 *   padding) of: protocol byte, 8-byte properties, then length-prefixed
 *   fields, the first being the address `IP`, `IP:port`, `[IPv6]` or
 *   `[IPv6]:port` (see https://dnscrypt.info/stamps-specifications). A DoH
 *   stamp may leave the address empty (the client resolves the host name):
 *   there is no IP to take, so it is counted as skipped (in the note), not
 *   rejected; so is an ODoH target stamp, which has no address field.
 * - dibdot DoH lists `doh-ipv4.txt` / `doh-ipv6.txt`: `IP   # host1, host2`;
 *   the operator is the first host name.
 * - disposable/public-dns `resolvers.txt`: `IP:53` per line, IPv6 either
 *   `[addr]:53` or bare `addr:53` (the last `:53` is the port). No operator.
 *
 * Evidence: the DNSCrypt list (operators submit their own stamps) and the DoH
 * lists (addresses the operators' DoH host names resolve to) are
 * `authoritative`; the validated list is open resolvers found by probing
 * public-dns.info candidates, so it is `inferred`.
 *
 * Precedence: a resolver address is a specific class; where a broad list
 * (aggregate blocklist, hosting/VPN list) also holds it, this source decides
 * that the address is a public resolver. Between these sources, the order of
 * `RESOLVER_FEEDS` decides the operator name (named sources first).
 *
 * @module
 */
import { FeedError } from '../errors.js';
import { defineFeed } from './declare.js';
import { parseCidr } from './read/cidr.js';
import { listLines, parseCidrList } from './read/lines.js';
import type { ListLine } from './read/lines.js';
import { feedText, splitLines } from './read/text.js';
import type { Diagnostic, Prefix, PrefixesFound } from './types.js';

/** The resolver's operator (a DNSCrypt resolver name or a DoH host name), or null when unknown. */
export interface ResolverValue {
  readonly operator: string | null;
}

// ------------------------------------------------------------ DNS stamps

/** What one `sdns://` stamp holds, as far as an IP is concerned. */
export type StampAddress =
  | { readonly kind: 'address'; readonly ip: string; readonly port: number | null }
  | { readonly kind: 'none'; readonly reason: string }
  | { readonly kind: 'invalid'; readonly reason: string };

/** Protocols whose first length-prefixed field (after the properties) is the address. */
const ADDRESS_FIRST = new Set([0x00, 0x01, 0x02, 0x03, 0x04, 0x85]);

/**
 * Decodes a DNS stamp's address. Never throws.
 *
 * @example
 * decodeStampAddress('sdns://AQMAAAAAAAAADDkuOS45Ljk6ODQ0MyBnyEe4yHWM0SAkVUO-dWdG3zTfHYTAC4xHA2jfgh2GPhkyLmRuc2NyeXB0LWNlcnQucXVhZDkubmV0')
 * // => { kind: 'address', ip: '9.9.9.9', port: 8443 }
 */
export function decodeStampAddress(stamp: string): StampAddress {
  const b64 = stamp.startsWith('sdns://') ? stamp.slice(7) : null;
  if (b64 === null || !/^[A-Za-z0-9_-]+$/.test(b64) || b64.length % 4 === 1) {
    return { kind: 'invalid', reason: 'not an sdns:// base64url stamp' };
  }
  const bin = atob(b64.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (b64.length % 4)) % 4));
  const proto = bin.charCodeAt(0);
  let at: number;
  if (proto === 0x05) return { kind: 'none', reason: 'ODoH target stamp (no address field)' };
  if (proto === 0x81) at = 1; // DNSCrypt relay: no properties
  else if (ADDRESS_FIRST.has(proto)) at = 9;
  else return { kind: 'invalid', reason: `unknown stamp protocol 0x${proto.toString(16).padStart(2, '0')}` };
  if (bin.length < at + 1) return { kind: 'invalid', reason: 'stamp truncated before the address' };
  const len = bin.charCodeAt(at);
  if (bin.length < at + 1 + len) return { kind: 'invalid', reason: 'stamp truncated inside the address' };
  const addr = bin.slice(at + 1, at + 1 + len);
  if (addr === '') return { kind: 'none', reason: 'empty address (resolved by host name)' };
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([0-9.]+))(?::(\d{1,5}))?$/.exec(addr);
  if (!m) return { kind: 'invalid', reason: `address field is not IP[:port] or [IPv6][:port]: ${JSON.stringify(addr.slice(0, 60))}` };
  const port = m[3] === undefined ? null : Number(m[3]);
  if (port !== null && (port < 1 || port > 65535)) return { kind: 'invalid', reason: `bad port ${port}` };
  return { kind: 'address', ip: (m[1] ?? m[2])!, port };
}

/**
 * Reads DNSCrypt `public-resolvers.md`. Each stamp line is an entry, a
 * rejected line, or skipped (no address: counted in the note).
 */
export function parseDnscryptResolvers(data: Uint8Array | string, id: string): PrefixesFound<ResolverValue> {
  const prefixes: Prefix<ResolverValue>[] = [];
  const rejected: Diagnostic[] = [];
  let section: string | null = null;
  let sections = 0;
  let stamps = 0;
  const skipped = new Map<string, number>();
  splitLines(feedText(data)).forEach((raw, i) => {
    const line = raw.trim();
    if (line.startsWith('## ')) {
      section = line.slice(3).trim();
      sections++;
      return;
    }
    if (!line.startsWith('sdns://')) return; // prose
    stamps++;
    const reject = (message: string): void => {
      rejected.push({ feed: id, line: i + 1, message });
    };
    if (section === null) return reject('stamp before any "## name" heading');
    const a = decodeStampAddress(line);
    if (a.kind === 'none') {
      skipped.set(a.reason, (skipped.get(a.reason) ?? 0) + 1);
      return;
    }
    if (a.kind === 'invalid') return reject(a.reason);
    const c = parseCidr(a.ip);
    if (!c.ok || a.ip.includes('/')) return reject(c.ok ? 'address with a prefix length' : c.message);
    if (a.ip.includes(':') !== (c.version === 6)) return reject(`IPv4-mapped address in a stamp: ${a.ip}`);
    prefixes.push({ version: c.version, start: c.start, length: c.length, value: { operator: section } });
  });
  if (sections === 0 || stamps === 0) throw new FeedError(id, 'feed_format', 'no "## name" section with an sdns:// stamp');
  const skips = [...skipped].map(([reason, n]) => `${n} ${reason}`).join(', ');
  const note = `${sections} resolvers, ${stamps} stamps; skipped stamps without an IP: ${skips || 'none'}`;
  return { prefixes, rejected, dataDate: null, note };
}

// ------------------------------------------------------------- DoH lists

const firstHost = (l: ListLine): ResolverValue => {
  const host = l.comment?.split(',')[0]?.trim() ?? '';
  return { operator: host === '' ? null : host };
};

/** Reads dibdot `doh-ipv4.txt` / `doh-ipv6.txt` (`IP  # host1, host2`). */
export function parseDohList(data: Uint8Array | string, feed: string): PrefixesFound<ResolverValue> {
  const { prefixes, rejected } = parseCidrList(feed, data, firstHost, { addressesOnly: true });
  return { prefixes, rejected, dataDate: null };
}

// ------------------------------------------------------ validated resolvers

/**
 * `IP:53`, `[IPv6]:53` or `IPv6:53` to the bare address. The file always
 * writes the port, so the last `:53` is the port even when the address
 * itself could end in `:53` (`2001:418:3ff::1:53:53` is `2001:418:3ff::1:53`).
 */
export function stripDnsPort(text: string): string | null {
  const m = /^\[([^\]]+)\]:53$/.exec(text) ?? /^(.+):53$/.exec(text);
  return m ? m[1]! : null;
}

/** Reads disposable/public-dns `txt/resolvers.txt` (`IP:53` per line). */
export function parsePublicDnsValidated(data: Uint8Array | string, id: string): PrefixesFound<ResolverValue> {
  const value: ResolverValue = { operator: null };
  const prefixes: Prefix<ResolverValue>[] = [];
  const rejected: Diagnostic[] = [];
  const { lines } = listLines(data, { trailingComments: false });
  for (const l of lines) {
    const addr = stripDnsPort(l.text);
    const c = addr === null || addr.includes('/') ? null : parseCidr(addr);
    if (c === null) rejected.push({ feed: id, line: l.line, message: `expected IP:53, got ${JSON.stringify(l.text.slice(0, 60))}` });
    else if (!c.ok) rejected.push({ feed: id, line: l.line, message: c.message });
    else prefixes.push({ version: c.version, start: c.start, length: c.length, value });
  }
  if (lines.length === 0) throw new FeedError(id, 'feed_empty', 'no data line (empty list)');
  if (prefixes.length === 0) throw new FeedError(id, 'feed_format', `no line is IP:53 (line ${rejected[0]!.line}: ${rejected[0]!.message})`);
  return { prefixes, rejected, dataDate: null };
}

// ------------------------------------------------------------ declarations

const RESOLVER = { role: 'resolver', use: 'build', origin: 'feeds' } as const;

const dibdot = (v: 4 | 6) => {
  const url = `https://raw.githubusercontent.com/dibdot/DoH-IP-blocklists/HEAD/doh-ipv${v}.txt`;
  return defineFeed({
    ...RESOLVER,
    id: `resolver-doh-ipv${v}`,
    publisher: 'dibdot (DoH-IP-blocklists)',
    url,
    licence: 'GPL-3.0',
    attribution_required: true,
    evidence: 'authoritative',
    format: 'IP # host1, host2 per line',
    refresh: '7d',
    path: `resolvers/doh-ipv${v}.txt`,
    download: { url },
    parse: parseDohList,
  });
};

/** Resolver feeds; named sources first (they decide the operator name). */
export const RESOLVER_FEEDS = [
  defineFeed({
    ...RESOLVER,
    id: 'resolver-dnscrypt',
    publisher: 'DNSCrypt project (Frank Denis)',
    url: 'https://download.dnscrypt.info/resolvers-list/v3/public-resolvers.md',
    licence: 'no licence stated',
    attribution_required: false,
    evidence: 'authoritative',
    format: 'Markdown: ## name sections with sdns:// stamps',
    refresh: '1d',
    path: 'resolvers/dnscrypt-public-resolvers.md',
    download: { url: 'https://download.dnscrypt.info/resolvers-list/v3/public-resolvers.md' },
    parse: parseDnscryptResolvers,
  }),
  dibdot(4),
  dibdot(6),
  defineFeed({
    ...RESOLVER,
    id: 'resolver-public-dns-validated',
    publisher: 'disposable/public-dns',
    url: 'https://raw.githubusercontent.com/disposable/public-dns/HEAD/txt/resolvers.txt',
    licence: 'MIT',
    attribution_required: true,
    evidence: 'inferred',
    format: 'IP:53 per line ([IPv6]:53 or IPv6:53)',
    refresh: '1d',
    path: 'resolvers/public-dns-validated-resolvers.txt',
    download: { url: 'https://raw.githubusercontent.com/disposable/public-dns/HEAD/txt/resolvers.txt' },
    parse: parsePublicDnsValidated,
  }),
];
