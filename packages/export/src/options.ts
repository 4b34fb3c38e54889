/**
 * The options every export takes, checked once: which fields, and which
 * signals an address must carry to be kept.
 *
 * @module
 */
import type { CheckResult, IpIntel } from '@ipintel/core';
import { ExportError } from './errors.js';
import { checkSignals, exportableFields, selectFields, type ExportField } from './fields.js';
import { checkIntel, projectLeaves, sampleResult, type Projection } from './project.js';

export interface ExportOptions {
  /** Exact field names (`geo.country_code`); default: every exportable field. */
  readonly fields?: readonly string[];
  /**
   * Boolean signals (`is_tor`, `recent_abuse`, ...): keep only the addresses
   * where at least one is true; the others get no record. Default: keep all.
   */
  readonly signals?: readonly string[];
}

export interface Resolved {
  readonly fields: readonly ExportField[];
  readonly signals: readonly string[] | null;
  readonly sample: CheckResult;
}

/**
 * A list option, checked for its type before its names are: a string is
 * iterable, so without this `fields: 'geo.country_code'` failed as the
 * unknown field "g", and `null` as a TypeError from the loop.
 */
function nameList(options: ExportOptions, key: 'fields' | 'signals'): readonly string[] | undefined {
  const v: unknown = options[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) throw new ExportError('invalid_option', `options.${key} must be an array of strings`);
  // Copied once, then checked: the names checked are the names used. Read
  // again, a getter (or a Proxy) could answer differently from the check,
  // and `every` skips the holes of a sparse array, which `for of` reads.
  const names: unknown[] = Array.from(v as unknown[]);
  if (!names.every((x) => typeof x === 'string')) throw new ExportError('invalid_option', `options.${key} must be an array of strings`);
  return names;
}

export function resolveOptions(intel: IpIntel, options: ExportOptions = {}): Resolved {
  checkIntel(intel);
  if (options === null || typeof options !== 'object') throw new ExportError('invalid_option', 'options must be an object');
  const fieldNames = nameList(options, 'fields');
  const signalNames = nameList(options, 'signals');
  const sample = sampleResult(intel);
  const all = exportableFields(sample);
  const fields = fieldNames === undefined ? all : selectFields(all, fieldNames);
  const signals = signalNames === undefined ? null : checkSignals(sample, signalNames);
  return { fields, signals, sample };
}

/** Options checked and every leaf projected onto its record. */
export function prepare(intel: IpIntel, options?: ExportOptions): Resolved & Projection {
  const r = resolveOptions(intel, options);
  return { ...r, ...projectLeaves(intel, r.fields, r.signals) };
}
