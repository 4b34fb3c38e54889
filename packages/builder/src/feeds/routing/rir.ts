/**
 * RIR delegation adapter: when and to which country an address block was
 * allocated or assigned, from the NRO "delegated" statistics files of the
 * five RIRs (standard and extended formats).
 *
 * Publisher's format (NRO RIR statistics exchange format,
 * https://www.nro.net/wp-content/uploads/nro-extended-stats-readme5.txt):
 * optional `#` comment lines (APNIC's conditions of use; a mirror may append
 * `# Last updated ...` at the end), a version line
 * `version|registry|serial|records|startdate|enddate|UTCoffset` (version `2`
 * or `2.3`), summary lines `registry|*|type|*|count|summary`, then records
 * `registry|cc|type|start|value|date|status[|opaque-id[|extensions...]]`.
 * For ipv4 `value` is an address COUNT (not always a power of two: one
 * record may need several prefixes); for ipv6 it is the prefix length; for
 * asn it is the number of AS numbers. `date` is YYYYMMDD, empty or
 * `00000000` when unknown.
 *
 * Rules: allocated/assigned records are used; available/reserved records
 * are counted in `skipped` (never rejected); asn records give no prefixes
 * but fill `asnRanges`, one range per record as written (not one entry per
 * AS: a record may count 10^8 ASNs). Country `ZZ` (unknown) and empty are
 * null. A record with a bad address, value, date, type or status, or an asn
 * count that runs past AS 4294967295, is rejected with a diagnostic. The header's record count and each summary count are checked
 * against the body and a mismatch is a diagnostic, not an error (LACNIC's
 * own file disagrees with itself). A last line without a line end, when the
 * counts show the file is incomplete, is reported as cut off and not used.
 * The data date is the header's end date (else its serial, when that is a
 * YYYYMMDD date). As a feed (`parseDelegatedBlocks`), a file with no ipv4
 * or ipv6 record (asn records only) is `feed_empty`: valid, but it holds
 * nothing the allocation role reads; and a file whose version line names
 * another registry than the declaration's (ARIN's file at RIPE NCC's path)
 * is `feed_format`: read, that registry's space would lose its dates and
 * countries while the source row said they were there.
 *
 * @module
 */
import { FeedError } from '../../errors.js';
import { defineFeed } from '../declare.js';
import { parseAddressValue, parseCidr, pushRangePrefixes } from '../read/cidr.js';
import { unpackFeed } from '../read/compression.js';
import { compactDate } from '../read/dates.js';
import { MAX_ASN, parseUint } from '../read/numbers.js';
import { excerpt, feedText } from '../read/text.js';
import type { Diagnostic, Prefix, PrefixesFound } from '../types.js';

/** What a delegation record says about its block. */
export interface RirValue {
  /** Allocation date `YYYY-MM-DD`, null when the RIR gives none. */
  readonly date: string | null;
  /** ISO 3166 code as the RIR writes it (includes `EU`, `AP`), null when empty or `ZZ`. */
  readonly country: string | null;
  /** `afrinic`, `apnic`, `arin`, `lacnic`, `ripencc`. */
  readonly registry: string;
  /** `allocated` or `assigned`. */
  readonly status: string;
}

/** The version line. */
export interface DelegatedHeader {
  readonly version: string;
  readonly registry: string;
  readonly serial: string;
  readonly records: number;
  readonly startDate: string | null;
  readonly endDate: string | null;
  readonly utcOffset: string;
}

/** Result of `parseDelegated`. */
export interface RirFound extends PrefixesFound<RirValue> {
  readonly header: DelegatedHeader;
  /** Record lines in the body, per type, as read (used or not). */
  readonly counts: { readonly asn: number; readonly ipv4: number; readonly ipv6: number };
  /** available / reserved records (well-formed, deliberately unused). */
  readonly skipped: number;
  /** The allocated/assigned asn records, in file order: ASNs first..last (inclusive) and their country (null when unknown). */
  readonly asnRanges: readonly AsnRange[];
}

/** One asn record: a run of AS numbers delegated to one country. */
export interface AsnRange {
  readonly first: number;
  readonly last: number;
  readonly country: string | null;
}

const USED = new Set(['allocated', 'assigned']);
const UNUSED = new Set(['available', 'reserved']);
const TYPES = new Set(['asn', 'ipv4', 'ipv6']);

interface Pending {
  readonly line: number;
  readonly text: string;
}

/**
 * Reads one RIR delegated(-extended) file (plain or gzipped). Throws
 * `FeedError` when no version line precedes the records.
 */
export function parseDelegated(data: Uint8Array, feed: string): RirFound {
  const text = feedText(unpackFeed(feed, data));
  const lines = text.split('\n');
  const endsWithNewline = text.length === 0 || text.endsWith('\n');
  if (lines[lines.length - 1] === '') lines.pop();

  let header: DelegatedHeader | null = null;
  let headerLine = 0;
  const summaries: { type: string; count: number; line: number }[] = [];
  const counts = { asn: 0, ipv4: 0, ipv6: 0 };
  let records = 0;
  let skipped = 0;
  const prefixes: Prefix<RirValue>[] = [];
  const rejected: Diagnostic[] = [];
  const asnRanges: AsnRange[] = [];
  let cutOff: Pending | null = null;

  const record = (f: string[], lineNo: number, raw: string): void => {
    const reject = (message: string): void => void rejected.push({ feed, line: lineNo, message: `${message}: ${excerpt(raw)}` });
    if (f.length < 7) return reject(`expected at least 7 fields, got ${f.length}`);
    const [registry, cc, type, start, value, dateText, status] = f as [string, string, string, string, string, string, string];
    if (!TYPES.has(type)) return reject(`unknown type ${JSON.stringify(type)}`);
    if (UNUSED.has(status)) {
      skipped++;
      return;
    }
    if (!USED.has(status)) return reject(`unknown status ${JSON.stringify(status)}`);
    let date: string | null = null;
    if (dateText !== '' && dateText !== '00000000') {
      date = compactDate(dateText);
      if (date === null) return reject(`bad date ${JSON.stringify(dateText)}`);
    }
    if (cc !== '' && !/^[A-Z]{2}$/.test(cc)) return reject(`bad country code ${JSON.stringify(cc)}`);
    const country = cc === '' || cc === 'ZZ' ? null : cc;
    if (type === 'asn') {
      const first = parseUint(start, MAX_ASN);
      const n = parseUint(value, Number.MAX_SAFE_INTEGER);
      if (first < 0) return reject(`bad asn start ${JSON.stringify(start)}`);
      if (n < 1) return reject(`bad asn count ${JSON.stringify(value)}`);
      if (first + n - 1 > MAX_ASN) return reject(`asn count ${n} from AS${first} runs past AS${MAX_ASN}`);
      // Kept as the range it is: nothing reads per-AS countries, and a huge count must cost no memory.
      asnRanges.push({ first, last: first + n - 1, country });
      return;
    }
    const v: RirValue = { date, country, registry, status };
    if (type === 'ipv4') {
      const addr = parseAddressValue(start);
      const n = parseUint(value, 0x100000000);
      if (!addr || addr.version !== 4 || start.indexOf(':') >= 0) return reject(`bad ipv4 start ${JSON.stringify(start)}`);
      if (n < 1 || addr.value + BigInt(n) - 1n > 0xffffffffn) return reject(`bad ipv4 address count ${JSON.stringify(value)}`);
      // No registry delegates a whole family; read as one, it would date and place every address.
      if (n === 0x100000000) return reject('a record of all IPv4 space is no delegation');
      pushRangePrefixes(prefixes, 4, addr.value, addr.value + BigInt(n) - 1n, v);
      return;
    }
    const length = parseUint(value, 128);
    if (length < 0) return reject(`bad ipv6 prefix length ${JSON.stringify(value)}`);
    const p = parseCidr(`${start}/${length}`);
    if (!p.ok || p.version !== 6) return reject(`bad ipv6 start ${JSON.stringify(start)}`);
    if (p.hostBitsSet) return reject(`host bits set in ${start}/${length}`);
    if (length === 0) return reject('a record of all IPv6 space is no delegation');
    prefixes.push({ version: 6, start: p.start, length, value: v });
  };

  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
    const lineNo = i + 1;
    if (line === '' || line.charCodeAt(0) === 35 /* # */) continue;
    const f = line.split('|');
    if (!header) {
      const version = f[0]!;
      if (f.length < 7 || !/^\d+(\.\d+)?$/.test(version)) throw new FeedError(feed, 'feed_format', `expected the version line first, got ${excerpt(line)}`);
      const registry = f[1]!;
      const endDate = compactDate(f[5]!);
      header = {
        version,
        registry,
        serial: f[2]!,
        records: parseUint(f[3]!, Number.MAX_SAFE_INTEGER),
        startDate: compactDate(f[4]!),
        endDate,
        utcOffset: f[6]!,
      };
      headerLine = lineNo;
      continue;
    }
    if (f.length === 6 && f[1] === '*' && f[3] === '*' && f[5] === 'summary') {
      summaries.push({ type: f[2]!, count: parseUint(f[4]!, Number.MAX_SAFE_INTEGER), line: lineNo });
      continue;
    }
    records++;
    const type = f[2];
    if (type === 'asn' || type === 'ipv4' || type === 'ipv6') counts[type]++;
    if (i === lines.length - 1 && !endsWithNewline) {
      // Decided below, once the header's count says whether the file is whole.
      cutOff = { line: lineNo, text: line };
      continue;
    }
    record(f, lineNo, line);
  }
  if (!header) throw new FeedError(feed, 'feed_empty', 'no version line (empty file?)');

  const complete = header.records === records;
  if (cutOff) {
    if (complete) record(cutOff.text.split('|'), cutOff.line, cutOff.text);
    else rejected.push({ feed, line: cutOff.line, message: `last line has no line end: file cut off, line not used: ${excerpt(cutOff.text)}` });
  }
  if (!complete) {
    rejected.push({ feed, line: headerLine, message: `header says ${header.records} records, file has ${records}` });
  }
  for (const s of summaries) {
    const have = s.type === 'asn' || s.type === 'ipv4' || s.type === 'ipv6' ? counts[s.type] : 0;
    if (s.count !== have) rejected.push({ feed, line: s.line, message: `summary says ${s.count} ${s.type} records, file has ${have}` });
  }

  const dataDate = header.endDate ?? compactDate(header.serial);
  return { prefixes, rejected, dataDate, header, counts, skipped, asnRanges };
}

/**
 * The RIR feeds' adapter: `parseDelegated`, refusing a file with no ipv4 or
 * ipv6 record. Such a file (asn records only) is well-formed, but the build
 * reads address blocks from it: used, the RIR's space would lose its
 * allocation dates and countries. Said plainly, not as `no entry in the
 * file` (it has records) nor as every record rejected (a header count that
 * disagrees with the body is not the reason).
 *
 * @throws FeedError `feed_empty` for a file with no ipv4 or ipv6 record,
 *   `feed_format` when `registry` is given and the version line names
 *   another, or what parseDelegated throws.
 */
export function parseDelegatedBlocks(data: Uint8Array, feed: string, registry?: string): RirFound {
  const found = parseDelegated(data, feed);
  const { asn, ipv4, ipv6 } = found.counts;
  if (ipv4 + ipv6 === 0) {
    throw new FeedError(feed, 'feed_empty', `holds no ipv4 or ipv6 record (${asn} asn record${asn === 1 ? '' : 's'}): the build reads address blocks from a delegation file`);
  }
  if (registry !== undefined && found.header.registry !== registry) {
    throw new FeedError(feed, 'feed_format', `the version line names registry ${JSON.stringify(found.header.registry)}, not ${JSON.stringify(registry)}: another RIR's file`);
  }
  return found;
}

// ---------------------------------------------------------------------------
// Declarations

const RIR_TERMS = 'RIR statistics, published for public reuse (NRO); attribution requested';

/** `code` is the registry as the file's version line and records write it (`ripencc`). */
const rir = (
  id: string, registry: string, code: string, path: string, url: string, use: 'build' | 'context',
  opts: { note?: string; licence?: string; redistributable?: boolean } = {},
) =>
  defineFeed({
    id,
    publisher: `${registry} (NRO delegated statistics)`,
    url,
    licence: opts.licence ?? RIR_TERMS,
    attribution_required: true,
    evidence: 'authoritative',
    ...(opts.note !== undefined ? { note: opts.note } : {}),
    ...(opts.redistributable !== undefined ? { redistributable: opts.redistributable } : {}),
    format: 'NRO delegated(-extended) statistics: version line, summaries, registry|cc|type|start|value|date|status records',
    refresh: '1d',
    role: 'allocation',
    use,
    origin: 'feeds',
    path,
    download: { url },
    parse: (data: Uint8Array, feed: string) => parseDelegatedBlocks(data, feed, code),
  });

/**
 * RIR delegation files. ARIN's and the complete RIPE NCC file are build
 * sources that the repository does not carry (the team's collection has no
 * copy; RIPE NCC reserves its rights): `--fetch` downloads them. The
 * truncated RIPE copy is kept for parser tests only; the old LACNIC
 * extended file is superseded by the newer standard one for lookups.
 */
export const RIR_FEEDS = [
  rir('rir-afrinic', 'AFRINIC', 'afrinic', 'rir/delegated-afrinic-extended-latest', 'https://ftp.afrinic.net/pub/stats/afrinic/delegated-afrinic-extended-latest', 'build'),
  rir('rir-apnic', 'APNIC', 'apnic', 'rir/delegated-apnic-latest', 'https://ftp.apnic.net/stats/apnic/delegated-apnic-latest', 'build'),
  rir('rir-arin', 'ARIN', 'arin', 'rir/delegated-arin-extended-latest', 'https://ftp.arin.net/pub/stats/arin/delegated-arin-extended-latest', 'build'),
  rir('rir-lacnic', 'LACNIC', 'lacnic', 'rir/delegated-lacnic-latest', 'https://ftp.lacnic.net/pub/stats/lacnic/delegated-lacnic-latest', 'build'),
  rir(
    'rir-ripencc',
    'RIPE NCC',
    'ripencc',
    'rir/delegated-ripencc-extended-latest',
    'https://ftp.ripe.net/pub/stats/ripencc/delegated-ripencc-extended-latest',
    'build',
    { licence: 'RIPE NCC statistics; RIPE NCC reserves its rights (not redistributed: downloaded by --fetch)', redistributable: false },
  ),
  rir(
    'rir-lacnic-extended',
    'LACNIC',
    'lacnic',
    'rir/delegated-lacnic-extended-20240208.gz',
    'https://ftp.lacnic.net/pub/stats/lacnic/delegated-lacnic-extended-latest',
    'context',
    { note: 'superseded by the newer standard LACNIC file' },
  ),
  rir(
    'rir-ripencc-partial',
    'RIPE NCC',
    'ripencc',
    'rir/PARTIAL-delegated-ripencc-extended-20260720.gz',
    'https://ftp.ripe.net/pub/stats/ripencc/delegated-ripencc-extended-latest',
    'context',
    { note: 'truncated copy: parser tests only' },
  ),
];
