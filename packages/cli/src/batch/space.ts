/**
 * The memory a batch's threads share with the batch kernel (kernel.ts,
 * kernel/rows.ts), laid out once by the main thread: a KernelSpace.
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
import { TABLE_IDS, type RenderSetup } from './render-setup.js';

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
export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Lines per group (the kernel's stages run over a group). */
export const GROUP = 256;
/** Record keys per queued line: geo row, network row, signal set, evidence key, pair. */
export const KEYS = 5;

const PAGE = 65536;
/** The memory's most pages, as the kernel declares it: 2 GB (places are i32 offsets). */
const MAX_PAGES = 32768;
/** The most bytes a kernel space's memory can grow to (MAX_PAGES pages). */
export const MAX_SPACE_BYTES = MAX_PAGES * PAGE;
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
  /**
   * Words shared by the threads: the store's next free byte (absolute), the
   * UTC day the places hold, and how many times the store was emptied (a
   * thread that sees it move leaves the chunk it had: records.ts).
   */
  readonly storeTopAt: number;
  readonly dayAt: number;
  readonly epochAt: number;
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
export function reach(memory: WasmMemory, bytes: number): void {
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
  const epochAt = take(4);
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
  Atomics.store(new Int32Array(memory.buffer, epochAt, 1), 0, 0);
  const layout: KernelLayout = {
    threads,
    storeTopAt,
    dayAt,
    epochAt,
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


export function regionView(space: Pick<KernelSpace, 'memory' | 'layout'>, region: number): Uint8Array {
  return new Uint8Array(space.memory.buffer, space.layout.outAt[region], space.layout.outBytes);
}
