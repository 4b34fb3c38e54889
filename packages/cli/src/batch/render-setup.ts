/**
 * What the batch kernel needs to render geo and network runs itself
 * (kernel/rows.ts, `render`): each such run as a program of ops, and the
 * literals they copy. The fields with few values (country names and codes,
 * time zones, RPKI statuses) are copied from tables of cells by id, which
 * start empty: the kernel answers "needs the host" for an id without a
 * cell, and the host makes it then with core's own cell writer
 * (snapshot/cells.ts) and renders again, so that the kernel copies core's
 * bytes for them instead of deciding them again.
 *
 * @module
 */
import type { CellWriter, MainColumns, RecordCells } from '@ipintel/core/internal';
import { withRoom } from '@ipintel/core/internal';

/** The kernel's field ops (kernel/rows.ts), by column. 0 is a literal. */
export const RENDER_OPS: Readonly<Record<string, number>> = {
  'geo.country': 1,
  'geo.country_code': 2,
  'geo.region': 3,
  'geo.city': 4,
  'geo.latitude': 5,
  'geo.longitude': 6,
  'geo.timezone': 7,
  'network.asn': 8,
  'network.as_org': 9,
  'network.is_announced': 10,
  'network.is_bogon': 11,
  'network.rpki': 12,
  'network.allocation_date': 13,
  'network.allocation_age_days': 14,
  'network.registration_country': 15,
};

/** The ops whose cells come from a table by id, in the order of the kernel's tables. */
export const TABLE_OPS = [1, 2, 7, 12] as const;
/** Entries of each table: u16 ids (country codes, time zones), then the u8 RPKI codes. */
export const TABLE_IDS = [65536, 65536, 65536, 256] as const;

export interface RenderSetup {
  /** JSON values rather than CSV cells. */
  readonly json: boolean;
  /** The bytes the programs' literals point into. */
  readonly literals: Uint8Array;
  /** Per run (the kernel's numbering): its program ([op, a, b] triples; a literal's a and b are its offset in `literals` and its length), or null. */
  readonly programs: readonly (Uint32Array | null)[];
  /** Per table (TABLE_OPS order): the id of row `row` it is read at. */
  readonly tableId: readonly ((row: number) => number)[];
  /** Per table: core's writer of its cells. */
  readonly tableWriter: readonly (CellWriter | null)[];
}

/** Literal bytes, appended. */
class Literals {
  bytes = new Uint8Array(4096);
  used = 0;

  add(b: Uint8Array): number {
    this.bytes = withRoom(this.bytes, this.used, b.length);
    const at = this.used;
    this.bytes.set(b, at);
    this.used += b.length;
    return at;
  }
}

/** A run as render-setup reads it: its parts with each writer's column (records.ts Run#fields). */
export interface RenderedRun {
  readonly fields: readonly (Uint8Array | string)[] | null;
}

/** The setup for `runs`: a program for each run whose every field has an op. */
export function renderSetup(runs: readonly RenderedRun[], columns: MainColumns, cells: RecordCells, as: 'csv' | 'json'): RenderSetup {
  const lit = new Literals();
  const programs = runs.map((r) => {
    if (r.fields === null || !r.fields.every((f) => typeof f !== 'string' || RENDER_OPS[f] !== undefined)) return null;
    const prog = new Uint32Array(3 * r.fields.length);
    r.fields.forEach((f, i) => {
      if (typeof f === 'string') prog[3 * i] = RENDER_OPS[f]!;
      else {
        prog[3 * i + 1] = lit.add(f);
        prog[3 * i + 2] = f.length;
      }
    });
    return prog;
  });
  const c = columns;
  return {
    json: as === 'json',
    literals: lit.bytes.subarray(0, lit.used),
    programs,
    tableId: [(row) => c['geo.country_code'][row]!, (row) => c['geo.country_code'][row]!, (row) => c['geo.timezone'][row]!, (row) => c['net.rpki'][row]!],
    tableWriter: [cells.geo('country', as), cells.geo('country_code', as), cells.geo('timezone', as), cells.network('rpki', as)],
  };
}
