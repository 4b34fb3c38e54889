/**
 * The geo tables the DB-IP rows are completed with: English country names
 * (countries.ts) and the time-zone rule (timezone.ts).
 */
import { describe, expect, it } from 'vitest';
import { CountryNames, countryName } from '../../src/feeds/geo/countries.js';
import { TimezoneResolver, countryZones, timezoneFor } from '../../src/feeds/geo/timezone.js';

describe('country names', () => {
  it('uses common English short names', () => {
    expect(countryName('US')).toBe('United States');
    expect(countryName('GB')).toBe('United Kingdom');
    expect(countryName('RU')).toBe('Russia');
    expect(countryName('CN')).toBe('China');
    expect(countryName('KR')).toBe('South Korea');
    expect(countryName('TW')).toBe('Taiwan');
    expect(countryName('IR')).toBe('Iran');
    expect(countryName('CZ')).toBe('Czechia');
    expect(countryName('CI')).toBe("Côte d'Ivoire");
    expect(countryName('NL')).toBe('Netherlands');
    expect(countryName('DE')).toBe('Germany');
    expect(countryName('XK')).toBe('Kosovo');
    expect(countryName('de')).toBe('Germany');
  });

  it('gives null for an unknown code and counts it, never throws', () => {
    const names = new CountryNames();
    expect(names.get('ZZ')).toBeNull();
    expect(names.get('ZZ')).toBeNull();
    expect(names.get('EU')).toBeNull();
    expect(names.get('')).toBeNull();
    expect(names.get('FR')).toBe('France');
    expect(Object.fromEntries(names.unknown)).toEqual({ ZZ: 2, EU: 1, '': 1 });
  });
});

// ----------------------------------------------------------------- timezone

describe('timezone rule', () => {
  it('takes the coordinate zone when it belongs to the country', () => {
    // DB-IP's float32 coordinates for 8.8.8.0/24.
    expect(timezoneFor(37.422000885009766, -122.08499908447266, 'US')).toEqual({ zone: 'America/Los_Angeles', outcome: 'coordinates' });
    expect(timezoneFor(-33.8688, 151.209, 'AU')).toEqual({ zone: 'Australia/Sydney', outcome: 'coordinates' });
    // tz-lookup's link name is kept (Europe/Oslo links to Europe/Berlin).
    expect(timezoneFor(59.91, 10.75, 'NO')).toEqual({ zone: 'Europe/Oslo', outcome: 'coordinates' });
  });

  it('border cases: coordinates in a neighbour zone fall back to a single-zone country, else null', () => {
    // Swiss record located in Saint-Louis (France), next to Basel.
    expect(timezoneFor(47.59, 7.56, 'CH')).toEqual({ zone: 'Europe/Zurich', outcome: 'country' });
    // German record located in Vienna: Germany's own zone is Europe/Berlin only.
    expect(timezoneFor(48.2082, 16.3738, 'DE')).toEqual({ zone: 'Europe/Berlin', outcome: 'country' });
    // US record located in Tijuana (Mexico): the US has many zones, so no answer.
    expect(timezoneFor(32.52, -117.03, 'US')).toEqual({ zone: null, outcome: 'mismatch' });
  });

  it('without coordinates: the zone of a single-zone country, else null', () => {
    expect(timezoneFor(null, null, 'FR')).toEqual({ zone: 'Europe/Paris', outcome: 'country' });
    expect(timezoneFor(null, null, 'NO')).toEqual({ zone: 'Europe/Oslo', outcome: 'country' });
    expect(timezoneFor(null, null, 'VN')).toEqual({ zone: 'Asia/Ho_Chi_Minh', outcome: 'country' });
    expect(timezoneFor(null, null, 'US')).toEqual({ zone: null, outcome: 'ambiguous' });
    expect(timezoneFor(Number.NaN, 200, 'FR')).toEqual({ zone: 'Europe/Paris', outcome: 'country' });
  });

  it('a country without its own zone takes the coordinate zone when it is area/location', () => {
    expect(countryZones('XK')).toEqual([]);
    expect(timezoneFor(42.6629, 21.1655, 'XK')).toEqual({ zone: 'Europe/Belgrade', outcome: 'coordinates' });
    expect(timezoneFor(-54.42, 3.36, 'BV')).toEqual({ zone: null, outcome: 'no_zone' }); // Etc/GMT
    expect(timezoneFor(48.85, 2.35, 'ZZ')).toEqual({ zone: 'Europe/Paris', outcome: 'coordinates' });
    expect(timezoneFor(null, null, 'ZZ')).toEqual({ zone: null, outcome: 'no_zone' });
    expect(timezoneFor(48.85, 2.35, null)).toEqual({ zone: 'Europe/Paris', outcome: 'coordinates' });
  });

  it('country zones follow the zone.tab view', () => {
    expect(countryZones('DE')).toEqual(['Europe/Berlin']);
    expect(countryZones('SE')).toEqual(['Europe/Stockholm']);
    expect(countryZones('VI')).toEqual(['America/St_Thomas']);
    expect(countryZones('CN')).toEqual(['Asia/Shanghai', 'Asia/Urumqi']);
    expect(countryZones('US').length).toBeGreaterThan(20);
  });

  it('the resolver memoises per (lat, lon, country) and counts each distinct key once', () => {
    const tz = new TimezoneResolver();
    expect(tz.resolve(37.422, -122.085, 'US')).toBe('America/Los_Angeles');
    expect(tz.resolve(37.422, -122.085, 'US')).toBe('America/Los_Angeles');
    expect(tz.resolve(37.422, -122.085, 'MX')).toBeNull();
    expect(tz.resolve(null, null, 'FR')).toBe('Europe/Paris');
    expect(tz.resolve(null, null, 'FR')).toBe('Europe/Paris');
    expect(tz.counts).toEqual({ coordinates: 1, country: 1, mismatch: 1, ambiguous: 0, no_zone: 0 });
    const every = new TimezoneResolver({ memoize: false });
    every.resolve(37.422, -122.085, 'US');
    every.resolve(37.422, -122.085, 'US');
    expect(every.counts.coordinates).toBe(2);
  });
});

// ---------------------------------------------------------------------- CSV
