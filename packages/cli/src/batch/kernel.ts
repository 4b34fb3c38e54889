/**
 * The host of the batch kernel (kernel/rows.ts, WebAssembly): each thread's
 * instance of the kernel over a space (space.ts: the memory a batch's
 * threads share and its layout), with views of that thread's regions and
 * the kernel's calls. Split from space.ts, which lays the memory out once
 * for every thread.
 *
 * @module
 */
import { KERNEL_WASM } from './kernel-wasm.js';
import { TABLE_IDS } from './render-setup.js';
import { GROUP, KEYS, reach, wasm, type KernelLayout, type KernelSpace, type WasmMemory } from './space.js';

/** The kernel's functions (kernel/rows.ts says what each does). */
interface KernelExports {
  setIndex(dir: number, bits: number, blk: number, ids: number, pairNet: number, pairSig: number, netFlags: number): void;
  setRecords(config: number): void;
  leaf(addr: number): number;
  scan(input: number, pos: number, end: number, queue: number, queued: number, cap: number, status: number): number;
  keys(queue: number, n: number, leaves: number, keys: number, everyKey: number): void;
  places(n: number, keys: number, runs: number, nr: number, ids: number, missing: number): number;
  fill(
    keys: number,
    runs: number,
    nr: number,
    ids: number,
    missing: number,
    from: number,
    m: number,
    store: number,
    pos: number,
    end: number,
    today: number,
    json: number,
    status: number,
    warmRows: number,
    warmIds: number,
  ): number;
  rows(
    input: number,
    queue: number,
    from: number,
    n: number,
    pieces: number,
    np: number,
    runs: number,
    nr: number,
    ids: number,
    store: number,
    sink: number,
    sinkEnd: number,
    sep: number,
    firstRow: number,
    status: number,
  ): number;
  render(prog: number, nops: number, row: number, today: number, json: number, out: number, end: number): number;
  warm(kind: number, rows: number, n: number, ids: number): number;
}

/** How `scan` ended (status[0]). */
export const SCAN_ENDED = 0;
export const SCAN_FULL = 1;
export const SCAN_SLOW = 2;
/** How fill() ended (status[0]): every entry done or left for the host; the chunk was short. */
export const FILLED = 0;
export const FILL_NO_ROOM = 1;
/** RowKernel#render's answers other than where the run ends: core's writers must render it; the chunk is short. */
export const RENDER_NEEDS_HOST = -2;
export const RENDER_NO_ROOM = -1;

let compiled: object | undefined;

/** The compiled kernel, shared by every instance in this thread. */
function kernelModule(): object {
  return (compiled ??= new wasm.Module(Buffer.from(KERNEL_WASM, 'base64')));
}

export class RowKernel {
  readonly fn: KernelExports;
  readonly layout: KernelLayout;
  private readonly memory: WasmMemory;
  /** This thread's regions (absolute addresses). */
  readonly statusAt: number;
  readonly queueAt: number;
  readonly leavesAt: number;
  readonly keysAt: number;
  readonly idsAt: number;
  readonly missingAt: number;
  readonly warmRowsAt: number;
  readonly warmIdsAt: number;
  readonly inputAt: number;
  readonly sinkAt: number;
  /** Shared regions. */
  readonly piecesAt: number;
  readonly runsAt: number;
  readonly sepAt: number;
  readonly storeAt: number;
  readonly inputBytes: number;
  readonly sinkBytes: number;

  /** Views, made again when the memory grew past them (see view()). */
  bytes!: Uint8Array;
  status!: Uint32Array;
  queue!: Uint32Array;
  leaves!: Uint32Array;
  keys!: Uint32Array;
  ids!: Uint32Array;
  missing!: Uint32Array;
  warmRows!: Uint32Array;
  /** Per run (in the shape's order): [start + 1, length] of each record's rendered bytes, from the store's base; 0 while not rendered. */
  places!: Int32Array[];
  private words!: Int32Array;

  constructor(space: Pick<KernelSpace, 'memory' | 'layout'>, thread: number) {
    const l = space.layout;
    if (!(Number.isInteger(thread) && thread >= 0 && thread < l.threads)) throw new RangeError(`thread ${thread} of a space for ${l.threads}`);
    this.memory = space.memory;
    this.layout = l;
    const base = l.threadAt[thread]!;
    const r = l.regions;
    this.statusAt = base + r.status;
    this.queueAt = base + r.queue;
    this.leavesAt = base + r.leaves;
    this.keysAt = base + r.keys;
    this.idsAt = base + r.ids;
    this.missingAt = base + r.missing;
    this.warmRowsAt = base + r.warmRows;
    this.warmIdsAt = base + r.warmIds;
    this.inputAt = base + r.input;
    this.sinkAt = base + r.sink;
    this.piecesAt = l.piecesAt;
    this.runsAt = l.runsAt;
    this.sepAt = l.sepAt;
    this.storeAt = l.storeBase;
    this.inputBytes = l.inputBytes;
    this.sinkBytes = l.sinkBytes;
    this.refresh();
    const instance = new wasm.Instance(kernelModule(), { env: { memory: this.memory } });
    this.fn = instance.exports as unknown as KernelExports;
    const x = l.index;
    this.fn.setIndex(x.dir, x.dirBits, x.blk, x.ids, x.pairNet, x.pairSig, x.netFlags);
    if (l.configAt !== 0) this.fn.setRecords(l.configAt);
  }

  /** Makes every view again, over the memory as it is now. */
  private refresh(): void {
    const buf = this.memory.buffer;
    const l = this.layout;
    const nr = Math.max(1, l.rowRuns);
    this.bytes = new Uint8Array(buf);
    this.words = new Int32Array(buf);
    this.status = new Uint32Array(buf, this.statusAt, 8);
    this.queue = new Uint32Array(buf, this.queueAt, 3 * GROUP);
    this.leaves = new Uint32Array(buf, this.leavesAt, GROUP);
    this.keys = new Uint32Array(buf, this.keysAt, KEYS * GROUP);
    this.ids = new Uint32Array(buf, this.idsAt, nr * GROUP);
    this.missing = new Uint32Array(buf, this.missingAt, nr * GROUP);
    this.warmRows = new Uint32Array(buf, this.warmRowsAt, nr * GROUP);
    this.places = l.placesAt.map((at, i) => new Int32Array(buf, at, 2 * l.runRecords[i]!));
  }

  /** The memory as bytes, covering at least `end` (made again if the memory grew since). */
  view(end = 0): Uint8Array {
    if (end > this.bytes.length) this.refresh();
    return this.bytes;
  }

  /** Claims `bytes` of store for this thread (an atomic bump shared by the threads): their absolute start. */
  claim(bytes: number): number {
    const start = Atomics.add(this.words, this.layout.storeTopAt / 4, bytes);
    reach(this.memory, start + bytes);
    return start;
  }

  /**
   * Empties the store of rendered runs: every run's places and every table's
   * cells dropped, and the store's claims start again at its base, so its
   * bytes are written anew. Only while no thread has a block in hand (each
   * thread then leaves the chunk it had: RunStore#leave, when it sees the
   * store's epoch move). Nothing to do when no thread has claimed any of it
   * (no place or cell can hold bytes then).
   */
  emptyStore(): void {
    const top = this.layout.storeTopAt / 4;
    if (Atomics.load(this.words, top) === this.storeAt) return;
    for (const p of this.places) p.fill(0);
    this.layout.tablesAt.forEach((at, t) => {
      if (at !== 0) this.words.fill(0, at / 4, at / 4 + 2 * TABLE_IDS[t]!);
    });
    Atomics.store(this.words, top, this.storeAt);
    Atomics.add(this.words, this.layout.epochAt / 4, 1);
  }

  /** How many times the store was emptied (emptyStore): a chunk claimed at another epoch is no longer its thread's. */
  get epoch(): number {
    return Atomics.load(this.words, this.layout.epochAt / 4);
  }

  /** The UTC day the shared places were made for (-1: none yet). */
  get day(): number {
    return Atomics.load(this.words, this.layout.dayAt / 4);
  }

  set day(d: number) {
    Atomics.store(this.words, this.layout.dayAt / 4, d);
  }

  /** Publishes run r's place for record `id`: `length` bytes at absolute `start` (the length first, then the start, which readers load atomically). */
  publish(r: number, id: number, start: number, length: number): void {
    const p = this.places[r]!;
    p[2 * id + 1] = length;
    Atomics.store(p, 2 * id, start - this.storeAt + 1);
  }

  /** Run r's place for record `id`: its absolute start, or -1 while not rendered; its length in placeLength. */
  place(r: number, id: number): number {
    const p = this.places[r]!;
    const s = Atomics.load(p, 2 * id);
    if (s === 0) return -1;
    this.placeLength = p[2 * id + 1]!;
    return this.storeAt + s - 1;
  }

  /** The length of the place place() last found. */
  placeLength = 0;

  /** Whether the kernel renders run `r` itself (it has a program). */
  renders(r: number): boolean {
    return this.layout.programOps[r]! > 0;
  }

  /** Run r's program ([op, a, b] triples; empty when the kernel does not render it). */
  program(r: number): Uint32Array {
    return new Uint32Array(this.memory.buffer, this.layout.programAt[r], 3 * this.layout.programOps[r]!);
  }

  /** Whether table t (render-setup.ts TABLE_OPS) has the cell of `id`. */
  hasCell(t: number, id: number): boolean {
    return Atomics.load(this.words, (this.layout.tablesAt[t]! + 8 * id) / 4) !== 0;
  }

  /**
   * Gives table t the cell of `id`: `length` bytes at absolute `start`. The
   * length first, then start + 1 (0: no cell; an empty cell made before its
   * thread's store claimed any room starts at 0), atomically, as places are
   * published: a reader that loads it atomically sees the bytes of the
   * thread that stored it, and either thread's length (two threads making
   * the same cell make the same bytes).
   */
  setCell(t: number, id: number, start: number, length: number): void {
    const w = (this.layout.tablesAt[t]! + 8 * id) / 4;
    this.words[w + 1] = length;
    Atomics.store(this.words, w, start + 1);
  }

  /**
   * Renders run `r` for record `row` at absolute `from`, with room until
   * `end`: where it ends (absolute), or RENDER_NO_ROOM, or RENDER_NEEDS_HOST.
   */
  render(r: number, row: number, today: number, from: number, end: number): number {
    const l = this.layout;
    const e = this.fn.render(l.programAt[r]!, l.programOps[r]!, row, today, l.json, from, end);
    // The kernel answers 0 (needs the host) or 1 (no room), else an address, which is past both.
    return e === 0 ? RENDER_NEEDS_HOST : e === 1 ? RENDER_NO_ROOM : e;
  }

  /** Bytes of the memory (for tests and figures). */
  get size(): number {
    return this.memory.buffer.byteLength;
  }
}

