/**
 * The row path of dotted-decimal IPv4 lines: from the leaf's record ids
 * (`leafGeoPairsMany` of @ipintel/core/internal) straight to cached bytes.
 *
 * A leaf is a (geo row, network row, signal set) triple, and results of
 * leaves sharing a record share that record's frozen sub-object. So every
 * byte of an IPv4 row but the address depends on one record at most (the
 * evidence on a key of its own: RECORD_OF): the row layout (template.ts)
 * is folded once into *runs*, each the bytes of consecutive segments that
 * depend on the same record (or on none: the version is always 4 here, the
 * attribution is the snapshot's), literals included. A CSV row of all
 * columns is then the address and five runs (version and geo; network;
 * signals; evidence; risk, attribution and the line end). Runs that depend
 * on the network row, the signal set or nothing and stand next to each other
 * are joined into one keyed by the leaf's network/signal pair (which decides
 * them all), so a full row is the address, the geo run and one pair run.
 * Rendered runs live back to back in one byte store, found by record id in
 * a typed array of (start, length): one read, then one copy.
 *
 * Rows are written in groups (up to GROUP lines): all the group's index
 * lookups (lookupMany), then all its record ids (leafGeoPairsMany), then all
 * its runs' places, then the rows, so that the memory reads of independent
 * lines overlap instead of queueing (docs/design.md).
 *
 * A run missing from its cache is rendered from resultForLeaf() with the
 * template's own field renderers, so the bytes are the same as on the
 * general path. Runs that hold network fields carry `allocation_age_days`,
 * so their caches are dropped when the UTC day changes (checked once per
 * block).
 *
 * @module
 */
import { TextDecoder, TextEncoder } from 'node:util';
import type { CheckResult, IpIntel } from '@ipintel/core';
import {
  evidenceKey,
  leafGeoPairsMany,
  lookupMany,
  pairCount,
  pairRecords,
  recordCells,
  resultForLeaf,
  withRoom,
  type CellWriter,
  type RecordCells,
} from '@ipintel/core/internal';
import type { ByteSink } from './sink.js';
import type { Group, RowTemplate } from './template.js';

/**
 * Which record id keys each group: 0 geo row, 1 network row, 2 signal set,
 * 3 the evidence (its connection label comes from the signal set, its
 * routing label from the network row: key 2 × signal set + 1 when the
 * network's routing is inferred); -1 none (the attribution is one string per
 * snapshot).
 */
const RECORD_OF: Readonly<Record<Group, number>> = { geo: 0, network: 1, signals: 2, evidence: 3, risk: 2, attribution: -1 };
/** The slot of a joined run (one keyed by the leaf's network/signal pair). */
const PAIR = 4;
/** Record keys per queued line: the slots of RECORD_OF, then the pair. */
const KEYS = 5;
const DAY_MS = 86_400_000;

/** Lines per staged group. */
export const GROUP = 256;

/** Consecutive pieces of an IPv4 row that depend on one record (`slot`) or none (-1). */
interface Run {
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
  /** By record id (id 0 when slot is -1): [start + 1, length] of the rendered bytes in the store; 0 = not rendered. */
  places: Int32Array;
  /** For a joined run (slot PAIR): the runs whose bytes it holds, in order; else null. */
  readonly joins: readonly Run[] | null;
}

/**
 * Address space reserved up front for a thread's rendered runs (a CSV run of
 * the world snapshot's million random lines fills ~17 MB, NDJSON ~67 MB).
 * Why reserve: a fresh allocation this large is mapped lazily (a page takes
 * memory when first written), so the reservation costs address space, not
 * RSS, where growing by doubling touched twice the bytes it kept and copied
 * them (docs/design.md, "Twelfth round"). Past it, the store doubles again.
 */
export const RUN_RESERVE = 512 * 1024 * 1024;

/** The most room one cell may ask for (a record's longest string is a few hundred bytes; this is a bound on a bug, not a limit on data). */
export const MAX_CELL_BYTES = 1 << 26;

/** The reservation a new store takes (tests shrink it to reach the doubling past it). */
export const runStoreSizing = { reserve: RUN_RESERVE };

/** A buffer of the reserved size, or a small one where the system refuses that much address space. */
function reserved(): Uint8Array {
  try {
    return new Uint8Array(runStoreSizing.reserve);
  } catch {
    return new Uint8Array(1 << 16);
  }
}

/** Rendered runs, back to back in one buffer (places are offsets, so growing keeps them valid). */
export class RunStore {
  bytes = reserved();
  used = 0;
  private readonly encoder = new TextEncoder();
  /** `bytes` as a DataView (ByteSink.copyRange), made again when `bytes` grows. */
  private view: DataView | null = null;

  words(): DataView {
    if (this.view === null || this.view.buffer !== this.bytes.buffer) this.view = new DataView(this.bytes.buffer);
    return this.view;
  }

  /** Makes room for `n` more bytes. */
  private room(n: number): void {
    this.bytes = withRoom(this.bytes, this.used, n);
  }

  /** Stores `text` as UTF-8; returns its start. */
  put(text: string): number {
    this.room(text.length * 3);
    const start = this.used;
    this.used += this.encoder.encodeInto(text, this.bytes.subarray(start)).written;
    return start;
  }

  /** Appends a copy of the stored bytes [at, at + n) (a joined run's piece); returns where the copy starts. */
  copy(at: number, n: number): number {
    this.room(n);
    const start = this.used;
    this.bytes.copyWithin(start, at, at + n);
    this.used += n;
    return start;
  }

  /** Stores the cells of record `row` (literals and cell writers); returns the start. */
  putCells(parts: readonly (Uint8Array | CellWriter)[], row: number, today: number): number {
    const start = this.used;
    for (const part of parts) {
      if (part instanceof Uint8Array) {
        this.room(part.length);
        this.bytes.set(part, this.used);
        this.used += part.length;
        continue;
      }
      let end = part(row, today, this.bytes, this.used);
      // A writer that ran out of room wrote nothing that counts: grow and write again.
      for (let more = 256; end < 0; more *= 2) {
        // Bounded, so a store that fails to grow, or a writer that refuses any
        // room, stops the run with an error instead of spinning here forever.
        if (more > MAX_CELL_BYTES) throw new Error(`a cell of record ${row} asked for more than ${MAX_CELL_BYTES} bytes of room`);
        this.room(more);
        if (this.bytes.length - this.used < more) throw new Error(`the rendered-run store did not grow to ${this.used + more} bytes`);
        end = part(row, today, this.bytes, this.used);
      }
      this.used = end;
    }
    return start;
  }
}

/** An IPv4 row: runs, with the address between some of them. */
type Piece = Run | 'ip';

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
  const close = (): void => {
    const cellsOf = direct !== null && (slot === 0 || slot === 1) ? direct : null;
    if (parts.length > 0) pieces.push({ slot, parts, cells: cellsOf, places: new Int32Array(2 * (slot < 0 ? 1 : sizes[slot]!)), joins: null });
    slot = -1;
    parts = [];
    direct = [];
  };
  const literal = (text: string): void => {
    parts.push(text);
    if (text !== '') direct?.push(encoder.encode(text));
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
          if (item !== '') direct?.push(encoder.encode(item));
          continue;
        }
        const w = item === null ? null : cellWriter(cells, item.column, template.output === 'csv' ? 'csv' : 'json');
        if (w === null) direct = null;
        else direct?.push(w);
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
      out.push({ slot: PAIR, parts: [], cells: null, places: new Int32Array(2 * pairs), joins: stretch });
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

export class RecordRows {
  /** The group: addresses, their leaves, the lines' [start, end) in the block. */
  private readonly addrs = new Uint32Array(GROUP);
  private readonly leaves = new Uint32Array(GROUP);
  private readonly starts = new Uint32Array(GROUP);
  private readonly ends = new Uint32Array(GROUP);
  /** The leaves' geo rows and pairs (2 per line). */
  private readonly geoPairs = new Uint32Array(2 * GROUP);
  /** Per queued line, its KEYS record keys (RECORD_OF, then the pair). */
  private readonly keys = new Uint32Array(KEYS * GROUP);
  /** Per queued line, whether its network, signal and evidence keys are filled (geo and pair always are). */
  private readonly keyed = new Uint8Array(GROUP);
  /** Whether a run outside the joined ones needs the network, signal or evidence key of every line. */
  private readonly everyKey: boolean;
  private readonly cells: RecordCells;
  /** Lines queued in the group. */
  size = 0;
  private readonly pieces: Piece[];
  /** The runs of a row, in order (joined ones as one). */
  private readonly runs: Run[];
  /** Every run, the joined ones' own runs included (the day's reset). */
  private readonly allRuns: Run[];
  /** Per queued line and run: where the run's bytes are in the store, and how many. */
  private readonly at: Int32Array;
  private readonly len: Int32Array;
  private readonly store = new RunStore();
  private day = -1;
  /** Scratch of warmMissing (record ids, string ids) and of fillKeys. */
  private readonly missing = new Uint32Array(GROUP);
  private readonly warmIds = new Uint32Array(2 * GROUP);
  private readonly pairIds = new Uint32Array(2);
  /** What the reads ahead summed (kept so that they are not dropped). */
  warmSum = 0;

  constructor(
    private readonly intel: IpIntel,
    template: RowTemplate,
  ) {
    const c = intel.info.counts;
    this.cells = recordCells(intel);
    this.pieces = compileRuns(template, [c.geo_records, c.network_records, c.signal_sets, 2 * c.signal_sets, pairCount(intel)], this.cells);
    this.runs = this.pieces.filter((p): p is Run => p !== 'ip');
    this.allRuns = this.runs.flatMap((r) => [r, ...(r.joins ?? [])]);
    this.everyKey = this.runs.some((r) => r.slot >= 1 && r.slot <= 3);
    this.at = new Int32Array(GROUP * this.runs.length);
    this.len = new Int32Array(GROUP * this.runs.length);
  }

  /** Call at the start of each block: network rows change with the UTC day. */
  startBlock(): void {
    const today = Math.floor(Date.now() / DAY_MS);
    if (today === this.day) return;
    this.day = today;
    const dated = (r: Run): boolean => r.slot === 1 || (r.joins?.some(dated) ?? false);
    for (const r of this.allRuns) if (dated(r)) r.places = new Int32Array(r.places.length);
  }

  /** Queues the line input[s, e) holding IPv4 address `addr`; the caller flushes when `size` reaches GROUP. */
  add(addr: number, s: number, e: number): void {
    const j = this.size++;
    this.addrs[j] = addr;
    this.starts[j] = s;
    this.ends[j] = e;
  }

  /** Writes the queued lines' rows, in order (each line's bytes are in `input`). */
  flush(sink: ByteSink, input: Uint8Array, joined: boolean, rowsBefore: number): void {
    const n = this.size;
    if (n === 0) return;
    this.size = 0;
    lookupMany(this.intel, this.addrs.subarray(0, n), this.leaves);
    this.keyLines(n);
    const runs = this.runs;
    const nr = runs.length;
    // 1. The geo and network rows about to be rendered from their columns, read first in stages.
    this.warmMissing(n);
    // 2. Every run's place, rendering what is missing.
    for (let j = 0; j < n; j++) {
      for (let k = 0; k < nr; k++) {
        const run = runs[k]!;
        const id = this.keyOf(run, j);
        if (run.places[2 * id] === 0) this.render(run, id, j);
        this.at[j * nr + k] = run.places[2 * id]! - 1;
        this.len[j * nr + k] = run.places[2 * id + 1]!;
      }
    }
    // 3. The rows.
    const bytes = this.store.bytes;
    const words = this.store.words();
    for (let j = 0; j < n; j++) {
      if (joined && rowsBefore + j > 0) sink.append(COMMA_LF);
      let k = j * nr;
      for (const p of this.pieces) {
        if (p === 'ip') {
          sink.ensure(this.ends[j]! - this.starts[j]!);
          sink.putRange(input, this.starts[j]!, this.ends[j]!);
        } else {
          sink.copyRange(bytes, words, this.at[k]!, this.len[k]!);
          k++;
        }
      }
    }
  }

  /**
   * The record keys of the n queued lines: the geo row and pair of each
   * (one read of its leaf's ids); the network, signal and evidence keys of
   * each too when a run outside the joined ones needs them, else only for
   * the lines whose joined runs are missing (fillKeys).
   */
  private keyLines(n: number): void {
    const keys = this.keys;
    const gp = this.geoPairs;
    leafGeoPairsMany(this.intel, this.leaves, n, gp);
    for (let j = 0; j < n; j++) {
      keys[KEYS * j] = gp[2 * j]!;
      keys[KEYS * j + PAIR] = gp[2 * j + 1]!;
    }
    this.keyed.fill(0, 0, n);
    if (this.everyKey) {
      for (let j = 0; j < n; j++) this.fillKeys(j);
      return;
    }
    for (const run of this.runs) {
      if (run.joins === null) continue;
      for (let j = 0; j < n; j++) if (run.places[2 * keys[KEYS * j + PAIR]!] === 0) this.fillKeys(j);
    }
  }

  /** Fills line j's network, signal and evidence keys from its pair, once. */
  private fillKeys(j: number): void {
    if (this.keyed[j] === 1) return;
    pairRecords(this.intel, this.keys[KEYS * j + PAIR]!, this.pairIds);
    const net = this.pairIds[0]!;
    const sig = this.pairIds[1]!;
    const keys = this.keys;
    keys[KEYS * j + 1] = net;
    keys[KEYS * j + 2] = sig;
    keys[KEYS * j + 3] = evidenceKey(sig, this.cells.routingInferred(net));
    this.keyed[j] = 1;
  }

  /** Queued line j's record id for `run` (0 for a run that depends on no record). */
  private keyOf(run: Run, j: number): number {
    return run.slot < 0 ? 0 : this.keys[KEYS * j + run.slot]!;
  }

  /**
   * Reads ahead what rendering the group's missing geo and network runs will
   * read (RecordCells.warm): the runs of a row, and the runs inside joined
   * runs for the lines whose keys are filled (those whose joined run is
   * missing).
   */
  private warmMissing(n: number): void {
    for (const run of this.runs) {
      if (run.joins === null) this.warmRun(run, n, null);
      else for (const sub of run.joins) this.warmRun(sub, n, run);
    }
  }

  /** warmMissing for one run (`outer`: the joined run holding it, whose missing lines are the keyed ones). */
  private warmRun(run: Run, n: number, outer: Run | null): void {
    if (run.cells === null) return;
    let m = 0;
    for (let j = 0; j < n; j++) {
      if (outer !== null && this.keyed[j] === 0) continue;
      const id = this.keyOf(run, j);
      if (run.places[2 * id] === 0) this.missing[m++] = id;
    }
    if (m > 0) this.warmSum += this.cells.warm(run.slot as 0 | 1, this.missing, m, this.warmIds);
  }

  /**
   * Renders run `p` for record `id`: a joined run by copying its runs' bytes
   * (rendering those missing); from the record's columns where the run has
   * cell writers; else from the result of queued line j's leaf (which has
   * that record).
   */
  private render(p: Run, id: number, j: number): void {
    let start: number;
    if (p.joins !== null) {
      this.fillKeys(j);
      // Each piece first (rendering may grow the store), then the copies back to back.
      for (const sub of p.joins) {
        const subId = this.keyOf(sub, j);
        if (sub.places[2 * subId] === 0) this.render(sub, subId, j);
      }
      start = this.store.used;
      for (const sub of p.joins) {
        const subId = this.keyOf(sub, j);
        this.store.copy(sub.places[2 * subId]! - 1, sub.places[2 * subId + 1]!);
      }
    } else if (p.cells !== null) start = this.store.putCells(p.cells, id, this.day);
    else {
      const r = resultForLeaf(this.intel, this.leaves[j]!, '0.0.0.0', 4);
      let text = '';
      for (const part of p.parts) text += typeof part === 'string' ? part : part(r);
      start = this.store.put(text);
    }
    p.places[2 * id] = start + 1;
    p.places[2 * id + 1] = this.store.used - start;
  }
}

const COMMA_LF = new Uint8Array([44, 10]);
