/**
 * The host of the batch kernel (kernel/rows.ts, WebAssembly): its memory,
 * laid out once per thread, and typed views of it.
 *
 * The kernel does the per-line work of dotted-decimal IPv4 lines and renders
 * geo and network runs (records.ts says how they are used); this module
 * copies what it reads into its memory (core's `snapshotColumns`: the IPv4
 * index, the leaves' ids, the pairs' records, and with a render setup the
 * geo and network columns and the strings), and gives the batch writer
 * places in it for everything the two share: the queued lines, their record
 * keys, each run's places and the store of rendered runs, the input piece
 * and the rows' output. Only the store grows, at the end of the memory;
 * growing replaces the memory's buffer, so every view is made again then
 * (`refresh`), and callers read views through this object, never keep them.
 *
 * @module
 */
import type { IpIntel } from '@ipintel/core';
import { snapshotColumns } from '@ipintel/core/internal';
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
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Memory: new (descriptor: { initial: number }) => WasmMemory;
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
/** RowKernel#render's answers other than where the run ends: core's writers must render it; the store is short. */
export const RENDER_NEEDS_HOST = -2;
export const RENDER_NO_ROOM = -1;

const PAGE = 65536;
/** Input bytes the kernel reads at once; a longer block is cut at line ends (block.ts). Any address is far shorter. */
export const INPUT_BYTES = 256 * 1024;
/** Room for one call's rows (a group's CSV rows take ~110 KB); rows that do not fit wait for the next call. */
export const SINK_BYTES = 1024 * 1024;
/**
 * The store's first room (a CSV run of the world snapshot's million random
 * lines fills ~17 MB, NDJSON ~67 MB); past it the memory grows, by at least
 * its size again. Room not yet written costs address space, not memory.
 */
export const STORE_BYTES = 64 * 1024 * 1024;
/** The sizes a new kernel takes (tests shrink them to reach the paths past each: the store's growth, pieces, rows written in several calls). */
export const kernelSizing = { store: STORE_BYTES, input: INPUT_BYTES, sink: SINK_BYTES };

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
}

const align = (n: number): number => (n + 63) & ~63;

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

export class RowKernel {
  readonly fn: KernelExports;
  private readonly memory: WasmMemory;
  /** Addresses in the memory (bytes). */
  readonly statusAt: number;
  readonly queueAt: number;
  readonly leavesAt: number;
  readonly keysAt: number;
  readonly idsAt: number;
  readonly missingAt: number;
  /** Scratch of warm(): record ids, then string ids. */
  readonly warmRowsAt: number;
  readonly warmIdsAt: number;
  readonly piecesAt: number;
  readonly runsAt: number;
  readonly sepAt: number;
  readonly inputAt: number;
  readonly sinkAt: number;
  readonly storeAt: number;
  /** Room at inputAt and at sinkAt (kernelSizing when made). */
  readonly inputBytes = kernelSizing.input;
  readonly sinkBytes = kernelSizing.sink;
  /** Per run: where its render program is and how many ops it has (0: the kernel does not render it). */
  private readonly programAt: number[];
  private readonly programOps: number[];
  /** JSON values (1) or CSV cells (0) in the programs. */
  private readonly json: number;
  /** Where each table of cells by id is (render-setup.ts TABLE_OPS), 0 without a render setup. */
  private readonly tablesAt: number[] = [0, 0, 0, 0];
  private readonly placesAt: number[];
  private readonly runs: readonly KernelRun[];

  /** Views, made again by refresh(). */
  bytes!: Uint8Array;
  status!: Uint32Array;
  queue!: Uint32Array;
  leaves!: Uint32Array;
  keys!: Uint32Array;
  ids!: Uint32Array;
  missing!: Uint32Array;
  warmRows!: Uint32Array;
  /** Per run (in `runs` order): [start + 1, length] of each record's rendered bytes in the store, 0 while not rendered. */
  places!: Int32Array[];
  /** The store: rendered runs, from storeAt to the end of the memory. */
  store!: Uint8Array;

  /**
   * `runs`: every run the writer caches (the first `rowRuns` of them are
   * a row's, the rest only feed joined runs); `pieces`: a row, in order:
   * -1 for the line's address, else the number of one of the row's runs;
   * `render`: the programs of the runs the kernel renders (null: none).
   */
  constructor(intel: IpIntel, runs: readonly KernelRun[], rowRuns: number, pieces: readonly number[], render: RenderSetup | null = null) {
    const { dirBits, columns: c } = snapshotColumns(intel);
    this.runs = runs;
    const copies: [number, ArrayBufferView][] = [];
    let at = 64; // address 0 stays unused
    const take = (n: number): number => {
      const start = at;
      at = align(at + n);
      return start;
    };
    const copy = (v: ArrayBufferView, slack = 0): number => {
      const start = take(v.byteLength + slack);
      copies.push([start, v]);
      return start;
    };
    this.statusAt = take(32);
    this.queueAt = take(12 * GROUP);
    this.leavesAt = take(4 * GROUP);
    this.keysAt = take(4 * KEYS * GROUP);
    this.idsAt = take(4 * Math.max(1, rowRuns) * GROUP);
    this.missingAt = take(4 * Math.max(1, rowRuns) * GROUP);
    this.warmRowsAt = take(4 * Math.max(1, rowRuns) * GROUP);
    this.warmIdsAt = take(8 * Math.max(1, rowRuns) * GROUP);
    this.piecesAt = take(4 * pieces.length);
    this.runsAt = take(8 * runs.length);
    this.sepAt = take(2);
    const dirAt = copy(c['v4.dir']);
    const blkAt = copy(c['v4.blk'], 4); // a 24-bit id is read as 32 bits
    const idsAt = copy(c['leaf.ids']);
    const pairNetAt = copy(c['pair.net']);
    const pairSigAt = copy(c['pair.sig']);
    const flagsAt = copy(c['net.flags']);
    let configAt = 0;
    this.programAt = runs.map(() => 0);
    this.programOps = runs.map(() => 0);
    this.json = render?.json === true ? 1 : 0;
    if (render !== null && render.programs.some((p) => p !== null)) {
      const config = new Uint32Array(RECORD_COLUMNS.length + 5);
      RECORD_COLUMNS.forEach((name, i) => (config[i] = copy(c[name])));
      const n = RECORD_COLUMNS.length;
      config[n] = copy(render.literals);
      // The tables of cells by id start empty (zero pages): the host fills what the kernel asks for.
      TABLE_IDS.forEach((ids, t) => (config[n + 1 + t] = this.tablesAt[t] = take(8 * ids)));
      configAt = copy(config);
      render.programs.forEach((p, i) => {
        if (p === null || i >= runs.length) return;
        this.programAt[i] = copy(p);
        this.programOps[i] = p.length / 3;
      });
    }
    this.placesAt = runs.map((r) => take(8 * r.records));
    this.inputAt = take(this.inputBytes);
    this.sinkAt = take(this.sinkBytes);
    this.storeAt = at;
    this.memory = new wasm.Memory({ initial: Math.ceil((at + kernelSizing.store) / PAGE) });
    this.refresh();
    const b = this.bytes;
    for (const [to, v] of copies) b.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), to);
    const words = new Int32Array(this.memory.buffer);
    runs.forEach((r, i) => {
      words[this.runsAt / 4 + 2 * i] = r.slot;
      words[this.runsAt / 4 + 2 * i + 1] = this.placesAt[i]!;
    });
    pieces.forEach((p, i) => (words[this.piecesAt / 4 + i] = p));
    b[this.sepAt] = 44; // ","
    b[this.sepAt + 1] = 10; // LF
    const instance = new wasm.Instance(kernelModule(), { env: { memory: this.memory } });
    this.fn = instance.exports as unknown as KernelExports;
    this.fn.setIndex(dirAt, dirBits, blkAt, idsAt, pairNetAt, pairSigAt, flagsAt);
    if (configAt !== 0) this.fn.setRecords(configAt);
  }

  /** Makes every view again (after the memory grew). */
  private refresh(): void {
    const buf = this.memory.buffer;
    this.bytes = new Uint8Array(buf);
    this.status = new Uint32Array(buf, this.statusAt, 8);
    this.queue = new Uint32Array(buf, this.queueAt, 3 * GROUP);
    this.leaves = new Uint32Array(buf, this.leavesAt, GROUP);
    this.keys = new Uint32Array(buf, this.keysAt, KEYS * GROUP);
    this.ids = new Uint32Array(buf, this.idsAt, (this.missingAt - this.idsAt) / 4);
    this.missing = new Uint32Array(buf, this.missingAt, (this.warmRowsAt - this.missingAt) / 4);
    this.warmRows = new Uint32Array(buf, this.warmRowsAt, (this.warmIdsAt - this.warmRowsAt) / 4);
    this.places = this.runs.map((r, i) => new Int32Array(buf, this.placesAt[i], 2 * r.records));
    this.store = new Uint8Array(buf, this.storeAt);
  }

  /**
   * Makes the store at least `bytes` long, growing the memory (by at least
   * its size again, so that growing is rare); every view is made again.
   */
  growStore(bytes: number): void {
    if (this.store.length >= bytes) return;
    const now = this.memory.buffer.byteLength;
    const want = Math.max(this.storeAt + bytes, 2 * now);
    this.memory.grow(Math.ceil((want - now) / PAGE));
    this.refresh();
  }

  /** Whether the kernel renders run `r` itself (it has a program). */
  renders(r: number): boolean {
    return this.programOps[r]! > 0;
  }

  /** Run r's program ([op, a, b] triples; empty when the kernel does not render it). */
  program(r: number): Uint32Array {
    return new Uint32Array(this.memory.buffer, this.programAt[r], 3 * this.programOps[r]!);
  }

  /** Whether table t (render-setup.ts TABLE_OPS) has the cell of `id`. */
  hasCell(t: number, id: number): boolean {
    return new Int32Array(this.memory.buffer, this.tablesAt[t]! + 8 * id, 2)[1] !== 0;
  }

  /** Gives table t the cell of `id`: `length` bytes at store offset `at`. */
  setCell(t: number, id: number, at: number, length: number): void {
    const e = new Int32Array(this.memory.buffer, this.tablesAt[t]! + 8 * id, 2);
    e[0] = this.storeAt + at;
    e[1] = length + 1;
  }

  /**
   * Renders run `r` for record `row` into the store from offset `from`:
   * where it ends (a store offset), or RENDER_NO_ROOM, or RENDER_NEEDS_HOST.
   */
  render(r: number, row: number, today: number, from: number): number {
    const end = this.fn.render(this.programAt[r]!, this.programOps[r]!, row, today, this.json, this.storeAt + from, this.storeAt + this.store.length);
    // The kernel answers 0 (needs the host) or 1 (no room), else an address, which is past both.
    return end === 0 ? RENDER_NEEDS_HOST : end === 1 ? RENDER_NO_ROOM : end - this.storeAt;
  }

  /** Reads ahead what rendering `n` geo rows (kind 0) or network rows (1), listed in warmRows, will read. */
  warm(kind: 0 | 1, n: number): number {
    return this.fn.warm(kind, this.warmRowsAt, n, this.warmIdsAt);
  }

  /** Bytes of the memory (for tests and figures). */
  get size(): number {
    return this.memory.buffer.byteLength;
  }
}
