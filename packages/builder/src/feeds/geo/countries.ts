/**
 * ISO 3166-1 alpha-2 code -> English country name, for `geo.country`.
 *
 * Rule (the spec asks for the "full country name", i.e. the name spelled out
 * rather than the code): the name is the common English short name, the form
 * IP-intelligence users see elsewhere (MaxMind GeoLite2 English names,
 * ipinfo, ipapi). Source is the `en` table of `i18n-iso-countries` (ISO 3166
 * based). Where that table offers one name, it is used as is. Where it offers
 * alternatives, the first (the library's "official" pick) is used, except
 * for the codes in `PREFERRED` below, whose first form is a formal state
 * title or an outdated form: `US` -> "United States" (not "United States of
 * America"), `RU` -> "Russia", `CN` -> "China", `IR` -> "Iran", `TW` ->
 * "Taiwan", `TZ` -> "Tanzania", `CZ` -> "Czechia", `MK` -> "North
 * Macedonia", `PS` -> "Palestine", `GM` -> "Gambia", `CI` -> "Côte d'Ivoire".
 * Kept as first listed: "South Korea", "Netherlands", "United Kingdom",
 * "United Arab Emirates", "Türkiye", "Republic of the Congo" and
 * "Democratic Republic of the Congo" (the short "Congo" would be ambiguous),
 * "Åland Islands", "Pitcairn".
 *
 * A code the table does not know (`ZZ`, `EU`, a typo) has no name: `null`,
 * never a throw; callers count these (see `CountryNames.unknown`).
 *
 * @module
 */
import { createRequire } from 'node:module';
import type { LocaleData } from 'i18n-iso-countries';

const require = createRequire(import.meta.url);

/** Preferred alternative per code, where the library's first form is not the common short name. */
const PREFERRED: Readonly<Record<string, string>> = {
  US: 'United States',
  RU: 'Russia',
  CN: 'China',
  IR: 'Iran',
  TW: 'Taiwan',
  TZ: 'Tanzania',
  CZ: 'Czechia',
  MK: 'North Macedonia',
  PS: 'Palestine',
  GM: 'Gambia',
  CI: "Côte d'Ivoire",
};

let table: ReadonlyMap<string, string> | null = null;

/** The code -> name table, built once from `i18n-iso-countries/langs/en.json`. */
export function countryNameTable(): ReadonlyMap<string, string> {
  if (table) return table;
  const en = require('i18n-iso-countries/langs/en.json') as LocaleData;
  const m = new Map<string, string>();
  for (const [code, names] of Object.entries(en.countries)) {
    const list = Array.isArray(names) ? names : [names];
    const preferred = PREFERRED[code];
    const name = preferred !== undefined && list.includes(preferred) ? preferred : list[0];
    if (name !== undefined) m.set(code, name);
  }
  table = m;
  return m;
}

/**
 * English short name of an ISO 3166-1 alpha-2 code (case-insensitive), or
 * null when the code is unknown. Never throws.
 *
 * @example
 * countryName('US'); // => 'United States'
 * countryName('ZZ'); // => null
 */
export function countryName(code: string): string | null {
  return countryNameTable().get(code.toUpperCase()) ?? null;
}

/**
 * A memoising name lookup that counts the codes it could not name, for a
 * feed's diagnostics.
 *
 * @example
 * const names = new CountryNames();
 * names.get('DE'); // => 'Germany'
 * names.get('ZZ'); // => null; names.unknown => Map { 'ZZ' => 1 }
 */
export class CountryNames {
  /** Unknown code -> number of lookups. */
  readonly unknown = new Map<string, number>();

  private readonly memo = new Map<string, string | null>();

  get(code: string): string | null {
    let name = this.memo.get(code);
    if (name === undefined) {
      name = countryName(code);
      this.memo.set(code, name);
    }
    if (name === null) this.unknown.set(code, (this.unknown.get(code) ?? 0) + 1);
    return name;
  }
}
