/**
 * bgp.tools ASN adapters: AS names with bgp.tools' network class and
 * country, and its per-tag ASN lists (mobile, satellite, DSL, hosting, CDN,
 * anycast, Tor, VPN), which give connection-type hints.
 *
 * Publisher's formats (see feeds/SOURCES.md):
 * - `asns.csv` (here gzipped): RFC 4180 CSV with header `asn,name,class,cc`,
 *   ASN written `AS<n>`, names quoted when they hold commas or quotes. Some
 *   quoted names hold line breaks (`"Visualhosting.net\r\n"`), so the file
 *   is read record by record, not line by line. Rule: names are trimmed, an
 *   empty country is null, the first row of a repeated ASN wins.
 * - `tags/<tag>.csv`: `AS<n>,name` per line, no header, often no final
 *   newline. Names come double-encoded: a name with a comma appears as
 *   `"""Cloudflare", Inc."` (the name was split at its comma and the first
 *   part quoted again) and a name with quotes as `"OOO """"NI"""""` (quotes
 *   doubled twice), or both (`"""""Domain names registrar REG.RU""", Ltd"`).
 *   Rule: undo both layers (`Cloudflare, Inc.`, `OOO "NI"`,
 *   `"Domain names registrar REG.RU", Ltd`: checked against `asns.csv` for
 *   all 8,839 lines of the 2026-05-31 files); a line that fits neither is
 *   rejected. bgp.tools cuts names to 60 characters plus `...` in the tag
 *   files (70 lines there): use `asns.csv` for display names.
 *
 * The bytes carry no date: the data date comes from the caller (the mirror's
 * snapshot date). Tags are bgp.tools' inference, so their evidence is
 * `inferred`.
 *
 * @module
 */
import { MAX_ASN, excerpt, parseUint, unpackFeed, unquoteCsvField } from './bgp.js';
import type { ParseOptions } from './bgp.js';
import { feedText } from './cidr.js';
import type { FeedSpec } from './spec.js';
import { FeedError } from './types.js';
import type { AsnFeed, Diagnostic, SourceMeta } from './types.js';

/**
 * Reads RFC 4180 CSV record by record: quoted fields may hold commas,
 * doubled quotes and line breaks; LF and CRLF both end a record; blank
 * lines are skipped. `line` is the 1-based line a record starts on. A
 * malformed record (unterminated quote, text after a closing quote, a quote
 * inside an unquoted field) goes to `onError` and reading resumes at the
 * next line.
 */
export function forEachCsvRecord(
  text: string,
  onRecord: (fields: string[], line: number) => void,
  onError: (line: number, message: string) => void,
): void {
  const n = text.length;
  let pos = 0;
  let line = 1;
  const skipLine = (from: number): void => {
    const nl = text.indexOf('\n', from);
    pos = nl < 0 ? n : nl + 1;
    line++;
  };
  while (pos < n) {
    const recLine = line;
    const c0 = text.charCodeAt(pos);
    if (c0 === 10 || (c0 === 13 && text.charCodeAt(pos + 1) === 10)) {
      pos += c0 === 10 ? 1 : 2;
      line++;
      continue;
    }
    const fields: string[] = [];
    let error: string | null = null;
    for (;;) {
      if (text.charCodeAt(pos) === 34) {
        const fieldStart = pos;
        let value = '';
        let i = pos + 1;
        let closed = false;
        for (;;) {
          const q = text.indexOf('"', i);
          if (q < 0) break;
          value += text.slice(i, q);
          if (text.charCodeAt(q + 1) === 34) {
            value += '"';
            i = q + 2;
            continue;
          }
          pos = q + 1;
          closed = true;
          break;
        }
        if (!closed) {
          pos = fieldStart;
          error = 'unterminated quoted field';
          break;
        }
        for (let k = value.indexOf('\n'); k >= 0; k = value.indexOf('\n', k + 1)) line++;
        fields.push(value);
        const c = text.charCodeAt(pos);
        if (c === 44) {
          pos++;
          continue;
        }
        if (pos >= n) break;
        if (c === 10 || (c === 13 && text.charCodeAt(pos + 1) === 10)) {
          pos += c === 10 ? 1 : 2;
          line++;
          break;
        }
        error = 'text after a closing quote';
        break;
      }
      let lineEnd = text.indexOf('\n', pos);
      if (lineEnd < 0) lineEnd = n;
      const comma = text.indexOf(',', pos);
      const end = comma >= 0 && comma < lineEnd ? comma : lineEnd > pos && text.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd;
      const value = text.slice(pos, end);
      if (value.indexOf('"') >= 0) {
        error = 'quote inside an unquoted field';
        break;
      }
      fields.push(value);
      if (end === comma) {
        pos = comma + 1;
        continue;
      }
      pos = lineEnd + 1;
      line++;
      break;
    }
    if (error !== null) {
      onError(recLine, error);
      skipLine(pos);
      continue;
    }
    onRecord(fields, recLine);
  }
}

/** `AS13335` -> 13335; -1 when not that form. */
export function parseAsText(text: string): number {
  if (text.length < 3 || text.charCodeAt(0) !== 65 || text.charCodeAt(1) !== 83) return -1;
  return parseUint(text.slice(2), MAX_ASN);
}

// ---------------------------------------------------------------------------
// asns.csv

/** bgp.tools' view of an AS. `class` is bgp.tools' label (Eyeball, Content, Carrier, T1, Unknown, ...). */
export interface BgpToolsAsn {
  readonly name: string;
  readonly class: string;
  readonly cc: string | null;
}

const ASNS_META: SourceMeta = {
  id: 'bgptools-asns',
  publisher: 'bgp.tools',
  url: 'https://bgp.tools/asns.csv',
  licence: 'bgp.tools terms of use: free with attribution to bgp.tools',
  attribution_required: true,
  data_date: null,
  evidence: 'inferred',
};

/** Reads bgp.tools `asns.csv` (plain or gzipped). Throws `FeedError` without the `asn,name,class,cc` header. */
export function parseBgpToolsAsns(data: Uint8Array, options: ParseOptions = {}): AsnFeed<BgpToolsAsn> {
  const feed = options.id ?? ASNS_META.id;
  const text = feedText(unpackFeed(feed, data));
  const asns = new Map<number, BgpToolsAsn>();
  const rejected: Diagnostic[] = [];
  let header = false;
  forEachCsvRecord(
    text,
    (f, line) => {
      if (!header) {
        if (f.join(',') !== 'asn,name,class,cc') throw new FeedError(feed, `expected header asn,name,class,cc, got ${excerpt(f.join(','))}`);
        header = true;
        return;
      }
      if (f.length !== 4) {
        rejected.push({ feed, line, message: `expected 4 fields, got ${f.length}: ${excerpt(f.join(','))}` });
        return;
      }
      const asn = parseAsText(f[0]!);
      if (asn < 0) {
        rejected.push({ feed, line, message: `bad ASN ${excerpt(f[0]!)}` });
        return;
      }
      if (asns.has(asn)) {
        rejected.push({ feed, line, message: `AS${asn} listed again; first row kept` });
        return;
      }
      const cc = f[3]!.trim();
      asns.set(asn, { name: f[1]!.trim(), class: f[2]!.trim(), cc: cc === '' ? null : cc });
    },
    (line, message) => {
      if (!header) throw new FeedError(feed, `unreadable header: ${message}`);
      rejected.push({ feed, line, message });
    },
  );
  if (!header) throw new FeedError(feed, 'empty file');
  return { source: { ...ASNS_META, id: feed, data_date: options.dataDate ?? null, entries: asns.size }, asns, rejected };
}

// ---------------------------------------------------------------------------
// tags/<tag>.csv

/** The tag files bgp.tools publishes that the build reads. */
export const BGPTOOLS_TAGS = ['mobile', 'satnet', 'dsl', 'vpsh', 'cdn', 'anycast', 'tor', 'vpn'] as const;
export type BgpToolsTag = (typeof BGPTOOLS_TAGS)[number];

/**
 * Decodes the name part of a tag line (everything after `AS<n>,`), undoing
 * bgp.tools' double CSV encoding; null when it fits no known form.
 *
 * @example
 * decodeTagName('"""Cloudflare", Inc."') // => 'Cloudflare, Inc.'
 * decodeTagName('"OOO """"NI"""""')      // => 'OOO "NI"'
 * decodeTagName('Google LLC')            // => 'Google LLC'
 */
export function decodeTagName(text: string): string | null {
  if (text.charCodeAt(0) !== 34) return text.indexOf('"') < 0 ? text : null;
  // One well-formed quoted field: its content still has doubled quotes.
  const whole = unquoteCsvField(text);
  if (whole !== null) return whole.replaceAll('""', '"');
  // `"""A", B"`: the quoted first part `"A`, a comma, then ` B"`.
  let i = 1;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) return null;
    if (text.charCodeAt(q + 1) === 34) {
      i = q + 2;
      continue;
    }
    if (text.charCodeAt(q + 1) !== 44) return null;
    const joined = `${text.slice(1, q).replaceAll('""', '"')},${text.slice(q + 2)}`;
    if (joined.length < 2 || joined.charCodeAt(0) !== 34 || joined.charCodeAt(joined.length - 1) !== 34) return null;
    return joined.slice(1, -1);
  }
}

/** Reads one bgp.tools tag file (`AS<n>,name` lines) into ASN -> AS name. */
export function parseBgpToolsTag(data: Uint8Array, tag: string, options: ParseOptions = {}): AsnFeed<string> {
  const feed = options.id ?? `bgptools-tag-${tag}`;
  const text = feedText(unpackFeed(feed, data));
  const asns = new Map<number, string>();
  const rejected: Diagnostic[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
    if (line === '') continue;
    const comma = line.indexOf(',');
    const asn = comma < 0 ? -1 : parseAsText(line.slice(0, comma));
    if (asn < 0) {
      rejected.push({ feed, line: i + 1, message: `expected AS<n>,name: ${excerpt(line)}` });
      continue;
    }
    const name = decodeTagName(line.slice(comma + 1));
    if (name === null) {
      rejected.push({ feed, line: i + 1, message: `bad CSV quoting in name: ${excerpt(line.slice(comma + 1))}` });
      continue;
    }
    if (asns.has(asn)) {
      rejected.push({ feed, line: i + 1, message: `AS${asn} listed again; first line kept` });
      continue;
    }
    asns.set(asn, name.trim());
  }
  const meta: SourceMeta = {
    id: feed,
    publisher: 'bgp.tools',
    url: `https://bgp.tools/tags/${tag}.csv`,
    licence: ASNS_META.licence,
    attribution_required: true,
    data_date: options.dataDate ?? null,
    evidence: 'inferred',
  };
  return { source: { ...meta, entries: asns.size }, asns, rejected };
}

// ---------------------------------------------------------------------------
// Registry

/** Date of the mirrored snapshot (Alice39s/BGP.Tools-OpenDB @ 564ab38dfd10). */
const BGPTOOLS_SNAPSHOT_DATE = '2026-05-31';

/** bgp.tools feeds, with paths relative to the feeds directory. */
export const BGPTOOLS_FEEDS: readonly FeedSpec[] = [
  {
    id: 'bgptools-asns',
    path: 'bgp/bgptools/asns.csv.gz',
    url: ASNS_META.url,
    kind: 'asn',
    parse: (data) => parseBgpToolsAsns(data, { dataDate: BGPTOOLS_SNAPSHOT_DATE }),
  },
  ...BGPTOOLS_TAGS.map(
    (tag): FeedSpec => ({
      id: `bgptools-tag-${tag}`,
      path: `bgp/bgptools/tags-${tag}.csv`,
      url: `https://bgp.tools/tags/${tag}.csv`,
      kind: 'asn',
      parse: (data) => parseBgpToolsTag(data, tag, { dataDate: BGPTOOLS_SNAPSHOT_DATE }),
    }),
  ),
];
