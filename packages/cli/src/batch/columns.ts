/**
 * The flattened columns of a result: the CSV header, the names `--fields`
 * accepts, and how each column's value is read from a (native or
 * thirdparty) result.
 *
 * Flattening rule: a nested field is named `<object>.<field>`
 * (`geo.country_code`, `risk.score`, `privacy.vpn`). A group name alone
 * (`geo`, `privacy`) stands for all of its columns. Every output carries
 * `error.code` / `error.message` columns for rows whose line was not an address.
 *
 * The key lists are checked against core's types at compile time, so a field
 * added to a result type fails the typecheck here until it gets a column.
 *
 * @module
 */
import type { Evidence, Geo, Network, ResultFormat, Risk, Signals } from '@ipintel/core';
import { expandFields } from '../fields.js';

export const GEO = ['country', 'country_code', 'region', 'city', 'latitude', 'longitude', 'timezone'] as const;
export const NETWORK = [
  'asn', 'as_org', 'is_announced', 'is_bogon', 'rpki', 'allocation_date', 'allocation_age_days', 'registration_country',
] as const;
const SIGNALS = [
  'connection_type', 'is_datacenter', 'datacenter_provider', 'relay_provider', 'is_relay', 'is_tor', 'is_vpn',
  'vpn_operator', 'is_proxy', 'is_public_resolver', 'is_drop_listed', 'recent_abuse', 'is_verified_bot', 'verified_bot_name',
  'is_anycast',
] as const;
const EVIDENCE = [
  'connection_type', 'tor', 'vpn', 'proxy', 'verified_bot', 'relay', 'routing', 'allocation', 'drop_listed',
  'recent_abuse', 'public_resolver',
] as const;
const RISK = ['score', 'level', 'reasons'] as const;
const PRIVACY = ['vpn', 'proxy', 'tor', 'relay', 'hosting', 'service'] as const;

/** Compile-time proof that a key list names every field of T (and nothing else). */
type Covers<T, K extends readonly string[]> = [Exclude<keyof T, K[number]>, Exclude<K[number], keyof T>] extends [never, never]
  ? true
  : false;
/** Fails to typecheck if a key list above misses a field of core's result types. */
export type ColumnsCoverResultTypes = [
  Covers<Geo, typeof GEO>,
  Covers<Network, typeof NETWORK>,
  Covers<Signals, typeof SIGNALS>,
  Covers<Evidence, typeof EVIDENCE>,
  Covers<Risk, typeof RISK>,
] extends [true, true, true, true, true]
  ? true
  : never;
export const COLUMNS_COVER_RESULT_TYPES: ColumnsCoverResultTypes = true;

const prefixed = (group: string, keys: readonly string[]): string[] => keys.map((k) => `${group}.${k}`);

export const ERROR_COLUMNS = ['error.code', 'error.message'] as const;

/** All columns of a native result, in output order. */
export const NATIVE_COLUMNS: readonly string[] = [
  'ip', 'version',
  ...prefixed('geo', GEO), ...prefixed('network', NETWORK), ...prefixed('signals', SIGNALS),
  ...prefixed('evidence', EVIDENCE), ...prefixed('risk', RISK),
  'attribution', ...ERROR_COLUMNS,
];

/** All columns of the compatibility shape, in output order. */
export const THIRDPARTY_COLUMNS: readonly string[] = [
  'ip', 'city', 'region', 'country', 'loc', 'org', 'timezone', 'bogon', 'anycast', ...prefixed('privacy', PRIVACY), ...ERROR_COLUMNS,
];

export function allColumns(format: ResultFormat): readonly string[] {
  return format === 'native' ? NATIVE_COLUMNS : THIRDPARTY_COLUMNS;
}

/**
 * Expands a `--fields` list (comma-separated columns or group names) into
 * columns, in the order given, without duplicates. Throws a UsageError that
 * lists the valid names for an unknown one.
 */
export function selectColumns(format: ResultFormat, list: string): string[] {
  return expandFields(allColumns(format), list, 'batch', ` for --format ${format}`);
}
