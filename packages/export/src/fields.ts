/**
 * Which fields of a result an export carries, derived from the result
 * itself: every field of every sub-object of a native result (geo, network,
 * signals, evidence, risk, and any group a newer core adds), named
 * `<group>.<field>` as in `ipintel batch`'s columns, except
 * {@link NOT_EXPORTED}. A field added to the result shape is exported without
 * a change here; only a new *number* field needs its MMDB type declared in
 * {@link NUMBER_TYPES} (the typecheck fails until it is).
 *
 * @module
 */
import type { CheckResult } from '@ipintel/core';
import { ExportError } from './errors.js';

/**
 * Fields of a result that are not exported: `ip` and `version` belong to one
 * address, `attribution` to the whole snapshot (it is in the file's
 * metadata), and `network.allocation_age_days` changes every day (derive it
 * from `network.allocation_date`).
 */
export const NOT_EXPORTED: readonly string[] = ['ip', 'version', 'attribution', 'network.allocation_age_days'];

/** One exported field: `group.key` of a native result. */
export interface ExportField {
  /** `geo.country_code`. */
  readonly name: string;
  readonly group: string;
  readonly key: string;
}

/** The sub-objects of a result (its groups); an explanation is never exported. */
type Group = Exclude<{ [K in keyof CheckResult]-?: CheckResult[K] extends string | number ? never : K }[keyof CheckResult], 'explanation'>;
/** `group.field` for every field whose value is a number. */
type NumberField = {
  [G in Group]: { [F in keyof CheckResult[G] & string]: NonNullable<CheckResult[G][F]> extends number ? `${G}.${F}` : never }[keyof CheckResult[G] & string];
}[Group];

export type MmdbNumberType = 'uint16' | 'uint32' | 'double';

/**
 * The MMDB type of each number field (JavaScript has one number type; MMDB
 * readers in typed languages need to know which one to decode). Exhaustive
 * over the result types: a new number field fails the typecheck here.
 */
export const NUMBER_TYPES: Readonly<Record<Exclude<NumberField, 'network.allocation_age_days'>, MmdbNumberType>> = {
  'geo.latitude': 'double',
  'geo.longitude': 'double',
  'network.asn': 'uint32',
  'risk.score': 'uint16',
};

const isGroup = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Throws ExportError `invalid_option` unless `sample` is a native result
 * (an object whose `signals` is an object): exported, these functions took
 * anything, and null failed as a TypeError from Object.entries.
 */
function checkSample(sample: unknown, fn: string): asserts sample is CheckResult {
  if (!isGroup(sample) || !isGroup(sample['signals'])) throw new ExportError('invalid_option', `${fn} takes a native result (sampleResult(intel) or intel.check(ip))`);
}

/** Every exportable field of a native result, in the result's own order. */
export function exportableFields(sample: CheckResult): ExportField[] {
  checkSample(sample, 'exportableFields');
  const out: ExportField[] = [];
  for (const [group, value] of Object.entries(sample)) {
    if (!isGroup(value)) continue;
    for (const key of Object.keys(value)) {
      const name = `${group}.${key}`;
      if (!NOT_EXPORTED.includes(name)) out.push({ name, group, key });
    }
  }
  return out;
}

/**
 * The signals `--signals` may name: the boolean fields of the result's
 * `signals` group (`is_tor`, `recent_abuse`, ...).
 */
export function signalNames(sample: CheckResult): string[] {
  checkSample(sample, 'signalNames');
  return Object.entries(sample.signals)
    .filter(([, v]) => typeof v === 'boolean')
    .map(([k]) => k);
}

/**
 * The fields named, in the order given, without duplicates. Names are exact
 * (`geo.country_code`); the CLI expands group names first, with the rule
 * `ipintel batch --fields` uses. Throws ExportError `unknown_field` naming
 * the valid ones.
 *
 * @example
 * selectFields(all, ['geo.country_code', 'risk.score']) // => those two fields
 */
export function selectFields(all: readonly ExportField[], names: readonly string[]): ExportField[] {
  const out: ExportField[] = [];
  for (const name of names) {
    const hit = all.find((f) => f.name === name);
    if (hit === undefined) throw new ExportError('unknown_field', `unknown field ${JSON.stringify(name)}; fields: ${all.map((f) => f.name).join(', ')}`);
    if (!out.includes(hit)) out.push(hit);
  }
  if (out.length === 0) throw new ExportError('unknown_field', 'the field list names no field');
  return out;
}

/** Checks a `--signals` list against the result's boolean signals. Throws ExportError `unknown_signal`. */
export function checkSignals(sample: CheckResult, names: readonly string[]): string[] {
  const known = signalNames(sample);
  for (const n of names) {
    if (!known.includes(n)) throw new ExportError('unknown_signal', `unknown signal ${JSON.stringify(n)}; signals: ${known.join(', ')}`);
  }
  if (names.length === 0) throw new ExportError('unknown_signal', 'the signal list names no signal');
  return [...new Set(names)];
}
