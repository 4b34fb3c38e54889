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
 *   without it, or whose count does not match, is truncated (`FeedError`).
 * - `drop_v6` as an ipset conversion (the JSON original was not available):
 *   `add spamhaus_v6 2a06:e480::/29` per line; SBL ids are lost.
 *
 * Precedence: DROP is authoritative for "drop-listed". Where a broad list
 * (FireHOL level1, other aggregate blocklists) holds the same ranges, DROP
 * decides those addresses: they are drop-listed, and the aggregate's
 * "recent abuse" does not add a second, vaguer verdict on them.
 *
 * @module
 */
import { feedText, parseCidr, splitLines } from './cidr.js';
import { isoFromEpochSeconds } from './dates.js';
import { parseCidrList } from './lines.js';
import type { FeedSpec } from './spec.js';
import { FeedError } from './types.js';
import type { AsnFeed, Diagnostic, Prefix, PrefixFeed, SourceMeta } from './types.js';

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

const meta = (id: string, url: string, extra: Partial<SourceMeta> = {}): SourceMeta => ({
  id,
  publisher: 'The Spamhaus Project',
  url,
  licence: TERMS,
  attribution_required: true,
  data_date: null,
  evidence: 'authoritative',
  ...extra,
});

const DROP_V4_META = meta('spamhaus-drop-v4', 'https://www.spamhaus.org/drop/drop_v4.json');
const DROP_V6_META = meta('spamhaus-drop-v6', 'https://www.spamhaus.org/drop/drop_v6.json', {
  note: 'RE-PROCESSED: ipset conversion (add spamhaus_v6 <cidr>) by DraKuLa21-a42/spamhaus-drop-lists; SBL ids lost; the JSON original was not available',
});
const ASNDROP_META = meta('spamhaus-asndrop', 'https://www.spamhaus.org/drop/asndrop.json');

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
    if (metadata !== null) throw new FeedError(feed, `line ${i + 1}: data after the metadata line`);
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
  if (lines === 0) throw new FeedError(feed, 'empty file');
  const m = metadata as Record<string, unknown> | null;
  if (m === null) {
    throw new FeedError(feed, bad.length === lines ? 'not NDJSON (no line is JSON)' : 'no metadata line: truncated file');
  }
  const count = records.length + bad.length;
  if (m['records'] !== count) throw new FeedError(feed, `metadata says ${String(m['records'])} records, file has ${count}`);
  const copyright = typeof m['copyright'] === 'string' ? `${m['copyright']}; ` : '';
  return { records, bad, dataDate: isoFromEpochSeconds(m['timestamp']), licence: `${copyright}${TERMS}` };
}

/** Reads Spamhaus `drop_v4.json` (NDJSON + metadata line). */
export function parseDropV4(data: Uint8Array | string): PrefixFeed<DropValue> {
  const id = DROP_V4_META.id;
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
    const sblid = isObject(value) && typeof value['sblid'] === 'string' && value['sblid'] !== '' ? value['sblid'] : null;
    prefixes.push({ version: c.version, start: c.start, length: c.length, value: { sblid } });
  }
  if (prefixes.length === 0) throw new FeedError(id, 'no usable record');
  rejected.sort((a, b) => a.line - b.line);
  const source = { ...DROP_V4_META, licence: nd.licence, data_date: nd.dataDate, entries: prefixes.length };
  return { source, prefixes, rejected };
}

/** Reads the `add spamhaus_v6 <cidr>` ipset conversion of DROP IPv6. */
export function parseDropV6Ipset(data: Uint8Array | string): PrefixFeed<DropValue> {
  const id = DROP_V6_META.id;
  const value: DropValue = { sblid: null };
  const body = splitLines(feedText(data)).map((l) => {
    const m = /^\s*add\s+\S+\s+(\S+)\s*$/.exec(l);
    return m ? m[1]! : l; // any other non-comment line stays as is and is rejected by the CIDR parser
  });
  const { prefixes, rejected } = parseCidrList(id, body.join('\n'), () => value, { hostBits: 'reject' });
  return { source: { ...DROP_V6_META, entries: prefixes.length }, prefixes, rejected };
}

/** Reads Spamhaus `asndrop.json` (NDJSON + metadata line). A repeated ASN is rejected. */
export function parseAsnDrop(data: Uint8Array | string): AsnFeed<AsnDropValue> {
  const id = ASNDROP_META.id;
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
  if (asns.size === 0) throw new FeedError(id, 'no usable record');
  rejected.sort((a, b) => a.line - b.line);
  const source = { ...ASNDROP_META, licence: nd.licence, data_date: nd.dataDate, entries: asns.size };
  return { source, asns, rejected };
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

// ---------------------------------------------------------------- registry

/** The DROP feeds. */
export const DROP_FEEDS: readonly FeedSpec[] = [
  { id: DROP_V4_META.id, path: 'droplist/spamhaus-drop_v4.json', url: DROP_V4_META.url, kind: 'prefix', parse: parseDropV4 },
  { id: DROP_V6_META.id, path: 'droplist/spamhaus-drop_v6.ipset', url: DROP_V6_META.url, kind: 'prefix', parse: parseDropV6Ipset },
  { id: ASNDROP_META.id, path: 'droplist/spamhaus-asndrop.json', url: ASNDROP_META.url, kind: 'asn', parse: parseAsnDrop },
];
