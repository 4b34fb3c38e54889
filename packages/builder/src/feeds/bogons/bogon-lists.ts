/**
 * Bogons: address space that should never be a source on the public
 * Internet, because it is special-purpose (private, loopback, documentation,
 * ...) or not allocated to anyone by a RIR.
 *
 * Publisher formats:
 * - Team Cymru `fullbogons-ipv4.txt` / `fullbogons-ipv6.txt` (original):
 *   `# last updated 1710089701 (Sun Mar 10 16:55:01 2024 GMT)` header, then one
 *   CIDR per line. The list mixes special-purpose and unallocated space and
 *   does not say which is which: every entry is `kind: 'unallocated'`, and the
 *   IANA table decides the kind where it also holds the address.
 * - ipinfo's bogon list as transcribed by borestad/iplists (re-processed):
 *   `CIDR   # description` (one bare address, 127.0.53.53); the kind is the
 *   description in kebab-case (`# Private-use networks` -> `private-use-networks`).
 * - The built-in IANA special-purpose table lives in `iana-special.ts`.
 *
 * Precedence: the bogon sources decide their addresses. Where a broad list
 * (FireHOL level1, which embeds fullbogons; VPN or hosting lists) also holds
 * bogon space, the address is a bogon, not abuse or a VPN. Between bogon
 * sources, the most specific decides the kind: IANA table, then ipinfo, then
 * Team Cymru. Note the Team Cymru copy is from 2024-03-10: space allocated
 * since then is still listed; refresh before production.
 *
 * @module
 */
import { defineFeed } from '../declare.js';
import { isoFromEpochSeconds } from '../read/dates.js';
import { parseCidrList } from '../read/lines.js';
import type { ListLine } from '../read/lines.js';
import type { PrefixesFound } from '../types.js';
import type { BogonValue } from './iana-special.js';

const UNALLOCATED: BogonValue = { kind: 'unallocated' };

/**
 * Reads Team Cymru `fullbogons-ipv4.txt` / `-ipv6.txt`; the data date is the
 * `# last updated <epoch>` header. With `family` (each declaration's), an
 * entry of the other IP version is rejected: the IPv6 file at the IPv4
 * file's path is `feed_format`, not a source that leaves unallocated IPv4
 * space unflagged.
 */
export function parseFullbogons(data: Uint8Array | string, feed: string, family?: 4 | 6): PrefixesFound<BogonValue> {
  const { prefixes, rejected, comments } = parseCidrList(feed, data, () => UNALLOCATED, family !== undefined ? { family } : {});
  let date: string | null = null;
  for (const c of comments) {
    const m = /^last updated (\d+)\b/i.exec(c.text);
    if (m) date = isoFromEpochSeconds(m[1]!);
  }
  return { prefixes, rejected, dataDate: date };
}

/** `"This" network` -> `this-network`; null for no text. */
export function kindFromDescription(text: string | null): string | null {
  const k = (text ?? '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return k === '' ? null : k;
}

/** Reads the ipinfo bogon list (`CIDR  # description`); a line without a description is `special-purpose`. */
export function parseIpinfoBogons(data: Uint8Array | string, feed: string): PrefixesFound<BogonValue> {
  const value = (l: ListLine): BogonValue => ({ kind: kindFromDescription(l.comment) ?? 'special-purpose' });
  const { prefixes, rejected } = parseCidrList(feed, data, value);
  return { prefixes, rejected, dataDate: null };
}

export const IPINFO_BOGONS = defineFeed({
  id: 'bogons-ipinfo',
  publisher: 'ipinfo.io (transcribed by borestad/iplists)',
  url: 'https://ipinfo.io/bogon',
  licence: 'no licence file',
  attribution_required: false,
  evidence: 'authoritative',
  note: 'RE-PROCESSED: manual transcription of ipinfo.io/bogon (CIDR # description) by borestad/iplists; IPv4 special-purpose blocks only',
  format: 'CIDR # description per line',
  refresh: '365d',
  role: 'bogon-special',
  use: 'build',
  origin: 'feeds',
  path: 'bogons/ipinfo-bogons.txt',
  download: { url: 'https://ipinfo.io/bogon' },
  parse: parseIpinfoBogons,
});

/** Team Cymru full bogons, one file per IP version. */
export const CYMRU_FULLBOGONS = ([4, 6] as const).map((v) =>
  defineFeed({
    id: `bogons-cymru-v${v}`,
    publisher: 'Team Cymru',
    url: `https://www.team-cymru.org/Services/Bogons/fullbogons-ipv${v}.txt`,
    licence: 'not stated in file',
    attribution_required: false,
    evidence: 'authoritative',
    note: 'special-purpose and unallocated space together (kind "unallocated"); space allocated after data_date is still listed',
    format: '# last updated <epoch> header, then one CIDR per line',
    refresh: '1d',
    role: 'bogon-unallocated',
    use: 'build',
    origin: 'feeds',
    path: `bogons/fullbogons-ipv${v}.txt`,
    download: { url: `https://www.team-cymru.org/Services/Bogons/fullbogons-ipv${v}.txt` },
    parse: (data: Uint8Array | string, feed: string) => parseFullbogons(data, feed, v),
  }),
);
