/**
 * The row path of dotted-decimal IPv4 lines: from the leaf's record ids
 * straight to cached bytes.
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
 * a table of (start, length) per run: one read, then one copy.
 *
 * The per-line work runs in the batch kernel (WebAssembly, kernel.ts): it
 * cuts and parses the lines and queues them in groups (up to GROUP lines),
 * then for a group does all the index lookups, all the record keys, all the
 * runs' places, and last copies the rows together, so that the memory reads
 * of independent lines overlap instead of queueing (docs/design.md). This
 * module renders what the kernel finds missing, in JavaScript.
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
import { evidenceKey, pairCount, pairRecords, recordCells, resultForLeaf, snapshotColumns, withRoom, type CellWriter, type RecordCells } from '@ipintel/core/internal';
import { GROUP, KEYS, RENDER_NEEDS_HOST, RENDER_NO_ROOM, RowKernel, SCAN_SLOW } from './kernel.js';
import { renderSetup, TABLE_OPS, type RenderSetup } from './render-setup.js';
import type { ByteSink } from './sink.js';
import type { Group, RowTemplate } from './template.js';

export { GROUP } from './kernel.js';

/**
 * Which record id keys each group: 0 geo row, 1 network row, 2 signal set,
 * 3 the evidence (its connection label comes from the signal set, its
 * routing label from the network row: key 2 × signal set + 1 when the
 * network's routing is inferred); -1 none (the attribution is one string per
 * snapshot).
 */
const RECORD_OF: Readonly<Record<Group, number>> = { geo: 0, network: 1, signals: 2, evidence: 3, risk: 2, attribution: -1 };
/** The slot of a joined run (one keyed by the leaf's network/signal pair; KEYS slots in all). */
const PAIR = 4;
const DAY_MS = 86_400_000;

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
  /** The same parts with each writer's column name (`geo.city`): what the kernel's renderer is told (render-setup.ts); null with `cells`. */
  readonly fields: readonly (Uint8Array | string)[] | null;
  /** Records it has places for (its slot's table size; 1 when slot is -1). */
  readonly records: number;
  /** Its number among the kernel's runs (set once every run is known): its places are the kernel's `places[index]`. */
  index: number;
  /** For a joined run (slot PAIR): the runs whose bytes it holds, in order; else null. */
  readonly joins: readonly Run[] | null;
}

/** The most room one cell may ask for (a record's longest string is a few hundred bytes; this is a bound on a bug, not a limit on data). */
export const MAX_CELL_BYTES = 1 << 26;

/** Where a RunStore keeps its bytes: the kernel's store (kernel.ts), or a plain buffer of its own. */
export interface StoreSpace {
  /** The bytes (a view, made again when they grow). */
  readonly store: Uint8Array;
  /** Makes `store` at least `bytes` long (it may grow by more). */
  growStore(bytes: number): void;
}

/** A StoreSpace in a buffer of its own, doubled when short (withRoom). */
export class OwnStoreSpace implements StoreSpace {
  store: Uint8Array;

  constructor(bytes: number) {
    this.store = new Uint8Array(bytes);
  }

  growStore(bytes: number): void {
    if (bytes > this.store.length) this.store = withRoom(this.store, this.store.length, bytes - this.store.length);
  }
}

/** Rendered runs, back to back in a StoreSpace (places are offsets, so growing keeps them valid). */
export class RunStore {
  used = 0;
  private readonly encoder = new TextEncoder();

  constructor(private readonly space: StoreSpace) {}

  /** The stored bytes (a view: read it again after anything that may grow the store). */
  get bytes(): Uint8Array {
    return this.space.store;
  }

  /** Makes room for `n` more bytes. */
  room(n: number): void {
    if (this.used + n > this.space.store.length) this.space.growStore(this.used + n);
  }

  /** Takes the bytes written past `used` by someone else (the kernel's renderer), up to `end`; returns where they start. */
  claim(end: number): number {
    const start = this.used;
    this.used = end;
    return start;
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

/** What scanning a piece of input ended on (RecordRows#scan). */
export interface ScanStop {
  /** SCAN_ENDED, SCAN_FULL (GROUP lines queued) or SCAN_SLOW (a line for the general path: [slowStart, slowEnd) of the piece). */
  how: number;
  /** Where in the piece to go on from. */
  pos: number;
  /** Physical lines read, counting skipped ones and the slow line. */
  lines: number;
  slowStart: number;
  slowEnd: number;
}

export class RecordRows {
  private readonly kernel: RowKernel;
  /** Per queued line, whether its network, signal and evidence keys are filled (geo and pair always are). */
  private readonly keyed = new Uint8Array(GROUP);
  /** Whether a run outside the joined ones needs the network, signal or evidence key of every line (the kernel fills them then). */
  private readonly everyKey: boolean;
  private readonly cells: RecordCells;
  /** Lines queued in the group. */
  size = 0;
  /** A row, in order: the address, or the number of one of `runs`. */
  private readonly pieces: Piece[];
  /** The runs of a row, in order (joined ones as one): the kernel's runs 0..runs.length-1. */
  private readonly runs: Run[];
  /** Every run, the joined ones' own runs after the row's (the kernel's numbering). */
  private readonly allRuns: Run[];
  private readonly store: RunStore;
  /** How the kernel renders geo and network runs (render-setup.ts). */
  private readonly setup: RenderSetup;
  private day = -1;
  /** Scratch of fillKeys. */
  private readonly pairIds = new Uint32Array(2);
  /** What the reads ahead summed (kept so that they are not dropped). */
  warmSum = 0;
  /** What scan() returns (one object, reused). */
  private readonly stop: ScanStop = { how: 0, pos: 0, lines: 0, slowStart: 0, slowEnd: 0 };

  constructor(
    private readonly intel: IpIntel,
    template: RowTemplate,
  ) {
    const c = intel.info.counts;
    this.cells = recordCells(intel);
    this.pieces = compileRuns(template, [c.geo_records, c.network_records, c.signal_sets, 2 * c.signal_sets, pairCount(intel)], this.cells);
    this.runs = this.pieces.filter((p): p is Run => p !== 'ip');
    this.allRuns = [...this.runs, ...this.runs.flatMap((r) => r.joins ?? [])];
    this.allRuns.forEach((r, i) => (r.index = i));
    this.everyKey = this.runs.some((r) => r.slot >= 1 && r.slot <= 3);
    this.setup = renderSetup(this.allRuns, snapshotColumns(intel).columns, this.cells, template.output === 'csv' ? 'csv' : 'json');
    this.kernel = new RowKernel(
      intel,
      this.allRuns.map((r) => ({ slot: r.slot, records: r.records })),
      this.runs.length,
      this.pieces.map((p) => (p === 'ip' ? -1 : p.index)),
      this.setup,
    );
    this.store = new RunStore(this.kernel);
  }

  /** Call at the start of each block: network rows change with the UTC day. */
  startBlock(): void {
    const today = Math.floor(Date.now() / DAY_MS);
    if (today === this.day) return;
    this.day = today;
    const dated = (r: Run): boolean => r.slot === 1 || (r.joins?.some(dated) ?? false);
    for (const r of this.allRuns) if (dated(r)) this.kernel.places[r.index]!.fill(0);
  }

  /** The most input the kernel reads at once: a longer block is given in pieces of whole lines. */
  get pieceBytes(): number {
    return this.kernel.inputBytes;
  }

  /**
   * Puts `input[from, to)` (whole lines, at most pieceBytes) in the kernel's
   * memory, for scan(); the queued lines must have been flushed (they refer
   * to the piece before).
   */
  load(input: Uint8Array, from: number, to: number): void {
    this.kernel.bytes.set(input.subarray(from, to), this.kernel.inputAt);
  }

  /**
   * Queues the loaded piece's lines from `pos` (of `end`), until GROUP are
   * queued, a line needs the general path, or the piece ends (ScanStop says
   * which; the object is reused by the next call).
   */
  scan(pos: number, end: number): ScanStop {
    const k = this.kernel;
    this.size += k.fn.scan(k.inputAt, pos, end, k.queueAt, this.size, GROUP, k.statusAt);
    const st = k.status;
    const stop = this.stop;
    stop.how = st[0]!;
    stop.pos = st[1]!;
    stop.lines = st[2]!;
    if (stop.how === SCAN_SLOW) {
      stop.slowStart = st[3]!;
      stop.slowEnd = st[4]!;
    }
    return stop;
  }

  /** Writes the queued lines' rows, in order (`rowsBefore`: rows already in the output, for JSON's separators). */
  flush(sink: ByteSink, joined: boolean, rowsBefore: number): void {
    const n = this.size;
    if (n === 0) return;
    this.size = 0;
    const k = this.kernel;
    const nr = this.runs.length;
    k.fn.keys(k.queueAt, n, k.leavesAt, k.keysAt, this.everyKey ? 1 : 0);
    this.keyed.fill(this.everyKey ? 1 : 0, 0, n);
    // 1. Every run's place; what is missing is rendered here, its geo and network rows read first in stages.
    const m = k.fn.places(n, k.keysAt, k.runsAt, nr, k.idsAt, k.missingAt);
    if (m > 0) this.renderMissing(m);
    // 2. The rows, as many as the kernel's room takes at a time.
    for (let from = 0; from < n; ) {
      const done = k.fn.rows(
        k.inputAt, k.queueAt, from, n, k.piecesAt, this.pieces.length, k.runsAt, nr, k.idsAt,
        k.storeAt, k.sinkAt, k.sinkAt + k.sinkBytes, joined ? k.sepAt : 0, rowsBefore + from === 0 ? 1 : 0, k.statusAt,
      );
      if (done > 0) {
        sink.append(k.bytes.subarray(k.sinkAt, k.status[1]));
        from += done;
      } else {
        // A row longer than the kernel's room (a record with strings of megabytes): copied here.
        this.rowHere(sink, from, joined && rowsBefore + from > 0);
        from++;
      }
    }
  }

  /** Queued line j's row, written by this thread (rows longer than the kernel's room). */
  private rowHere(sink: ByteSink, j: number, sep: boolean): void {
    const k = this.kernel;
    if (sep) sink.append(COMMA_LF);
    for (const p of this.pieces) {
      if (p === 'ip') sink.append(k.bytes.subarray(k.inputAt + k.queue[3 * j + 1]!, k.inputAt + k.queue[3 * j + 2]!));
      else {
        const places = k.places[p.index]!;
        const id = k.ids[j * this.runs.length + p.index]!;
        const at = places[2 * id]! - 1;
        sink.append(k.store.subarray(at, at + places[2 * id + 1]!));
      }
    }
  }

  /**
   * Renders the m runs the kernel found missing (its `missing` list: line j
   * × runs + run r), reading ahead first what the geo and network renders
   * will read. A run missing for several lines of the group is rendered once.
   */
  private renderMissing(m: number): void {
    const k = this.kernel;
    const nr = this.runs.length;
    // Lines whose joined run is missing need their network, signal and evidence keys.
    for (let i = 0; i < m; i++) {
      const x = k.missing[i]!;
      if (this.runs[x % nr]!.joins !== null) this.fillKeys(Math.floor(x / nr));
    }
    this.warmMissing(m);
    for (let i = 0; i < m; i++) {
      const x = k.missing[i]!;
      const run = this.runs[x % nr]!;
      const id = k.ids[x]!;
      if (k.places[run.index]![2 * id] === 0) this.render(run, id, Math.floor(x / nr));
    }
  }

  /** Renders run `p` of geo or network row `id` (its `cells`): by the kernel where it can, else by core's writers. */
  private renderCells(p: Run, cells: readonly (Uint8Array | CellWriter)[], id: number): number {
    const k = this.kernel;
    if (k.renders(p.index)) {
      for (let more = 4096; ; ) {
        const end = k.render(p.index, id, this.day, this.store.used);
        if (end >= 0) return this.store.claim(end);
        if (end === RENDER_NO_ROOM) {
          if (more > MAX_CELL_BYTES) throw new Error(`a run of record ${id} asked for more than ${MAX_CELL_BYTES} bytes of room`);
          this.store.room(more);
          more *= 2;
        } else if (end === RENDER_NEEDS_HOST && !this.makeCells(p.index, id)) break;
      }
    }
    return this.store.putCells(cells, id, this.day);
  }

  /**
   * Makes the cells run r reads by id from the kernel's tables at row `row`
   * that are not made yet (core's writers, into the store); false when none
   * was missing (then the run itself needs core's writers).
   */
  private makeCells(r: number, row: number): boolean {
    const k = this.kernel;
    const prog = k.program(r);
    let made = false;
    for (let i = 0; i < prog.length; i += 3) {
      const t = (TABLE_OPS as readonly number[]).indexOf(prog[i]!);
      if (t < 0) continue;
      const id = this.setup.tableId[t]!(row);
      const write = this.setup.tableWriter[t];
      if (write === null || write === undefined || k.hasCell(t, id)) continue;
      const start = this.store.putCells([write], row, this.day);
      k.setCell(t, id, start, this.store.used - start);
      made = true;
    }
    return made;
  }

  /** Fills line j's network, signal and evidence keys from its pair, once. */
  private fillKeys(j: number): void {
    if (this.keyed[j] === 1) return;
    const keys = this.kernel.keys;
    pairRecords(this.intel, keys[KEYS * j + PAIR]!, this.pairIds);
    const net = this.pairIds[0]!;
    const sig = this.pairIds[1]!;
    keys[KEYS * j + 1] = net;
    keys[KEYS * j + 2] = sig;
    keys[KEYS * j + 3] = evidenceKey(sig, this.cells.routingInferred(net));
    this.keyed[j] = 1;
  }

  /** Queued line j's record id for `run` (0 for a run that depends on no record). */
  private keyOf(run: Run, j: number): number {
    return run.slot < 0 ? 0 : this.kernel.keys[KEYS * j + run.slot]!;
  }

  /**
   * Reads ahead what rendering the group's missing geo and network runs will
   * read (the kernel's warm, over its copy of the columns): the missing runs
   * of a row that the kernel renders, and those inside missing joined runs.
   */
  private warmMissing(m: number): void {
    const k = this.kernel;
    const nr = this.runs.length;
    for (const run of this.runs) {
      const subs = run.joins === null ? [run] : run.joins;
      for (const sub of subs) {
        if (!k.renders(sub.index)) continue;
        let w = 0;
        const places = k.places[sub.index]!;
        const rows = k.warmRows;
        for (let i = 0; i < m; i++) {
          const x = k.missing[i]!;
          if (x % nr !== run.index) continue;
          const id = this.keyOf(sub, Math.floor(x / nr));
          if (places[2 * id] === 0) rows[w++] = id;
        }
        if (w > 0) this.warmSum += k.warm(sub.slot as 0 | 1, w);
      }
    }
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
        if (this.kernel.places[sub.index]![2 * subId] === 0) this.render(sub, subId, j);
      }
      start = this.store.used;
      for (const sub of p.joins) {
        const subId = this.keyOf(sub, j);
        const places = this.kernel.places[sub.index]!;
        this.store.copy(places[2 * subId]! - 1, places[2 * subId + 1]!);
      }
    } else if (p.cells !== null) start = this.renderCells(p, p.cells, id);
    else {
      const r = resultForLeaf(this.intel, this.kernel.leaves[j]!, '0.0.0.0', 4);
      let text = '';
      for (const part of p.parts) text += typeof part === 'string' ? part : part(r);
      start = this.store.put(text);
    }
    // The store may have grown, and with it every view of the kernel's memory: read the places now.
    const places = this.kernel.places[p.index]!;
    places[2 * id] = start + 1;
    places[2 * id + 1] = this.store.used - start;
  }
}

const COMMA_LF = new Uint8Array([44, 10]);
