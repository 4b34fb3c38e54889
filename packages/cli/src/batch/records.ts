/**
 * The row path of dotted-decimal IPv4 lines: from the leaf's record ids
 * straight to cached bytes.
 *
 * A leaf is a (geo row, network row, signal set) triple, and results of
 * leaves sharing a record share that record's frozen sub-object. So every
 * byte of an IPv4 row but the address depends on one record at most (the
 * evidence on a key of its own: row-runs.ts RECORD_OF): the row layout (template.ts)
 * is folded once into *runs* (row-runs.ts), each the bytes of consecutive segments that
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
 * of independent lines overlap instead of queueing (docs/design.md). It
 * renders geo and network runs too; this module renders the rest of what
 * it finds missing, in JavaScript. The places and the store are shared by
 * a batch's threads (space.ts): a run one thread renders, the others copy.
 *
 * A run missing from its cache is rendered from resultForLeaf() with the
 * template's own field renderers, so the bytes are the same as on the
 * general path. Runs that hold network fields carry `allocation_age_days`,
 * so when the UTC day changes the store is emptied and its bytes written
 * anew (resetDay: by the one thread of a single-thread run at the start of a
 * block of a new day; in a run on several threads, by the main thread, while
 * no block is in hand anywhere; each thread then leaves the chunk it had).
 *
 * @module
 */
import type { IpIntel } from '@ipintel/core';
import { evidenceKey, pairRecords, recordCells, resultForLeaf, type CellWriter, type RecordCells } from '@ipintel/core/internal';
import { FILL_NO_ROOM, RENDER_NEEDS_HOST, RENDER_NO_ROOM, RowKernel, SCAN_SLOW } from './kernel.js';
import { createKernelSpace, GROUP, KEYS, regionView, type KernelSpace, type LoadedSnapshot } from './space.js';
import { TABLE_OPS, type RenderSetup } from './render-setup.js';
import { compileRows, PAIR, type Piece, type Run } from './row-runs.js';
import { MAX_CELL_BYTES, RunStore } from './run-store.js';
import type { ByteSink } from './sink.js';
import type { RowTemplate } from './template.js';

export { GROUP } from './space.js';

const DAY_MS = 86_400_000;

/** Today's UTC day number, from the batch's own clock. */
export function utcDay(): number {
  return Math.floor(Date.now() / DAY_MS);
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

/**
 * The memory a run of `threads` threads shares (space.ts), laid out for
 * `template`'s rows over `intel` (by the thread that opened it); in the
 * memory `loaded` read it into (load.ts), if given.
 */
export function rowsSpace(intel: IpIntel, template: RowTemplate, threads: number, loaded?: LoadedSnapshot): KernelSpace {
  return createKernelSpace(intel, compileRows(intel, template, recordCells(intel)).shape, threads, loaded);
}

export class RecordRows {
  private readonly kernel: RowKernel;
  /** The memory it shares with the run's other threads. */
  private readonly space: Pick<KernelSpace, 'memory' | 'layout'>;
  /** Whether that memory is its own (made here, for one thread): then it drops the places of another day itself. */
  private readonly ownSpace: boolean;
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
  private readonly store: RunStore;
  /** How the kernel renders geo and network runs (render-setup.ts). */
  private readonly setup: RenderSetup;
  /** The UTC day of the block in hand. */
  private day = -1;
  /**
   * The store's epoch (RowKernel#epoch) when this thread last left its chunk:
   * at another, the store was emptied since and the chunk is not its own any
   * more. An epoch, not the day: a clock stepped back across midnight gives a
   * day seen before, after the store was emptied twice.
   */
  private storeEpoch = -1;
  /** The kernel renders JSON values (1) or CSV cells (0). */
  private readonly json: number;
  /** Scratch of fillKeys. */
  private readonly pairIds = new Uint32Array(2);
  /** What scan() returns (one object, reused). */
  private readonly stop: ScanStop = { how: 0, pos: 0, lines: 0, slowStart: 0, slowEnd: 0 };

  /**
   * The rows of `template` over `intel`, as thread `thread` of `space`
   * writes them (default: a space of its own, for one thread). The space's
   * shape must be this template's over this snapshot.
   */
  constructor(
    private readonly intel: IpIntel,
    template: RowTemplate,
    space?: Pick<KernelSpace, 'memory' | 'layout'>,
    thread = 0,
  ) {
    this.cells = recordCells(intel);
    const compiled = compileRows(intel, template, this.cells);
    ({ pieces: this.pieces, runs: this.runs, setup: this.setup } = compiled);
    this.everyKey = this.runs.some((r) => r.slot >= 1 && r.slot <= 3);
    this.json = template.output === 'csv' ? 0 : 1;
    const shared = space ?? createKernelSpace(intel, compiled.shape, 1);
    this.ownSpace = space === undefined;
    this.space = shared;
    const l = shared.layout;
    if (l.rowRuns !== this.runs.length || l.runRecords.length !== compiled.allRuns.length || l.pieceCount !== this.pieces.length) {
      throw new Error('the batch space was laid out for other rows');
    }
    this.kernel = new RowKernel(shared, thread);
    this.store = new RunStore(this.kernel, l.chunkBytes);
  }

  /**
   * Call at the start of each block, with the block's UTC day (default:
   * today). Network rows change with the day: in a space of its own, places
   * made for another day are dropped first; in a space shared with other
   * threads the run must have dropped them (resetDay, while no thread had a
   * block in hand), so another day here is a fault of the run's, refused.
   */
  startBlock(day = utcDay()): void {
    this.day = day;
    if (this.kernel.day !== day) {
      if (!this.ownSpace) throw new Error(`a block of UTC day ${day} in a batch space whose places are for day ${this.kernel.day}: the run drops them first`);
      this.resetDay(day);
    }
    // The store was emptied since this thread's last block (resetDay): its chunk is no longer its own.
    const epoch = this.kernel.epoch;
    if (this.storeEpoch !== epoch) {
      this.store.leave();
      this.storeEpoch = epoch;
    }
  }

  /**
   * Empties the store of rendered runs (RowKernel#emptyStore) and marks it
   * as made for `day`. The runs that hold network fields must go (their
   * allocation_age_days changed); the others go with them, so that the
   * store's bytes are written anew each day rather than added to: a stream
   * that runs for weeks holds one day's runs, not every day's (the memory
   * holds 2 GB). Rendering the day's first rows again costs little.
   */
  resetDay(day: number): void {
    this.kernel.emptyStore();
    this.kernel.day = day;
  }

  /** A view of output region `region` of the kernel's memory, and where it starts there. */
  region(region: number): Uint8Array {
    return regionView(this.space, region);
  }

  regionAt(region: number): number {
    return this.space.layout.outAt[region]!;
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
    this.kernel.view().set(input.subarray(from, to), this.kernel.inputAt);
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
    // 2. The rows: straight into the sink where it is in the kernel's memory (an output region),
    //    else into this thread's room there and copied; as many as the room takes at a time.
    for (let from = 0; from < n; ) {
      const direct = sink.kernelAt >= 0;
      const at = direct ? sink.kernelAt + sink.pos : k.sinkAt;
      const end = direct ? sink.kernelAt + sink.buf.length : k.sinkAt + k.sinkBytes;
      const done = k.fn.rows(
        k.inputAt, k.queueAt, from, n, k.piecesAt, this.pieces.length, k.runsAt, nr, k.idsAt,
        k.storeAt, at, end, joined ? k.sepAt : 0, rowsBefore + from === 0 ? 1 : 0, k.statusAt,
      );
      if (done > 0) {
        if (direct) sink.pos = k.status[1]! - sink.kernelAt;
        else sink.append(k.view().subarray(k.sinkAt, k.status[1]));
        from += done;
      } else if (direct) {
        // The region is full: the sink moves to a buffer of its own, and the rows go on through the room.
        sink.leave();
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
      if (p === 'ip') sink.append(k.view().subarray(k.inputAt + k.queue[3 * j + 1]!, k.inputAt + k.queue[3 * j + 2]!));
      else {
        const at = k.place(p.index, k.ids[j * this.runs.length + p.index]!);
        const n = k.placeLength;
        sink.append(k.view(at + n).subarray(at, at + n));
      }
    }
  }

  /**
   * Renders the m runs the kernel found missing (its `missing` list: line j
   * × runs + run r): the kernel what it can (fill, which first reads ahead
   * what its geo and network renders will read), this thread the rest.
   * A run missing for several lines of the group is rendered once.
   */
  private renderMissing(m: number): void {
    const k = this.kernel;
    const nr = this.runs.length;
    const store = this.store;
    // 1. The kernel reads ahead what the renders will read, then renders what it can, in this thread's chunk
    //    of the store (a new one when it runs short).
    let from = 0;
    let fresh = false;
    for (;;) {
      const left = k.fn.fill(
        k.keysAt, k.runsAt, nr, k.idsAt, k.missingAt, from, m, k.storeAt, store.pos, store.end, this.day, this.json, k.statusAt, k.warmRowsAt, k.warmIdsAt,
      );
      const moved = k.status[1] !== store.pos;
      store.advance(k.status[1]!);
      if (k.status[0] !== FILL_NO_ROOM) {
        m = left;
        break;
      }
      m = k.status[2]!;
      from = left;
      // A run longer than a whole chunk: left to the path below, which takes the room it needs.
      if (fresh && !moved) break;
      store.newChunk();
      fresh = true;
    }
    // 2. The rest here: text runs, joined runs that hold one not rendered yet, what the kernel left to core.
    for (let i = 0; i < m; i++) {
      const x = k.missing[i]!;
      const run = this.runs[x % nr]!;
      const id = k.ids[x]!;
      if (k.place(run.index, id) < 0) this.render(run, id, Math.floor(x / nr));
    }
  }

  /** Renders run `p` of geo or network row `id` (its `cells`) into the store, begun and finished here: by the kernel where it can, else by core's writers. */
  private renderCells(p: Run, cells: readonly (Uint8Array | CellWriter)[], id: number): void {
    const k = this.kernel;
    const store = this.store;
    if (k.renders(p.index)) {
      // Each table cell is made once, so the kernel asks for them at most once a table op: more
      // asks mean a cell made here did not reach it, which must stop the run, not spin.
      for (let more = 4096, asks = 0; ; ) {
        store.begin();
        const end = k.render(p.index, id, this.day, store.pos, store.end);
        if (end >= 0) {
          store.take(end);
          return;
        }
        if (end === RENDER_NO_ROOM) {
          if (more > MAX_CELL_BYTES) throw new Error(`a run of record ${id} asked for more than ${MAX_CELL_BYTES} bytes of room`);
          store.room(more);
          more *= 2;
        } else if (end === RENDER_NEEDS_HOST) {
          if (++asks > TABLE_OPS.length + 1) throw new Error(`the batch kernel asked again for the table cells of record ${id}, which were made`);
          if (!this.makeCells(p.index, id)) break;
        }
      }
    }
    store.begin();
    store.appendCells(cells, id, this.day);
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
      this.store.begin();
      this.store.appendCells([write], row, this.day);
      const start = this.store.finish();
      k.setCell(t, id, start, this.store.pos - start);
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
   * Renders run `p` for record `id`: a joined run by copying its runs' bytes
   * (rendering those missing); from the record's columns where the run has
   * cell writers; else from the result of queued line j's leaf (which has
   * that record).
   */
  private render(p: Run, id: number, j: number): void {
    const k = this.kernel;
    const store = this.store;
    if (p.joins !== null) {
      this.fillKeys(j);
      // Each piece first (each a run of its own in the store), then the copies back to back.
      for (const sub of p.joins) {
        const subId = this.keyOf(sub, j);
        if (k.place(sub.index, subId) < 0) this.render(sub, subId, j);
      }
      store.begin();
      for (const sub of p.joins) {
        const at = k.place(sub.index, this.keyOf(sub, j));
        store.appendCopy(at, k.placeLength);
      }
    } else if (p.cells !== null) this.renderCells(p, p.cells, id);
    else {
      const r = resultForLeaf(this.intel, k.leaves[j]!, '0.0.0.0', 4);
      let text = '';
      for (const part of p.parts) text += typeof part === 'string' ? part : part(r);
      store.begin();
      store.appendText(text);
    }
    const start = store.finish();
    k.publish(p.index, id, start, store.pos - start);
  }
}

const COMMA_LF = new Uint8Array([44, 10]);
