/**
 * The host of the batch kernel (kernel/rows.ts, WebAssembly): the memory a
 * batch's threads share, laid out once by the main thread (KernelSpace),
 * and each thread's instance of the kernel over it (RowKernel).
 *
 * The memory holds, for every thread: the snapshot's columns (core's
 * `shareInto` copies them there, and worker threads open the same copy with
 * fromSharedTrusted, so one copy serves the kernel and the threads' own
 * results), the rows' layout (runs and pieces), the programs the kernel
 * renders geo and network runs with, the runs' places and the store of
 * rendered runs, which threads fill for each other; and for each thread,
 * regions of its own: the queued lines, their keys, the input piece and the
 * rows' output. The store is claimed in chunks from its end (an atomic
 * counter), and the memory grows when a chunk passes it; a shared memory
 * keeps its addresses when it grows, so only views need making again.
 *
 * @module
 */
import type { IpIntel, SharedSnapshot } from '@ipintel/core';
import { shareInto, snapshotColumns } from '@ipintel/core/internal';
import { KERNEL_WASM } from './kernel-wasm.js';
import { TABLE_IDS, type RenderSetup } from './render-setup.js';

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

/** What this module uses of the WebAssembly API (a global of Node's since v8; TypeScript's ES2022 lib and @types/node leave it out). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number; shared: boolean }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: object };
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Lines per group (the kernel's stages run over a group). */
export const GROUP = 256;
/** Record keys per queued line: geo row, network row, signal set, evidence key, pair. */
export const KEYS = 5;
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

const PAGE = 65536;
/** The memory's most pages, as the kernel declares it: 2 GB (places are i32 offsets). */
const MAX_PAGES = 32768;
/** Input bytes the kernel reads at once; a longer block is cut at line ends (block.ts). Any address is far shorter. */
export const INPUT_BYTES = 256 * 1024;
/** Room for one call's rows (a group's CSV rows take ~110 KB); rows that do not fit wait for the next call. */
export const SINK_BYTES = 1024 * 1024;
/**
 * Room for the store when the memory is made (a CSV run of the world
 * snapshot's million random lines fills ~17 MB, NDJSON ~67 MB); past it the
 * memory grows. Room not yet written costs address space, not memory.
 */
export const STORE_BYTES = 64 * 1024 * 1024;
/** The store's chunks: each thread appends to one of its own at a time. */
export const CHUNK_BYTES = 256 * 1024;
/**
 * An output region: where a block's rows are written, and written out from
 * (a block of 32 KB of IPv4 lines makes ~1 MB of CSV, ~2.5 MB of NDJSON;
 * blocks cut from a stream may be twice as long). A block whose rows
 * outgrow it goes on in a buffer of its own (sink.ts). Only what is written
 * takes memory.
 */
export const OUT_BYTES = 8 * 1024 * 1024;
/** The sizes a new space takes (tests shrink them to reach the paths past each: chunks and growth, pieces, rows written in several calls, regions outgrown). */
export const kernelSizing = { store: STORE_BYTES, input: INPUT_BYTES, sink: SINK_BYTES, chunk: CHUNK_BYTES, out: OUT_BYTES };

/**
 * At most this many output regions (384 MB of the memory's 2 GB of
 * addresses): three a thread would pass 2 GB at ~80 threads (`--jobs 256`
 * is allowed, and `auto` takes every core). Past it, the blocks in hand
 * that find no region free write their rows into buffers of their own.
 */
export const MAX_OUTPUT_REGIONS = 48;

/** Output regions of a space for `threads` threads: as many blocks as a run keeps in hand (run.ts: three a thread), and some being written; at most MAX_OUTPUT_REGIONS. */
export function outputRegions(threads: number): number {
  return Math.min(3 * threads + 3, MAX_OUTPUT_REGIONS);
}

let compiled: object | undefined;

/** The compiled kernel, shared by every instance in this thread. */
function kernelModule(): object {
  return (compiled ??= new wasm.Module(Buffer.from(KERNEL_WASM, 'base64')));
}

/** A run as the kernel reads it: which record keys it (a KEYS slot, -1 for none) and how many places it has. */
export interface KernelRun {
  readonly slot: number;
  /** Records it has places for (1 when slot is -1). */
  readonly records: number;
  /** A joined run's runs (their numbers), whose bytes it holds back to back; null for others. */
  readonly joins: readonly number[] | null;
}

/** Bytes a run takes in the runs table (kernel/rows.ts RUN), and its kinds. */
const RUN_BYTES = 32;
const RUN_TEXT = 0;
const RUN_CELLS = 1;
const RUN_JOINED = 2;

/** What the rows look like: every run the writer caches (the first `rowRuns` a row's, the rest feeding joined runs), a row's pieces (-1 the address, else a run), the render setup. */
export interface RowShape {
  readonly runs: readonly KernelRun[];
  readonly rowRuns: number;
  readonly pieces: readonly number[];
  readonly render: RenderSetup | null;
}

/** `n` rounded up to a cache line; arithmetic, not bitwise: offsets pass 2^31 before the memory's 2 GB does. */
export const align = (n: number): number => Math.ceil(n / 64) * 64;

/** The record columns setRecords takes the addresses of, in its order (kernel/rows.ts). */
const RECORD_COLUMNS = [
  'geo.country_code',
  'geo.region',
  'geo.city',
  'geo.timezone',
  'geo.latitude',
  'geo.longitude',
  'net.asn',
  'net.as_org',
  'net.rpki',
  'net.allocation_day',
  'net.registration_country',
  'str.offsets',
  'str.bytes',
] as const;

/** A thread's regions, as offsets from its base (the same for every thread). */
interface ThreadRegions {
  readonly status: number;
  readonly queue: number;
  readonly leaves: number;
  readonly keys: number;
  readonly ids: number;
  readonly missing: number;
  readonly warmRows: number;
  readonly warmIds: number;
  readonly input: number;
  readonly sink: number;
  readonly size: number;
}

/** Where everything is in a space's memory: plain numbers, posted to worker threads with the memory. */
export interface KernelLayout {
  readonly threads: number;
  /** Words shared by the threads: the store's next free byte (absolute), the UTC day the places hold. */
  readonly storeTopAt: number;
  readonly dayAt: number;
  readonly runsAt: number;
  readonly runRecords: readonly number[];
  readonly rowRuns: number;
  readonly piecesAt: number;
  readonly pieceCount: number;
  readonly sepAt: number;
  readonly placesAt: readonly number[];
  readonly programAt: readonly number[];
  readonly programOps: readonly number[];
  readonly json: number;
  readonly tablesAt: readonly number[];
  /** setRecords' table of addresses; 0 when the kernel renders nothing. */
  readonly configAt: number;
  readonly index: { readonly dir: number; readonly dirBits: number; readonly blk: number; readonly ids: number; readonly pairNet: number; readonly pairSig: number; readonly netFlags: number };
  readonly threadAt: readonly number[];
  readonly regions: ThreadRegions;
  readonly inputBytes: number;
  readonly sinkBytes: number;
  readonly chunkBytes: number;
  /** The output regions (outputRegions), each outBytes long. */
  readonly outAt: readonly number[];
  readonly outBytes: number;
  /** Where the store starts: places are offsets from here. */
  readonly storeBase: number;
}

/** The memory a batch's threads share, and where everything is in it (postable to worker threads). */
export interface KernelSpace {
  readonly memory: WasmMemory;
  readonly layout: KernelLayout;
  /** The snapshot, its columns in the memory: what worker threads open (fromSharedTrusted). */
  readonly shared: SharedSnapshot;
}

/** A new memory for a space, of at least `bytes` (it grows as needed, to 2 GB). */
export function newSpaceMemory(bytes: number): WasmMemory {
  return new wasm.Memory({ initial: Math.ceil(Math.max(bytes, 16 * PAGE) / PAGE), maximum: MAX_PAGES, shared: true });
}

/** Grows `memory` until it holds `bytes`. */
function reach(memory: WasmMemory, bytes: number): void {
  const now = memory.buffer.byteLength;
  if (bytes <= now) return;
  // At least doubling (to MAX_PAGES), so that growing is rare; another thread may have grown it meanwhile.
  const want = Math.min(MAX_PAGES * PAGE, Math.max(bytes, 2 * now));
  if (bytes > MAX_PAGES * PAGE) throw new RangeError(`the batch kernel's memory would pass ${MAX_PAGES * PAGE} bytes`);
  try {
    memory.grow(Math.ceil((want - now) / PAGE));
  } catch (e) {
    if (memory.buffer.byteLength < bytes) throw e;
  }
}

/** A snapshot already in a space's memory (load.ts): its shared form, and where the memory is free after it. */
export interface LoadedSnapshot {
  readonly memory: WasmMemory;
  readonly shared: SharedSnapshot;
  /** From here on the memory is the space's (its bytes may be anything: what must start as zeros is cleared). */
  readonly freeFrom: number;
}

/**
 * Lays out a new space for `threads` threads over `intel` (in the thread
 * that opened it): copies its columns into a new memory, or takes them
 * where `loaded` put them; writes the shape.
 */
export function createKernelSpace(intel: IpIntel, shape: RowShape, threads: number, loaded?: LoadedSnapshot): KernelSpace {
  const { dirBits } = snapshotColumns(intel);
  const memory = loaded?.memory ?? newSpaceMemory(96 * 1024 * 1024);
  // Memory past its length now is new when it grows, so zeros already: zero() clears only what lies before.
  const dirty = memory.buffer.byteLength;
  let at = loaded?.freeFrom ?? 64; // address 0 stays unused
  const take = (n: number): number => {
    const start = at;
    at = align(at + n);
    reach(memory, at);
    return start;
  };
  const bytes = (): Uint8Array => new Uint8Array(memory.buffer);
  const put = (v: ArrayBufferView): number => {
    const start = take(v.byteLength);
    bytes().set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), start);
    return start;
  };
  const storeTopAt = take(4);
  const dayAt = take(4);
  const { runs, rowRuns, pieces, render } = shape;
  const runsAt = take(RUN_BYTES * runs.length);
  const piecesAt = put(Int32Array.from(pieces));
  const sepAt = put(new Uint8Array([44, 10])); // ",\n"
  const placesAt = runs.map((r) => take(8 * r.records));
  /** Regions that must start as zeros, in memory that may hold anything (a loaded snapshot's scratch). */
  const zero = (start: number, n: number): void => void new Uint8Array(memory.buffer, start, Math.max(0, Math.min(n, dirty - start))).fill(0);
  runs.forEach((r, i) => zero(placesAt[i]!, 8 * r.records));

  // The snapshot's columns, once, where both the kernel and the threads' results read them.
  const shared =
    loaded?.shared ??
    shareInto(intel, (n) => {
      const start = take(n); // may grow the memory: its buffer is read after
      return new Uint8Array(memory.buffer, start, n);
    });
  const col = (name: string): number => shared.columns[name]!.byteOffset;
  // A 24-bit id at the end of v4.blk is read as 32 bits: one byte past it must be memory (the next region is).
  const index = { dir: col('v4.dir'), dirBits, blk: col('v4.blk'), ids: col('leaf.ids'), pairNet: col('pair.net'), pairSig: col('pair.sig'), netFlags: col('net.flags') };
  const programAt = runs.map(() => 0);
  const programOps = runs.map(() => 0);
  const tablesAt = [0, 0, 0, 0];
  let configAt = 0;
  if (render !== null && render.programs.some((p) => p !== null)) {
    const config = new Uint32Array(RECORD_COLUMNS.length + 5);
    RECORD_COLUMNS.forEach((name, i) => (config[i] = col(name)));
    const n = RECORD_COLUMNS.length;
    config[n] = put(render.literals);
    // The tables of cells by id start empty (zero pages): threads fill what the kernel asks for.
    TABLE_IDS.forEach((ids, t) => {
      config[n + 1 + t] = tablesAt[t] = take(8 * ids);
      zero(tablesAt[t], 8 * ids);
    });
    configAt = put(config);
    render.programs.forEach((p, i) => {
      if (p === null || i >= runs.length) return;
      programAt[i] = put(p);
      programOps[i] = p.length / 3;
    });
  }
  runs.forEach((r, i) => {
    const joins = r.joins === null ? 0 : put(Uint32Array.from(r.joins));
    const kind = r.joins !== null ? RUN_JOINED : programOps[i]! > 0 ? RUN_CELLS : RUN_TEXT;
    const a = kind === RUN_JOINED ? joins : programAt[i]!;
    const b = kind === RUN_JOINED ? r.joins!.length : programOps[i]!;
    new Int32Array(memory.buffer, runsAt + RUN_BYTES * i, 5).set([r.slot, placesAt[i]!, kind, a, b]);
  });
  const inputBytes = kernelSizing.input;
  const sinkBytes = kernelSizing.sink;
  const nr = Math.max(1, rowRuns);
  let off = 0;
  const region = (n: number): number => {
    const start = off;
    off = align(off + n);
    return start;
  };
  const regions: ThreadRegions = {
    status: region(32),
    queue: region(12 * GROUP),
    leaves: region(4 * GROUP),
    keys: region(4 * KEYS * GROUP),
    ids: region(4 * nr * GROUP),
    missing: region(4 * nr * GROUP),
    warmRows: region(4 * nr * GROUP),
    warmIds: region(8 * nr * GROUP),
    input: region(inputBytes),
    sink: region(sinkBytes),
    size: 0,
  };
  const threadAt = Array.from({ length: threads }, () => take(off));
  // Each thread's regions start as zeros too: nothing there is read before it is written, but a
  // fault that read one early would read zeros, not the scratch's file bytes.
  for (const t of threadAt) zero(t, off);
  const outBytes = kernelSizing.out;
  const outAt = Array.from({ length: outputRegions(threads) }, () => take(outBytes));
  const storeBase = align(at);
  reach(memory, storeBase + kernelSizing.store);
  Atomics.store(new Int32Array(memory.buffer, storeTopAt, 1), 0, storeBase);
  Atomics.store(new Int32Array(memory.buffer, dayAt, 1), 0, -1);
  const layout: KernelLayout = {
    threads,
    storeTopAt,
    dayAt,
    runsAt,
    runRecords: runs.map((r) => r.records),
    rowRuns,
    piecesAt,
    pieceCount: pieces.length,
    sepAt,
    placesAt,
    programAt,
    programOps,
    json: render?.json === true ? 1 : 0,
    tablesAt,
    configAt,
    index,
    threadAt,
    regions: { ...regions, size: off },
    inputBytes,
    sinkBytes,
    chunkBytes: kernelSizing.chunk,
    outAt,
    outBytes,
    storeBase,
  };
  return { memory, layout, shared };
}

/** One thread's kernel over a space: its instance, its regions, views of the memory. */
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

/** A view of output region `region` of a space (any thread's). */
export function regionView(space: Pick<KernelSpace, 'memory' | 'layout'>, region: number): Uint8Array {
  return new Uint8Array(space.memory.buffer, space.layout.outAt[region], space.layout.outBytes);
}
