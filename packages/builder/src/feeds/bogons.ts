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
import { isoFromEpochSeconds } from './dates.js';
import { IANA_SPECIAL_PURPOSE_FEED } from './iana-special.js';
import type { BogonValue } from './iana-special.js';
import { parseCidrList } from './lines.js';
import type { ListLine } from './lines.js';
import type { FeedSpec } from './spec.js';
import type { PrefixFeed, SourceMeta } from './types.js';

export type { BogonValue };
export { IANA_SPECIAL_PURPOSE_FEED };

const cymru = (id: string, file: string): SourceMeta => ({
  id,
  publisher: 'Team Cymru',
  url: `https://www.team-cymru.org/Services/Bogons/${file}`,
  licence: 'not stated in file',
  attribution_required: false,
  data_date: null,
  evidence: 'authoritative',
  note: 'special-purpose and unallocated space together (kind "unallocated"); space allocated after data_date is still listed',
});

const CYMRU_V4_META = cymru('bogons-cymru-v4', 'fullbogons-ipv4.txt');
const CYMRU_V6_META = cymru('bogons-cymru-v6', 'fullbogons-ipv6.txt');

const IPINFO_META: SourceMeta = {
  id: 'bogons-ipinfo',
  publisher: 'ipinfo.io (transcribed by borestad/iplists)',
  url: 'https://ipinfo.io/bogon',
  licence: 'no licence file',
  attribution_required: false,
  data_date: null,
  evidence: 'authoritative',
  note: 'RE-PROCESSED: manual transcription of ipinfo.io/bogon (CIDR # description) by borestad/iplists; IPv4 special-purpose blocks only',
};

const UNALLOCATED: BogonValue = { kind: 'unallocated' };

function parseCymru(meta: SourceMeta, data: Uint8Array | string): PrefixFeed<BogonValue> {
  const { prefixes, rejected, comments } = parseCidrList(meta.id, data, () => UNALLOCATED, { hostBits: 'reject' });
  let date: string | null = null;
  for (const c of comments) {
    const m = /^last updated (\d+)\b/i.exec(c.text);
    if (m) date = isoFromEpochSeconds(m[1]!);
  }
  return { source: { ...meta, data_date: date, entries: prefixes.length }, prefixes, rejected };
}

/** Reads Team Cymru `fullbogons-ipv4.txt`. */
export const parseFullbogonsV4 = (data: Uint8Array | string): PrefixFeed<BogonValue> => parseCymru(CYMRU_V4_META, data);
/** Reads Team Cymru `fullbogons-ipv6.txt`. */
export const parseFullbogonsV6 = (data: Uint8Array | string): PrefixFeed<BogonValue> => parseCymru(CYMRU_V6_META, data);

/** `"This" network` -> `this-network`; null for no text. */
export function kindFromDescription(text: string | null): string | null {
  const k = (text ?? '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return k === '' ? null : k;
}

/** Reads the ipinfo bogon list (`CIDR  # description`); a line without a description is `special-purpose`. */
export function parseIpinfoBogons(data: Uint8Array | string): PrefixFeed<BogonValue> {
  const value = (l: ListLine): BogonValue => ({ kind: kindFromDescription(l.comment) ?? 'special-purpose' });
  const { prefixes, rejected } = parseCidrList(IPINFO_META.id, data, value, { hostBits: 'reject' });
  return { source: { ...IPINFO_META, entries: prefixes.length }, prefixes, rejected };
}

/** The bogon feeds read from files (the IANA table is built in: `IANA_SPECIAL_PURPOSE_FEED`). */
export const BOGON_FEEDS: readonly FeedSpec[] = [
  { id: IPINFO_META.id, path: 'bogons/ipinfo-bogons.txt', url: IPINFO_META.url, kind: 'prefix', parse: parseIpinfoBogons },
  { id: CYMRU_V4_META.id, path: 'bogons/fullbogons-ipv4.txt', url: CYMRU_V4_META.url, kind: 'prefix', parse: parseFullbogonsV4 },
  { id: CYMRU_V6_META.id, path: 'bogons/fullbogons-ipv6.txt', url: CYMRU_V6_META.url, kind: 'prefix', parse: parseFullbogonsV6 },
];
