/**
 * The runs of an IPv4 row (records.ts, the module comment, says what they
 * are for): the row template folded, once per run and snapshot, into runs
 * of consecutive segments that depend on one record (or on none), joined
 * where a leaf's network/signal pair decides a stretch of them, and the
 * shape the batch kernel reads them in (space.ts). Split from records.ts,
 * which finds and renders them line by line.
 *
 * @module
 */
import { TextDecoder, TextEncoder } from 'node:util';
import type { CheckResult, IpIntel } from '@ipintel/core';
import { pairCount, snapshotColumns, type CellWriter, type RecordCells } from '@ipintel/core/internal';
import { renderSetup, type RenderSetup } from './render-setup.js';
import type { RowShape } from './space.js';
import type { Group, RowTemplate } from './template.js';

/**
 * Which record id keys each group: 0 geo row, 1 network row, 2 signal set,
 * 3 the evidence (its connection label comes from the signal set, its
 * routing label from the network row: key 2 × signal set + 1 when the
 * network's routing is inferred); -1 none (the attribution is one string per
 * snapshot).
 */
const RECORD_OF: Readonly<Record<Group, number>> = { geo: 0, network: 1, signals: 2, evidence: 3, risk: 2, attribution: -1 };
/** The slot of a joined run (one keyed by the leaf's network/signal pair; KEYS slots in all). */
export const PAIR = 4;

/** Consecutive pieces of an IPv4 row that depend on one record (`slot`) or none (-1). */
export interface Run {
  readonly slot: number;
  /** Literal text, or a group segment's renderer. */
  readonly parts: readonly (string | ((r: CheckResult) => string))[];
  /**
   * The same bytes written from the record's columns (core's RecordCells):
   * literals and cell writers (CSV cells, or JSON values); null where a part
   * has no writer (the thirdparty shape, records other than geo and network
   * rows).
   */
  readonly cells: readonly (Uint8Array | CellWriter)[] | null;
  /** The same parts with each writer's column name (`geo.city`): what the kernel's renderer is told (render-setup.ts); null with `cells`. */
  readonly fields: readonly (Uint8Array | string)[] | null;
  /** Records it has places for (its slot's table size; 1 when slot is -1). */
  readonly records: number;
  /** Its number among the kernel's runs (set once every run is known): its places are the kernel's `places[index]`. */
  index: number;
  /** For a joined run (slot PAIR): the runs whose bytes it holds, in order; else null. */
  readonly joins: readonly Run[] | null;
}

/** An IPv4 row: runs, with the address between some of them. */
export type Piece = Run | 'ip';

/** A column's cell (CSV) or value (JSON) writer, for the columns of geo and network rows (the records a batch meets by the ten thousand). */
function cellWriter(cells: RecordCells, column: string, as: 'csv' | 'json'): CellWriter | null {
  const [group, field] = column.split('.') as [string, string | undefined];
  if (field === undefined) return null;
  if (group === 'geo') return cells.geo(field as never, as);
  if (group === 'network') return cells.network(field as never, as);
  return null;
}

/**
 * Folds the template's segments and tail into runs around the address (see
 * the module comment); `sizes[slot]` is the size of each record table.
 */
function compileRuns(template: RowTemplate, sizes: readonly number[], cells: RecordCells): Piece[] {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const pieces: Piece[] = [];
  let slot = -1;
  let parts: (string | ((r: CheckResult) => string))[] = [];
  let direct: (Uint8Array | CellWriter)[] | null = [];
  let named: (Uint8Array | string)[] = [];
  const close = (): void => {
    const cellsOf = direct !== null && (slot === 0 || slot === 1) ? direct : null;
    if (parts.length > 0) pieces.push({ slot, parts, cells: cellsOf, fields: cellsOf === null ? null : named, records: slot < 0 ? 1 : sizes[slot]!, index: -1, joins: null });
    slot = -1;
    parts = [];
    direct = [];
    named = [];
  };
  const bytes = (b: Uint8Array): void => {
    direct?.push(b);
    named.push(b);
  };
  const literal = (text: string): void => {
    parts.push(text);
    if (text !== '') bytes(encoder.encode(text));
  };
  for (const seg of template.segments) {
    if (seg.kind === 'ip') {
      literal(decoder.decode(seg.pre));
      close();
      pieces.push('ip');
    } else if (seg.kind === 'version') literal(decoder.decode(seg.v4));
    else {
      const s = RECORD_OF[seg.group];
      if (s >= 0 && slot >= 0 && s !== slot) close();
      if (s >= 0) slot = s;
      parts.push(seg.text);
      for (const item of seg.layout ?? [null]) {
        if (typeof item === 'string') {
          if (item !== '') bytes(encoder.encode(item));
          continue;
        }
        const w = item === null ? null : cellWriter(cells, item.column, template.output === 'csv' ? 'csv' : 'json');
        if (w === null) direct = null;
        else {
          direct?.push(w);
          named.push(item!.column);
        }
      }
    }
  }
  literal(decoder.decode(template.tail));
  close();
  return joinPairRuns(pieces, sizes[PAIR]!);
}

/**
 * Joins each stretch of two or more consecutive runs that depend on the
 * network row, the signal set or nothing (network, signals, evidence, risk,
 * attribution in a full row) into one run keyed by the leaf's
 * network/signal pair, which decides all of them: a row then takes one
 * place and one copy for the stretch instead of one per run (the world
 * snapshot has ~226,000 pairs; a million random lines meet ~50,000). The
 * joined run's bytes are its runs' bytes, copied from their own caches.
 */
function joinPairRuns(pieces: readonly Piece[], pairs: number): Piece[] {
  const out: Piece[] = [];
  let stretch: Run[] = [];
  const end = (): void => {
    if (stretch.length >= 2 && stretch.some((r) => r.slot > 0)) {
      out.push({ slot: PAIR, parts: [], cells: null, fields: null, records: pairs, index: -1, joins: stretch });
    } else out.push(...stretch);
    stretch = [];
  };
  for (const p of pieces) {
    if (p !== 'ip' && p.slot !== 0) {
      stretch.push(p);
      continue;
    }
    end();
    out.push(p);
  }
  end();
  return out;
}

/** A template's runs for one snapshot (every thread compiles the same ones), and the shape the kernel reads them in. */
export interface CompiledRows {
  /** A row, in order: the address, or one of `runs`. */
  readonly pieces: Piece[];
  /** The runs of a row, in order (joined ones as one): the kernel's runs 0..runs.length-1. */
  readonly runs: Run[];
  /** Every run, the joined ones' own runs after the row's (the kernel's numbering). */
  readonly allRuns: Run[];
  readonly setup: RenderSetup;
  readonly shape: RowShape;
}

export function compileRows(intel: IpIntel, template: RowTemplate, cells: RecordCells): CompiledRows {
  const c = intel.info.counts;
  const pieces = compileRuns(template, [c.geo_records, c.network_records, c.signal_sets, 2 * c.signal_sets, pairCount(intel)], cells);
  const runs = pieces.filter((p): p is Run => p !== 'ip');
  const allRuns = [...runs, ...runs.flatMap((r) => r.joins ?? [])];
  allRuns.forEach((r, i) => (r.index = i));
  const setup = renderSetup(allRuns, snapshotColumns(intel).columns, cells, template.output === 'csv' ? 'csv' : 'json');
  const shape: RowShape = {
    runs: allRuns.map((r) => ({ slot: r.slot, records: r.records, joins: r.joins === null ? null : r.joins.map((j) => j.index) })),
    rowRuns: runs.length,
    pieces: pieces.map((p) => (p === 'ip' ? -1 : p.index)),
    render: setup,
  };
  return { pieces, runs, allRuns, setup, shape };
}
