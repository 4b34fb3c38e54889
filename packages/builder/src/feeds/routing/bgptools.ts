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
 *   rejected. An unquoted name never holds a comma (none of those lines
 *   does): such a line is rejected too, so `asns.csv` in a tag file's place
 *   (`AS10,CSNET ...,Unknown,US`) is no tag list of every AS but a
 *   `feed_format` error. bgp.tools cuts names to 60 characters plus `...` in the tag
 *   files (70 lines there): use `asns.csv` for display names.
 *
 * The bytes carry no date: the declarations give the mirror's snapshot date
 * (`copyDate`). Tags are bgp.tools' inference, so their evidence is
 * `inferred`.
 *
 * @module
 */
import { FeedError } from '../../errors.js';
import { ASN_TAGS, defineFeed } from '../declare.js';
import { unpackFeed } from '../read/compression.js';
import { forEachCsvRecord, unquoteCsvField } from '../read/csv.js';
import { parseAsText } from '../read/numbers.js';
import { excerpt, feedText } from '../read/text.js';
import type { AsnsFound, Diagnostic } from '../types.js';

// ---------------------------------------------------------------------------
// asns.csv

/** bgp.tools' view of an AS. `class` is bgp.tools' label (Eyeball, Content, Carrier, T1, Unknown, ...). */
export interface BgpToolsAsn {
  readonly name: string;
  readonly class: string;
  readonly cc: string | null;
}

/** Reads bgp.tools `asns.csv` (plain or gzipped). Throws `FeedError` without the `asn,name,class,cc` header. */
export function parseBgpToolsAsns(data: Uint8Array, feed: string): AsnsFound<BgpToolsAsn> {
  const text = feedText(unpackFeed(feed, data));
  const asns = new Map<number, BgpToolsAsn>();
  const rejected: Diagnostic[] = [];
  let header = false;
  forEachCsvRecord(
    text,
    (f, line) => {
      if (!header) {
        if (f.join(',') !== 'asn,name,class,cc') throw new FeedError(feed, 'feed_format', `expected header asn,name,class,cc, got ${excerpt(f.join(','))}`);
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
      if (!header) throw new FeedError(feed, 'feed_format', `unreadable header: ${message}`);
      rejected.push({ feed, line, message });
    },
  );
  if (!header) throw new FeedError(feed, 'feed_empty', 'empty file');
  return { asns, rejected, dataDate: null };
}

// ---------------------------------------------------------------------------
// tags/<tag>.csv

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
  // Unquoted: neither a quote nor a comma (bgp.tools quotes a name with a comma; a comma here means more columns).
  if (text.charCodeAt(0) !== 34) return text.indexOf('"') < 0 && text.indexOf(',') < 0 ? text : null;
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
export function parseBgpToolsTag(data: Uint8Array, feed: string): AsnsFound<string> {
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
  return { asns, rejected, dataDate: null };
}

// ---------------------------------------------------------------------------
// Declarations

/** Date of the mirrored snapshot (Alice39s/BGP.Tools-OpenDB @ 564ab38dfd10): the files state none. */
const BGPTOOLS_SNAPSHOT_DATE = '2026-05-31';

const BGPTOOLS = {
  publisher: 'bgp.tools',
  licence: 'bgp.tools terms of use: free with attribution to bgp.tools',
  attribution_required: true,
  evidence: 'inferred',
  refresh: '1d',
  origin: 'feeds',
  copyDate: BGPTOOLS_SNAPSHOT_DATE,
} as const;

/** `asns.csv`: AS names with class and country (context: display names come from the ASN table). */
export const BGPTOOLS_ASNS = defineFeed({
  ...BGPTOOLS,
  id: 'bgptools-asns',
  url: 'https://bgp.tools/asns.csv',
  format: 'gzip RFC 4180 CSV with header asn,name,class,cc; names may hold line breaks',
  role: 'as-names',
  use: 'build',
  path: 'bgp/bgptools/asns.csv.gz',
  download: { url: 'https://bgp.tools/asns.csv' },
  parse: parseBgpToolsAsns,
});

/** The tag files in the feeds folder; the build reads those named in declare.ts's ASN_TAGS, the others are context. */
export const BGPTOOLS_TAGS = ['mobile', 'satnet', 'dsl', 'vpsh', 'cdn', 'anycast', 'tor', 'vpn'] as const;

/**
 * One declaration per tag. Context only: `dsl`, `cdn`, `anycast`, `tor`
 * (ASNs hosting relays never set is_tor) and `vpn` (it tags AS16509 Amazon,
 * AS4837 China Unicom, AS4766 Korea Telecom: ASN-wide it would call about 9%
 * of public IPv4 a VPN; see vpn.ts).
 */
export const BGPTOOLS_TAG_FEEDS = BGPTOOLS_TAGS.map((tag) =>
  defineFeed({
    ...BGPTOOLS,
    id: `bgptools-tag-${tag}`,
    url: `https://bgp.tools/tags/${tag}.csv`,
    format: 'AS<n>,name per line, no header; names double CSV-encoded',
    role: 'asn-tag',
    tag,
    use: Object.hasOwn(ASN_TAGS, tag) ? 'build' : 'context',
    path: `bgp/bgptools/tags-${tag}.csv`,
    download: { url: `https://bgp.tools/tags/${tag}.csv` },
    parse: parseBgpToolsTag,
  }),
);
