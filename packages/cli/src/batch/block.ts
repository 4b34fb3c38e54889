/**
 * One block of input bytes -> one block of output bytes. The same code runs
 * in a worker thread or in the main thread (single job), so both give
 * byte-identical output.
 *
 * Line rules: a line ends at LF; the padding `check` also trims (space, tab,
 * CR: see address-text.ts) is trimmed and nothing else; empty lines and lines
 * starting with `#` are skipped and produce no row; every other line produces
 * exactly one row, in order. A
 * line that is not an address produces an error row and is counted; the run
 * goes on. Echoed bad input is cut to ECHO_LIMIT characters.
 *
 * Hot path, in the batch kernel (records.ts, kernel.ts), per piece of the
 * block of up to `pieceBytes` (whole lines):
 *   1. find LF, trim padding on bytes;
 *   2. strict dotted-decimal IPv4 parsed from the bytes (the policy of
 *      core's parseIPv4Bytes, as check() has it) and queued;
 *   3. per group of queued lines: all index lookups, all record ids, all
 *      runs' places (rendering what is missing), then the rows: the address
 *      bytes and each run's cached bytes copied into the output.
 * Anything else (IPv6, errors) takes the general path, after the queued
 * lines are written (order is kept): decode, intel.check(), then the
 * segments (pre-encoded per shared sub-object, see template.ts).
 * (A per-leaf row cache was measured and dropped: no faster on small
 * snapshots, slower and 100 MB bigger on a world-sized one.)
 *
 * @module
 */
import { TextDecoder } from 'node:util';
import { IpIntelError, type CheckResult, type IpIntel } from '@ipintel/core';
import { isPadding } from '../address-text.js';
import { SCAN_FULL, SCAN_SLOW } from './kernel.js';
import type { KernelSpace } from './space.js';
import { RecordRows } from './records.js';
import { ByteSink } from './sink.js';
import type { RowTemplate } from './template.js';

/** Longest bad input echoed back in an error row. */
export const ECHO_LIMIT = 256;

/**
 * Bad input as echoed: cut to ECHO_LIMIT UTF-16 units with `…` appended, one
 * unit sooner when the cut would split a surrogate pair (an emoji), so the
 * echo stays well-formed text; short input as is.
 */
export function echoOf(line: string): string {
  if (line.length <= ECHO_LIMIT) return line;
  const last = line.charCodeAt(ECHO_LIMIT - 1);
  return `${line.slice(0, last >= 0xd800 && last <= 0xdbff ? ECHO_LIMIT - 1 : ECHO_LIMIT)}…`;
}

export interface BlockStats {
  /** Physical lines in the block (for line numbers), counting skipped ones. */
  readonly lines: number;
  /** Rows written. */
  readonly rows: number;
  /** Rows that carry an error. */
  readonly invalid: number;
  /** 1-based line number inside the block of the first invalid line, or 0. */
  readonly firstInvalidLine: number;
  /** Its error message ('' when none). */
  readonly firstInvalidMessage: string;
}

export interface BlockOutput extends BlockStats {
  /** Rows: each followed by LF (ndjson, csv) or joined by ",\n" with no trailer (json). */
  readonly bytes: Uint8Array;
  /** The output region of the kernel's memory the bytes are in (space.ts), or -1 when they are in a buffer of their own. */
  readonly region: number;
}

const COMMA_LF = new Uint8Array([44, 10]);

/** A block's output and counts while it is processed. */
interface BlockState {
  readonly sink: ByteSink;
  lines: number;
  rows: number;
  invalid: number;
  firstInvalidLine: number;
  firstInvalidMessage: string;
}

export class BlockProcessor {
  private readonly intel: IpIntel;
  private readonly template: RowTemplate;
  /** A BOM inside the input is kept, so check() rejects it (only the input's first one is dropped, see blocks.ts). */
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  private readonly joined: boolean;
  /** Output bytes per input byte of the last block, to size the next buffer. */
  private ratio = 16;

  /** The record-id path of dotted-decimal IPv4 lines (records.ts). */
  private readonly records: RecordRows;

  /**
   * The processor of thread `thread` of `space` (space.ts: the memory a
   * run's threads share, laid out for this template by rowsSpace); without
   * one, a space of its own for one thread.
   */
  constructor(intel: IpIntel, template: RowTemplate, space?: Pick<KernelSpace, 'memory' | 'layout'>, thread = 0) {
    this.intel = intel;
    this.template = template;
    this.joined = template.output === 'json';
    this.records = new RecordRows(intel, template, space, thread);
  }

  /**
   * Processes one block. `reuse` is a spare output buffer (from a block
   * already written) to write into instead of allocating: big fresh buffers
   * cost page faults and GC, recycled ones cost nothing. `day`: the UTC day
   * the block's rows are for (default today; a run on several threads gives
   * every block the day it set the shared places for, records.ts).
   * `region`: an output region of the kernel's memory to write the rows into
   * (space.ts; `reuse` is not used then); the result says whether they
   * stayed there.
   */
  process(input: Uint8Array, reuse?: Uint8Array, day?: number, region = -1): BlockOutput {
    const records = this.records;
    records.startBlock(day);
    const want = Math.max(65536, Math.ceil(input.length * this.ratio * 1.25));
    const sink =
      region >= 0
        ? new ByteSink(this.records.region(region), this.records.regionAt(region))
        : new ByteSink(reuse !== undefined && reuse.length >= want / 2 ? reuse : new Uint8Array(want));
    const n = input.length;
    const st: BlockState = { sink, lines: 0, rows: 0, invalid: 0, firstInvalidLine: 0, firstInvalidMessage: '' };
    for (let base = 0; base < n; ) {
      // 1. The next piece of whole lines the kernel takes, [base, end).
      let end = n;
      if (n - base > records.pieceBytes) {
        const lf = input.lastIndexOf(10, base + records.pieceBytes - 1);
        if (lf < base) {
          // A line longer than a piece is no address: the general path, on its own.
          const e = input.indexOf(10, base);
          const lineEnd = e < 0 ? n : e;
          st.lines++;
          this.lineOf(input, base, lineEnd, st);
          base = lineEnd + 1;
          continue;
        }
        end = lf + 1;
      }
      // 2. Its lines: IPv4 ones queued by the kernel and written a group at a time, the others here, in order.
      records.load(input, base, end);
      for (let pos = 0; pos < end - base; ) {
        const stop = records.scan(pos, end - base);
        st.lines += stop.lines;
        pos = stop.pos;
        if (stop.how === SCAN_FULL) this.flushQueued(st);
        else if (stop.how === SCAN_SLOW) {
          this.flushQueued(st);
          this.general(input, base + stop.slowStart, base + stop.slowEnd, st);
        }
      }
      this.flushQueued(st);
      base = end;
    }
    this.ratio = n > 0 ? Math.max(1, sink.pos / n) : this.ratio;
    const { lines, rows, invalid, firstInvalidLine, firstInvalidMessage } = st;
    return { bytes: sink.view(), region: sink.kernelAt >= 0 ? region : -1, lines, rows, invalid, firstInvalidLine, firstInvalidMessage };
  }

  /** Drops the shared places made for another day and marks them made for `day` (only while no thread has a block in hand: records.ts). */
  resetDay(day: number): void {
    this.records.resetDay(day);
  }

  /** Writes the rows of the lines the kernel queued. */
  private flushQueued(st: BlockState): void {
    const queued = this.records.size;
    this.records.flush(st.sink, this.joined, st.rows);
    st.rows += queued;
  }

  /** A physical line [s, e) of the block, already counted, that the kernel did not read: trimmed, skipped if empty or a comment, else the general path. */
  private lineOf(input: Uint8Array, s: number, e: number, st: BlockState): void {
    while (s < e && isPadding(input[s]!)) s++;
    while (e > s && isPadding(input[e - 1]!)) e--;
    if (s === e || input[s] === 35 /* # */) return;
    this.general(input, s, e, st);
  }

  /** The row of the trimmed line input[s, e) by check(): a result, or an error row. */
  private general(input: Uint8Array, s: number, e: number, st: BlockState): void {
    const sink = st.sink;
    const line = this.decoder.decode(input.subarray(s, e));
    if (this.joined && st.rows > 0) sink.append(COMMA_LF);
    st.rows++;
    let r: CheckResult;
    try {
      r = this.intel.check(line);
    } catch (err) {
      // A snapshot found damaged on its first IPv6 line (its IPv6 index is decoded then) is not a bad line: the batch stops, exit 3.
      if (!(err instanceof IpIntelError) || err.code === 'snapshot_corrupt') throw err;
      sink.putText(this.template.errorRow(echoOf(line), err.code, err.message));
      if (!this.joined) sink.putText('\n');
      st.invalid++;
      if (st.firstInvalidLine === 0) {
        st.firstInvalidLine = st.lines;
        st.firstInvalidMessage = err.message;
      }
      return;
    }
    this.writeRow(sink, r);
  }

  /** Copies a row of the general path: each segment's bytes (cached per sub-object by the template), with the result's own address text. */
  private writeRow(sink: ByteSink, r: CheckResult): void {
    const segs = this.template.segments;
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i]!;
      if (seg.kind === 'group') sink.append(seg.bytes(r));
      else if (seg.kind === 'version') sink.append(r.version === 4 ? seg.v4 : seg.v6);
      else {
        sink.append(seg.pre);
        sink.ensure(r.ip.length);
        sink.putAscii(r.ip);
      }
    }
    sink.append(this.template.tail);
  }
}
