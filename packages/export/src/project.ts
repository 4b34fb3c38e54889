/**
 * From the snapshot's leaves to the export's records: each leaf's result,
 * cut down to the chosen fields (and dropped when none of the chosen signals
 * is set), deduplicated, so that leaves answering the same for those fields
 * share one record. The MMDB and CSV writers then turn each record into a
 * map or a row once.
 *
 * Rules (docs/export.md):
 * - a null field is left out (MMDB has no null; a CSV cell is empty);
 * - a leaf whose chosen fields are all null has no record (readers find no
 *   data for its addresses), and so has a leaf with none of the chosen
 *   signals when a signal filter is given.
 *
 * Work is per distinct sub-object, not per leaf: results of leaves sharing a
 * geo row share its frozen object, so each group's projection is computed
 * once per object and interned to a small id; a record is the tuple of its
 * groups' ids, interned in a typed hash table (tuples.ts).
 *
 * @module
 */
import type { CheckResult, IpIntel } from '@ipintel/core';
import { isIpIntel, leafCount, resultForLeaf } from '@ipintel/core/internal';
import { ExportError } from './errors.js';
import type { ExportField } from './fields.js';
import { TupleTable } from './tuples.js';

/** Values in the order of some fields (null: absent). */
export type RecordValues = readonly unknown[];

/** One group of the chosen fields (`geo`), and the distinct values its sub-objects project to. */
export interface GroupProjection {
  readonly name: string;
  /** The chosen fields of this group, in the order they were chosen. */
  readonly fields: readonly ExportField[];
  /** Distinct projections: values of `fields`. */
  readonly values: readonly RecordValues[];
}

export interface Projection {
  /** Record id per leaf, or -1 for no record. */
  readonly recordOf: Int32Array;
  readonly groups: readonly GroupProjection[];
  /** Number of records (ids 0..records-1). */
  readonly records: number;
  /** The index into group g's `values` of record r. */
  groupValue(record: number, g: number): number;
}

/**
 * Throws ExportError `invalid_option` unless `intel` is an IpIntel: every
 * export reads the snapshot through core's internals, where anything else
 * failed as a TypeError (`null`: "Cannot read properties of null").
 */
export function checkIntel(intel: unknown): asserts intel is IpIntel {
  if (!isIpIntel(intel)) throw new ExportError('invalid_option', 'intel must be an IpIntel (open(), openSync() or loadSnapshot() of @ipintel/core)');
}

/** The leaf's result: a sample for field names (leaf 0 exists in every snapshot). */
export function sampleResult(intel: IpIntel): CheckResult {
  checkIntel(intel);
  return resultForLeaf(intel, 0, '0.0.0.0', 4);
}

/** A function giving a record's values in the order of `fields` (the order a CSV row needs). */
export function valuesInOrder(p: Projection, fields: readonly ExportField[]): (record: number) => unknown[] {
  const where = fields.map((f) => {
    const g = p.groups.findIndex((x) => x.name === f.group);
    return [g, p.groups[g]!.fields.indexOf(f)] as const;
  });
  return (record) => where.map(([g, i]) => p.groups[g]!.values[p.groupValue(record, g)]![i]);
}

export function projectLeaves(intel: IpIntel, fields: readonly ExportField[], signals: readonly string[] | null): Projection {
  const names = [...new Set(fields.map((f) => f.group))];
  const groups = names.map((name) => ({ name, fields: fields.filter((f) => f.group === name), values: [] as RecordValues[] }));
  // Per group: projection id per sub-object (identity), and per projection text.
  const idOfObject = groups.map(() => new Map<object, number>());
  const idOfText = groups.map(() => new Map<string, number>());
  const records = new TupleTable(groups.length);
  const n = leafCount(intel);
  const recordOf = new Int32Array(n);
  const ids = new Int32Array(groups.length);
  for (let leaf = 0; leaf < n; leaf++) {
    const r = resultForLeaf(intel, leaf, '0.0.0.0', 4) as unknown as Readonly<Record<string, Readonly<Record<string, unknown>>>>;
    if (signals !== null && !signals.some((s) => r['signals']![s] === true)) {
      recordOf[leaf] = -1;
      continue;
    }
    let empty = true;
    for (let g = 0; g < groups.length; g++) {
      const group = groups[g]!;
      const sub = r[group.name]!;
      let id = idOfObject[g]!.get(sub);
      if (id === undefined) {
        const values = group.fields.map((f) => sub[f.key] ?? null);
        const text = JSON.stringify(values);
        id = idOfText[g]!.get(text);
        if (id === undefined) {
          id = group.values.length;
          group.values.push(values);
          idOfText[g]!.set(text, id);
        }
        idOfObject[g]!.set(sub, id);
      }
      if (empty && group.values[id]!.some((v) => v !== null)) empty = false;
      ids[g] = id;
    }
    recordOf[leaf] = empty ? -1 : records.intern(ids);
  }
  return { recordOf, groups, records: records.count, groupValue: (r, g) => records.get(r, g) };
}
