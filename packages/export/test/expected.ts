/**
 * What an export must say for an address, worked out from `check()` alone
 * (the oracle of the round-trip tests): the chosen fields of the native
 * result, null fields left out, groups left empty left out, and no record
 * when nothing is left or none of the chosen signals is set.
 */
import type { CheckResult } from '@ipintel/core';

export type Expected = Record<string, Record<string, unknown>>;

export function expectedRecord(r: CheckResult, fields: readonly string[], signals: readonly string[] | null = null): Expected | null {
  const sig = r.signals as unknown as Record<string, unknown>;
  if (signals !== null && !signals.some((s) => sig[s] === true)) return null;
  const out: Expected = {};
  for (const name of fields) {
    const [group, key] = name.split('.') as [string, string];
    const v = (r as unknown as Record<string, Record<string, unknown>>)[group]![key];
    if (v === null || v === undefined) continue;
    (out[group] ??= {})[key] = Array.isArray(v) ? [...(v as unknown[])] : v;
  }
  return Object.keys(out).length === 0 ? null : out;
}

/** Every `group.key` of a native result, in result order. */
export function allResultFields(r: CheckResult): string[] {
  return Object.entries(r).flatMap(([group, v]) => (v !== null && typeof v === 'object' ? Object.keys(v as object).map((k) => `${group}.${k}`) : []));
}
