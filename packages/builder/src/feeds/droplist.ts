/**
 * Spamhaus DROP ("Don't Route Or Peer"): netblocks and ASNs hijacked or
 * leased to professional spam and cyber-crime operations. EDROP has been
 * merged into DROP since April 2024, so DROP is the whole list.
 *
 * Publisher formats:
 * - `drop_v4.json` and `asndrop.json`: NDJSON, one record per line
 *   (`{"cidr":"1.10.16.0/20","sblid":"SBL256894","rir":"apnic"}`,
 *   `{"asn":399471,"rir":"arin","domain":"serverion.com","cc":"NL","asname":"CUSTOMER"}`),
 *   then one last metadata line
 *   `{"type":"metadata","timestamp":1787415242,"size":...,"records":1699,"copyright":...,"terms":...}`.
 *   The metadata line gives the data date and the record count; a file
 *   without it, or with fewer records than it counts, is truncated
 *   (`feed_truncated`); one with more, or no count, is `feed_format`.
 * - `drop_v6` as an ipset conversion (the JSON original was not available):
 *   `add spamhaus_v6 2a06:e480::/29` per line; SBL ids are lost.
 *
 * Precedence: DROP is authoritative for "drop-listed". A broad list that
 * embeds DROP (FireHOL level1, other aggregate blocklists) adds nothing on
 * those ranges: aggregates never feed "recent abuse" (docs/data.md rule 9).
 * A list of observed abuse still sets `recent_abuse` inside a DROP range:
 * being listed and being seen abusing are two verdicts, and a test keeps
 * both.
 *
 * @module
 */
import { FeedError } from '../errors.js';
import { defineFeed } from './declare.js';
import { defaultRouteEntry, parseCidr } from './read/cidr.js';
import { isoFromEpochSeconds } from './read/dates.js';
import { isObject } from './read/json.js';
import { parseCidrList } from './read/lines.js';
import { feedText, splitLines } from './read/text.js';
import type { AsnsFound, Diagnostic, Prefix, PrefixesFound } from './types.js';

/** A DROP netblock's Spamhaus SBL record id (null when the copy lost it). */
export interface DropValue {
  readonly sblid: string | null;
}

/** An ASN-DROP entry: what Spamhaus records about the AS. */
export interface AsnDropValue {
  readonly asname: string | null;
  readonly cc: string | null;
  readonly rir: string | null;
  readonly domain: string | null;
}

const TERMS = 'Spamhaus DROP terms of use, https://www.spamhaus.org/drop/terms/';

// ------------------------------------------------------------------ NDJSON

interface Ndjson {
  /** Records before the metadata line, with their 1-based line numbers. */
  readonly records: { readonly line: number; readonly value: unknown }[];
  /** Lines that are not JSON objects. */
  readonly bad: Diagnostic[];
  readonly dataDate: string | null;
  readonly licence: string;
}

/** Splits Spamhaus NDJSON into records and checks the metadata trailer. */
function readNdjson(feed: string, data: Uint8Array | string): Ndjson {
  const records: { line: number; value: unknown }[] = [];
  const bad: Diagnostic[] = [];
  let metadata: Record<string, unknown> | null = null;
  let lines = 0;
  splitLines(feedText(data)).forEach((raw, i) => {
    const t = raw.trim();
    if (t === '') return;
    lines++;
    if (metadata !== null) throw new FeedError(feed, 'feed_format', `line ${i + 1}: data after the metadata line`);
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch {
      bad.push({ feed, line: i + 1, message: `not JSON: ${JSON.stringify(t.slice(0, 60))}` });
      return;
    }
    if (isObject(v) && v['type'] === 'metadata') metadata = v;
    else records.push({ line: i + 1, value: v });
  });
  if (lines === 0) throw new FeedError(feed, 'feed_empty', 'empty file');
  const m = metadata as Record<string, unknown> | null;
  if (m === null) {
    if (bad.length === lines) throw new FeedError(feed, 'feed_format', 'not NDJSON (no line is JSON)');
    throw new FeedError(feed, 'feed_truncated', 'no metadata line: truncated file');
  }
  const count = records.length + bad.length;
  const stated = m['records'];
  // Fewer lines than stated is a cut file (feed_truncated); more, or no count, is not Spamhaus' file as it wrote it.
  if (typeof stated === 'number' && stated > count) throw new FeedError(feed, 'feed_truncated', `metadata says ${stated} records, file has ${count}`);
  if (stated !== count) throw new FeedError(feed, 'feed_format', `metadata says ${JSON.stringify(stated)} records, file has ${count}`);
  const copyright = typeof m['copyright'] === 'string' ? `${m['copyright']}; ` : '';
  return { records, bad, dataDate: isoFromEpochSeconds(m['timestamp']), licence: `${copyright}${TERMS}` };
}

/** Reads Spamhaus `drop_v4.json` (NDJSON + metadata line). */
export function parseDropV4(data: Uint8Array | string, id: string): PrefixesFound<DropValue> {
  const nd = readNdjson(id, data);
  const prefixes: Prefix<DropValue>[] = [];
  const rejected = [...nd.bad];
  for (const { line, value } of nd.records) {
    const cidr = isObject(value) ? value['cidr'] : undefined;
    if (typeof cidr !== 'string') {
      rejected.push({ feed: id, line, message: 'record without a "cidr" string' });
      continue;
    }
    const c = parseCidr(cidr);
    if (!c.ok || c.hostBitsSet || !cidr.includes('/')) {
      rejected.push({ feed: id, line, message: c.ok ? `not a CIDR with host bits zero: ${JSON.stringify(cidr)}` : c.message });
      continue;
    }
    const whole = defaultRouteEntry(c.length, cidr);
    if (whole !== null) {
      rejected.push({ feed: id, line, message: whole });
      continue;
    }
    const sblid = isObject(value) && typeof value['sblid'] === 'string' && value['sblid'] !== '' ? value['sblid'] : null;
    prefixes.push({ version: c.version, start: c.start, length: c.length, value: { sblid } });
  }
  if (prefixes.length === 0) throw new FeedError(id, 'feed_format', 'no usable record');
  rejected.sort((a, b) => a.line - b.line);
  return { prefixes, rejected, dataDate: nd.dataDate, licence: nd.licence };
}

/** Reads the `add spamhaus_v6 <cidr>` ipset conversion of DROP IPv6. */
export function parseDropV6Ipset(data: Uint8Array | string, id: string): PrefixesFound<DropValue> {
  const value: DropValue = { sblid: null };
  const body = splitLines(feedText(data)).map((l) => {
    const m = /^\s*add\s+\S+\s+(\S+)\s*$/.exec(l);
    return m ? m[1]! : l; // any other non-comment line stays as is and is rejected by the CIDR parser
  });
  const { prefixes, rejected } = parseCidrList(id, body.join('\n'), () => value);
  return { prefixes, rejected, dataDate: null };
}

/** Reads Spamhaus `asndrop.json` (NDJSON + metadata line). A repeated ASN is rejected. */
export function parseAsnDrop(data: Uint8Array | string, id: string): AsnsFound<AsnDropValue> {
  const nd = readNdjson(id, data);
  const asns = new Map<number, AsnDropValue>();
  const rejected = [...nd.bad];
  for (const { line, value } of nd.records) {
    const asn = isObject(value) ? value['asn'] : undefined;
    if (typeof asn !== 'number' || !Number.isInteger(asn) || asn < 1 || asn > 0xffffffff) {
      rejected.push({ feed: id, line, message: `record without an ASN in 1..4294967295: ${JSON.stringify(asn)}` });
      continue;
    }
    if (asns.has(asn)) {
      rejected.push({ feed: id, line, message: `duplicate AS${asn}` });
      continue;
    }
    const str = (k: string): string | null => {
      const s = (value as Record<string, unknown>)[k];
      return typeof s === 'string' && s !== '' ? s : null;
    };
    asns.set(asn, { asname: str('asname'), cc: str('cc'), rir: str('rir'), domain: str('domain') });
  }
  if (asns.size === 0) throw new FeedError(id, 'feed_format', 'no usable record');
  rejected.sort((a, b) => a.line - b.line);
  return { asns, rejected, dataDate: nd.dataDate, licence: nd.licence };
}

// ------------------------------------------------------------ declarations

const SPAMHAUS = {
  publisher: 'The Spamhaus Project',
  licence: TERMS,
  attribution_required: true,
  evidence: 'authoritative',
  refresh: '1d',
  use: 'build',
  origin: 'feeds',
} as const;

/** The DROP feeds. */
export const DROP_FEEDS = [
  defineFeed({
    ...SPAMHAUS,
    id: 'spamhaus-drop-v4',
    url: 'https://www.spamhaus.org/drop/drop_v4.json',
    format: 'NDJSON {cidr, sblid, rir} records, then a {type: "metadata", timestamp, records} line',
    role: 'drop',
    path: 'droplist/spamhaus-drop_v4.json',
    download: { url: 'https://www.spamhaus.org/drop/drop_v4.json' },
    parse: parseDropV4,
  }),
  defineFeed({
    ...SPAMHAUS,
    id: 'spamhaus-drop-v6',
    url: 'https://www.spamhaus.org/drop/drop_v6.json',
    note: 'RE-PROCESSED: ipset conversion (add spamhaus_v6 <cidr>) by DraKuLa21-a42/spamhaus-drop-lists; SBL ids lost; the JSON original was not available',
    format: 'ipset: add spamhaus_v6 <cidr> per line',
    role: 'drop',
    path: 'droplist/spamhaus-drop_v6.ipset',
    // The publisher's JSON: a different format from this ipset copy (see issue 8 on --fetch).
    download: { url: 'https://www.spamhaus.org/drop/drop_v6.json' },
    parse: parseDropV6Ipset,
  }),
  defineFeed({
    ...SPAMHAUS,
    id: 'spamhaus-asndrop',
    url: 'https://www.spamhaus.org/drop/asndrop.json',
    format: 'NDJSON {asn, rir, domain, cc, asname} records, then a metadata line',
    role: 'drop-asn',
    path: 'droplist/spamhaus-asndrop.json',
    download: { url: 'https://www.spamhaus.org/drop/asndrop.json' },
    parse: parseAsnDrop,
  }),
];
