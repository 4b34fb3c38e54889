/**
 * The row path of dotted-decimal IPv4 lines: from the leaf's record ids
 * (`leafRecordsMany` of @ipintel/core/internal) straight to cached bytes.
 *
 * A leaf is a (geo row, network row, signal set) triple, and results of
 * leaves sharing a record share that record's frozen sub-object. So every
 * byte of an IPv4 row but the address depends on one record at most (the
 * evidence on a key of its own: RECORD_OF): the row layout (template.ts)
 * is folded once into *runs*, each the bytes of consecutive segments that
 * depend on the same record (or on none: the version is always 4 here, the
 * attribution is the snapshot's), literals included. A CSV row of all
 * columns is then the address and five runs (version and geo; network;
 * signals; evidence; risk, attribution and the line end). Rendered runs live back to back in one byte store, found by
 * record id in a typed array of (start, length): one read, then one copy.
 *
 * Rows are written in groups (up to GROUP lines): all the group's index
 * lookups (lookupMany), then all its record ids (leafRecordsMany), then all
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
import { leafRecordsMany, lookupMany, resultForLeaf } from '@ipintel/core/internal';
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
/** Record keys per queued line (the slots of RECORD_OF). */
const KEYS = 4;
const DAY_MS = 86_400_000;

/** Lines per staged group. */
export const GROUP = 256;

/** Consecutive pieces of an IPv4 row that depend on one record (`slot`) or none (-1). */
interface Run {
  readonly slot: number;
  /** Literal text, or a group segment's renderer. */
  readonly parts: readonly (string | ((r: CheckResult) => string))[];
  /** By record id (id 0 when slot is -1): [start + 1, length] of the rendered bytes in the store; 0 = not rendered. */
  places: Int32Array;
}

/** Rendered runs, back to back in one growing buffer (places are offsets, so growing keeps them valid). */
class RunStore {
  bytes = new Uint8Array(1 << 16);
  used = 0;
  private readonly encoder = new TextEncoder();
  /** `bytes` as a DataView (ByteSink.copyRange), made again when `bytes` grows. */
  private view: DataView | null = null;

  words(): DataView {
    if (this.view === null || this.view.buffer !== this.bytes.buffer) this.view = new DataView(this.bytes.buffer);
    return this.view;
  }

  /** Stores `text` as UTF-8; returns its start. */
  put(text: string): number {
    const max = text.length * 3;
    if (this.used + max > this.bytes.length) {
      const next = new Uint8Array(Math.max(2 * this.bytes.length, this.used + max));
      next.set(this.bytes.subarray(0, this.used));
      this.bytes = next;
    }
    const start = this.used;
    this.used += this.encoder.encodeInto(text, this.bytes.subarray(start)).written;
    return start;
  }
}

/** An IPv4 row: runs, with the address between some of them. */
type Piece = Run | 'ip';

/** Folds the template's segments and tail into runs around the address (see the module comment); `ids[slot]` is the size of each record table. */
function compileRuns(template: RowTemplate, sizes: readonly number[]): Piece[] {
  const decoder = new TextDecoder();
  const pieces: Piece[] = [];
  let slot = -1;
  let parts: (string | ((r: CheckResult) => string))[] = [];
  const close = (): void => {
    if (parts.length > 0) pieces.push({ slot, parts, places: new Int32Array(2 * (slot < 0 ? 1 : sizes[slot]!)) });
    slot = -1;
    parts = [];
  };
  for (const seg of template.segments) {
    if (seg.kind === 'ip') {
      parts.push(decoder.decode(seg.pre));
      close();
      pieces.push('ip');
    } else if (seg.kind === 'version') parts.push(decoder.decode(seg.v4));
    else {
      const s = RECORD_OF[seg.group];
      if (s >= 0 && slot >= 0 && s !== slot) close();
      if (s >= 0) slot = s;
      parts.push(seg.text);
    }
  }
  parts.push(decoder.decode(template.tail));
  close();
  return pieces;
}

export class RecordRows {
  /** The group: addresses, their leaves, the lines' [start, end) in the block, the leaves' record ids (3 per line). */
  private readonly addrs = new Uint32Array(GROUP);
  private readonly leaves = new Uint32Array(GROUP);
  private readonly starts = new Uint32Array(GROUP);
  private readonly ends = new Uint32Array(GROUP);
  private readonly ids = new Uint32Array(3 * GROUP);
  /** Per queued line, its KEYS record keys (RECORD_OF). */
  private readonly keys = new Uint32Array(KEYS * GROUP);
  /** Per network row: 1 when its routing is inferred, 0 when not, -1 not known yet (read from its first result). */
  private readonly inferred: Int8Array;
  /** Lines queued in the group. */
  size = 0;
  private readonly pieces: Piece[];
  private readonly runs: Run[];
  /** Per queued line and run: where the run's bytes are in the store, and how many. */
  private readonly at: Int32Array;
  private readonly len: Int32Array;
  private readonly store = new RunStore();
  private day = -1;

  constructor(
    private readonly intel: IpIntel,
    template: RowTemplate,
  ) {
    const c = intel.info.counts;
    this.pieces = compileRuns(template, [c.geo_records, c.network_records, c.signal_sets, 2 * c.signal_sets]);
    this.inferred = new Int8Array(c.network_records).fill(-1);
    this.runs = this.pieces.filter((p): p is Run => p !== 'ip');
    this.at = new Int32Array(GROUP * this.runs.length);
    this.len = new Int32Array(GROUP * this.runs.length);
  }

  /** Call at the start of each block: network rows change with the UTC day. */
  startBlock(): void {
    const today = Math.floor(Date.now() / DAY_MS);
    if (today === this.day) return;
    this.day = today;
    for (const r of this.runs) if (r.slot === 1) r.places = new Int32Array(r.places.length);
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
    leafRecordsMany(this.intel, this.leaves, n, this.ids);
    this.keyLines(n);
    // 1. Every run's place, rendering what is missing.
    const runs = this.runs;
    const nr = runs.length;
    for (let j = 0; j < n; j++) {
      for (let k = 0; k < nr; k++) {
        const run = runs[k]!;
        const id = run.slot < 0 ? 0 : this.keys[KEYS * j + run.slot]!;
        if (run.places[2 * id] === 0) this.render(run, id, j);
        this.at[j * nr + k] = run.places[2 * id]! - 1;
        this.len[j * nr + k] = run.places[2 * id + 1]!;
      }
    }
    // 2. The rows.
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

  /** The record keys of the n queued lines, from their record ids (RECORD_OF). */
  private keyLines(n: number): void {
    const ids = this.ids;
    const keys = this.keys;
    for (let j = 0; j < n; j++) {
      const net = ids[3 * j + 1]!;
      let inferred = this.inferred[net]!;
      if (inferred < 0) {
        inferred = resultForLeaf(this.intel, this.leaves[j]!, '0.0.0.0', 4).evidence.routing === 'inferred' ? 1 : 0;
        this.inferred[net] = inferred;
      }
      keys[KEYS * j] = ids[3 * j]!;
      keys[KEYS * j + 1] = net;
      keys[KEYS * j + 2] = ids[3 * j + 2]!;
      keys[KEYS * j + 3] = 2 * ids[3 * j + 2]! + inferred;
    }
  }

  /** Renders run `p` for record `id` from the result of queued line j's leaf (which has that record). */
  private render(p: Run, id: number, j: number): void {
    const r = resultForLeaf(this.intel, this.leaves[j]!, '0.0.0.0', 4);
    let text = '';
    for (const part of p.parts) text += typeof part === 'string' ? part : part(r);
    const start = this.store.put(text);
    p.places[2 * id] = start + 1;
    p.places[2 * id + 1] = this.store.used - start;
  }
}

const COMMA_LF = new Uint8Array([44, 10]);
