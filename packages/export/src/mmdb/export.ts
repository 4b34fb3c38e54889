/**
 * A snapshot as an MMDB file: each record becomes a map shaped like the
 * native result (`{ geo: { country_code: "US", ... }, signals: { ... } }`,
 * null fields and empty groups left out), stored once in the data section;
 * the tree maps every range to its record (tree.ts).
 *
 * The metadata names the snapshot's build date (also `build_epoch`, so the
 * same snapshot and options give the same bytes), its sources and the
 * attribution page; `database_type` is `ipintel`.
 *
 * @module
 */
import type { IpIntel } from '@ipintel/core';
import { NUMBER_TYPES, type ExportField } from '../fields.js';
import { prepare, type ExportOptions } from '../options.js';
import type { RecordValues } from '../project.js';
import { recordRanges } from '../ranges.js';
import { DataWriter, MmdbNumber, type MmdbMap, type MmdbValue } from './data.js';
import { encodeMmdb, type MmdbFile, type MmdbMetadata } from './file.js';
import { NO_DATA } from './tree.js';

export const DATABASE_TYPE = 'ipintel';

export interface MmdbExport extends MmdbFile {
  /** Distinct records in the data section. */
  readonly records: number;
  /** Ranges after merging neighbours with the same record, per family. */
  readonly ranges: { readonly v4: number; readonly v6: number };
}

function mmdbValue(field: ExportField, v: unknown): MmdbValue {
  if (typeof v === 'number') return new MmdbNumber((NUMBER_TYPES as Readonly<Record<string, MmdbNumber['type']>>)[field.name] ?? 'double', v);
  if (Array.isArray(v)) return v.map((x: unknown) => mmdbValue(field, x));
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  return JSON.stringify(v);
}

/** A group's projection as a map; null fields are omitted (null when none is left). */
function groupMap(fields: readonly ExportField[], values: RecordValues): MmdbMap | null {
  const out: Record<string, MmdbValue> = {};
  let any = false;
  fields.forEach((f, i) => {
    const v = values[i];
    if (v === null || v === undefined) return;
    out[f.key] = mmdbValue(f, v);
    any = true;
  });
  return any ? out : null;
}

function metadata(intel: IpIntel, fields: readonly ExportField[], signals: readonly string[] | null): MmdbMetadata {
  const info = intel.info;
  const sources = info.sources.map((s) => `${s.publisher} (${s.id}${s.data_date === null ? '' : `, ${s.data_date.slice(0, 10)}`})`).join('; ');
  const description =
    `ipintel snapshot built ${info.build_date}. Sources: ${sources}. Attribution: ${info.attribution_url}. ` +
    `Fields: ${fields.map((f) => f.name).join(', ')}.` +
    (signals === null ? '' : ` Only addresses with ${signals.join(' or ')}.`);
  return { databaseType: DATABASE_TYPE, languages: ['en'], description: { en: description }, buildEpoch: Math.floor(Date.parse(info.build_date) / 1000) };
}

/**
 * The snapshot as MMDB bytes. Throws ExportError for an unknown field or
 * signal (`unknown_field`, `unknown_signal`) or data too large for the
 * format (`too_large`).
 *
 * @example
 * writeFileSync('ipintel.mmdb', exportMmdb(intel, { fields: ['geo.country_code', 'signals.is_tor'] }).bytes);
 */
export function exportMmdb(intel: IpIntel, options?: ExportOptions): MmdbExport {
  const p = prepare(intel, options);
  const data = new DataWriter();
  // A record is a map from group names to its groups' maps. Each group map is written once, inline
  // in the first record that has it; later records point at it (as they point at the names).
  const names = p.groups.map((g) => data.put(g.name));
  const maps = p.groups.map((g) => g.values.map((v) => groupMap(g.fields, v)));
  const written = maps.map((m) => new Int32Array(m.length).fill(-1));
  const offsetOf = new Int32Array(p.records);
  const present: number[] = [];
  for (let r = 0; r < p.records; r++) {
    present.length = 0;
    for (let g = 0; g < p.groups.length; g++) if (maps[g]![p.groupValue(r, g)] !== null) present.push(g);
    offsetOf[r] = data.mapHeader(present.length);
    for (const g of present) {
      const v = p.groupValue(r, g);
      data.pointerTo(names[g]!);
      const at = written[g]![v]!;
      if (at >= 0) data.pointerTo(at);
      else written[g]![v] = data.append(maps[g]![v]!);
    }
  }
  const valueOfLeaf = (leaf: number): number => {
    const r = p.recordOf[leaf]!;
    return r < 0 ? NO_DATA : offsetOf[r]!;
  };
  const v4 = recordRanges(intel, 4, valueOfLeaf);
  const v6 = recordRanges(intel, 6, valueOfLeaf);
  const file = encodeMmdb(v4, v6, data, metadata(intel, p.fields, p.signals));
  return { ...file, records: p.records, ranges: { v4: v4.values.length, v6: v6.values.length } };
}
