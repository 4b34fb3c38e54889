/**
 * `geo.timezone` for a location: the IANA zone (area/location form) from the
 * coordinates, checked against the country.
 *
 * Rule, in order (PRODUCT.md: "derived from coordinates, else from the
 * country when it has one zone"):
 *
 * 1. `coordinates`: the zone at (lat, lon) from `@photostructure/tz-lookup`
 *    (time-zone boundary data) lists the country in `countries-and-timezones`
 *    (tzdata zone1970.tab + backward links) -> that zone, as tz-lookup names
 *    it (`Europe/Oslo`, a link to `Europe/Berlin`, stays `Europe/Oslo`).
 *    Also when the country has no zone of its own in tzdata (`XK` Kosovo,
 *    an unknown code, no code at all): then the coordinate zone is taken
 *    unchecked, if it is an area/location name (not `Etc/GMT-5`).
 * 2. `country`: otherwise (no usable coordinates, or coordinates in another
 *    country's zone: near a border, or a location outside the country) the
 *    country's zone when it has exactly one (see `countryZones`).
 * 3. Otherwise null: `mismatch` (coordinates in another country's zone and
 *    the country has several zones), `ambiguous` (no coordinates, several
 *    zones), `no_zone` (no zone of its own and no usable coordinate zone,
 *    e.g. `BV` Bouvet Island at `Etc/GMT`).
 *
 * Zone names are not canonicalised: tz-lookup's name or the country table's.
 *
 * @module
 */
import tzLookup from '@photostructure/tz-lookup';
import { getCountry, getTimezone, getTimezonesForCountry } from 'countries-and-timezones';

export type TimezoneOutcome = 'coordinates' | 'country' | 'mismatch' | 'ambiguous' | 'no_zone';

export interface TimezoneDecision {
  readonly zone: string | null;
  readonly outcome: TimezoneOutcome;
}

const ownZonesCache = new Map<string, readonly string[]>();

/**
 * The zones that belong to a country, for rule 2: the canonical zones whose
 * home it is (first-listed country in zone1970.tab: `DE` -> `Europe/Berlin`,
 * not `Europe/Zurich` which also lists DE for Büsingen); if there is none,
 * the backward links made for the country alone, one per target zone
 * (`NO` -> `Europe/Oslo`, `KW` -> `Asia/Kuwait`, `VI` -> `America/St_Thomas`);
 * if there is none either, every canonical zone that lists it. This is
 * tzdata's zone.tab view. Empty for a code without zones (`XK`, `BV`, `ZZ`).
 * Memoised.
 *
 * @example
 * countryZones('DE'); // => ['Europe/Berlin']
 * countryZones('NO'); // => ['Europe/Oslo']
 * countryZones('XK'); // => []
 */
export function countryZones(countryCode: string): readonly string[] {
  const cc = countryCode.toUpperCase();
  const hit = ownZonesCache.get(cc);
  if (hit) return hit;
  let zones: string[] = [];
  if (/^[A-Z]{2}$/.test(cc) && getCountry(cc) !== null) {
    const canonical = getTimezonesForCountry(cc) ?? [];
    zones = canonical.filter((z) => z.countries[0] === cc).map((z) => z.name);
    if (zones.length === 0) {
      // One link per target zone (`America/St_Thomas`, not also `America/Virgin`).
      const byTarget = new Map<string, string>();
      const links = (getTimezonesForCountry(cc, { deprecated: true }) ?? [])
        .filter((z) => z.aliasOf !== null && z.countries.length === 1 && z.countries[0] === cc)
        .map((z) => z.name)
        .sort((a, b) => Number(isAreaLocation(b)) - Number(isAreaLocation(a)) || (a < b ? -1 : a > b ? 1 : 0));
      for (const name of links) {
        const target = getTimezone(name).aliasOf;
        if (target && !byTarget.has(target)) byTarget.set(target, name); // a link always has a target (filtered above)
      }
      zones = [...byTarget.values()];
    }
    if (zones.length === 0) zones = canonical.map((z) => z.name);
    zones.sort();
  }
  ownZonesCache.set(cc, zones);
  return zones;
}

const zoneCountriesCache = new Map<string, ReadonlySet<string> | null>();

/** Countries that list `zone` (canonical or link), or null for an unknown name. Memoised. */
function zoneCountries(zone: string): ReadonlySet<string> | null {
  let set = zoneCountriesCache.get(zone);
  if (set === undefined) {
    const tz = getTimezone(zone);
    set = tz === null ? null : new Set<string>(tz.countries);
    zoneCountriesCache.set(zone, set);
  }
  return set;
}

/** Whether `zone` is an IANA area/location name (not `Etc/GMT+9`, `UTC`). */
function isAreaLocation(zone: string): boolean {
  return zone.includes('/') && !zone.startsWith('Etc/');
}

/** The zone at the coordinates, or null (missing, out of range, not finite). */
function coordinateZone(lat: number | null, lon: number | null): string | null {
  if (lat === null || lon === null || !Number.isFinite(lat) || !Number.isFinite(lon)) return null;
  if (lat < -90 || lat > 90 || lon < -180 || lon > 180) return null;
  try {
    return tzLookup(lat, lon);
  } catch {
    return null;
  }
}

/**
 * Decides the time zone of a location (rule in the module notes). Pure; see
 * `TimezoneResolver` for the memoised, counting form.
 *
 * @example
 * timezoneFor(37.422, -122.085, 'US'); // => { zone: 'America/Los_Angeles', outcome: 'coordinates' }
 * timezoneFor(null, null, 'FR');       // => { zone: 'Europe/Paris', outcome: 'country' }
 */
export function timezoneFor(lat: number | null, lon: number | null, countryCode: string | null): TimezoneDecision {
  let zone = coordinateZone(lat, lon);
  if (zone !== null && !isAreaLocation(zone)) zone = null;
  const own = countryCode === null ? [] : countryZones(countryCode);
  // 1. Coordinates, checked against the country when it has zones.
  if (zone !== null) {
    if (own.length === 0) return { zone, outcome: 'coordinates' };
    const countries = zoneCountries(zone);
    const cc = countryCode!;
    if (countries?.has(cc) || countries?.has(cc.toUpperCase())) return { zone, outcome: 'coordinates' };
  }
  // 2. The country's single zone.
  if (own.length === 1) return { zone: own[0]!, outcome: 'country' };
  // 3. Nothing.
  if (own.length === 0) return { zone: null, outcome: 'no_zone' };
  return { zone: null, outcome: zone === null ? 'ambiguous' : 'mismatch' };
}

/**
 * Memoised `timezoneFor` (one decision per distinct (lat, lon, country)
 * key) that counts the outcome of each distinct key. With `memoize: false`
 * every call is decided and counted: for a caller that already dedups its
 * inputs (the geo readers intern whole rows), where keys are nearly all
 * distinct and the memo would cost more (~0.3 s per 425k keys) than the
 * decisions themselves (~0.1 s).
 *
 * @example
 * const tz = new TimezoneResolver();
 * tz.resolve(-33.8688, 151.209, 'AU'); // => 'Australia/Sydney'
 * tz.counts.coordinates;                // => 1
 */
export class TimezoneResolver {
  readonly counts: Record<TimezoneOutcome, number> = { coordinates: 0, country: 0, mismatch: 0, ambiguous: 0, no_zone: 0 };
  // lat -> [lon, country, zone, ...]: a number Map key (no float-to-string
  // formatting; a missing coordinate is NaN) and a short scan.
  private readonly memo = new Map<number, (number | string | null)[]>();
  private readonly memoize: boolean;

  constructor(options: { readonly memoize?: boolean } = {}) {
    this.memoize = options.memoize ?? true;
  }

  resolve(lat: number | null, lon: number | null, countryCode: string | null): string | null {
    if (!this.memoize) {
      const d = timezoneFor(lat, lon, countryCode);
      this.counts[d.outcome]++;
      return d.zone;
    }
    const lo = lon ?? NaN;
    let list = this.memo.get(lat ?? NaN);
    if (!list) this.memo.set(lat ?? NaN, (list = []));
    for (let i = 0; i < list.length; i += 3) {
      if (Object.is(list[i], lo) && list[i + 1] === countryCode) return list[i + 2] as string | null;
    }
    const d = timezoneFor(lat, lon, countryCode);
    this.counts[d.outcome]++;
    list.push(lo, countryCode, d.zone);
    return d.zone;
  }
}

/** Whether `zone` is an IANA zone name that countries-and-timezones knows (canonical or link). */
export function isKnownZone(zone: string): boolean {
  return zoneCountries(zone) !== null;
}
