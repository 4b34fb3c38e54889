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
 * Hot path, per line:
 *   1. find LF, trim padding on bytes;
 *   2. strict dotted-decimal IPv4 parsed from the bytes (core's own
 *      parseIPv4Bytes: the same policy as check()) and queued;
 *   3. per group of queued lines (records.ts): all index lookups, all record
 *      ids, then each row: its segments (pre-encoded per shared sub-object,
 *      see template.ts) and the address bytes copied into the output.
 * Anything else (IPv6, errors) takes the general path, after the queued
 * lines are written (order is kept): decode, intel.check(), then the same
 * segments.
 * (A per-leaf row cache was measured and dropped: no faster on small
 * snapshots, slower and 100 MB bigger on a world-sized one.)
 *
 * @module
 */
import { TextDecoder } from 'node:util';
import { IpIntelError, parseIPv4Bytes, type CheckResult, type IpIntel } from '@ipintel/core';
import { isPadding } from '../address-text.js';
import { GROUP, RecordRows } from './records.js';
import { ByteSink } from './sink.js';
import type { RowTemplate } from './template.js';

/** Longest bad input echoed back in an error row. */
export const ECHO_LIMIT = 256;

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
}

const COMMA_LF = new Uint8Array([44, 10]);

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

  constructor(intel: IpIntel, template: RowTemplate) {
    this.intel = intel;
    this.template = template;
    this.joined = template.output === 'json';
    this.records = new RecordRows(intel, template);
  }

  /**
   * Processes one block. `reuse` is a spare output buffer (from a block
   * already written) to write into instead of allocating: big fresh buffers
   * cost page faults and GC, recycled ones cost nothing.
   */
  process(input: Uint8Array, reuse?: Uint8Array): BlockOutput {
    const intel = this.intel;
    const records = this.records;
    records.startBlock();
    const joined = this.joined;
    const want = Math.max(65536, Math.ceil(input.length * this.ratio * 1.25));
    const sink = new ByteSink(reuse !== undefined && reuse.length >= want / 2 ? reuse : new Uint8Array(want));
    const n = input.length;
    let lines = 0;
    let rows = 0;
    let invalid = 0;
    let firstInvalidLine = 0;
    let firstInvalidMessage = '';
    let pos = 0;
    while (pos < n) {
      // 1. The next physical line [s, e), trimmed of padding (address-text.ts).
      let end = input.indexOf(10, pos);
      if (end < 0) end = n;
      let s = pos;
      let e = end;
      pos = end + 1;
      lines++;
      while (s < e && isPadding(input[s]!)) s++;
      while (e > s && isPadding(input[e - 1]!)) e--;
      if (s === e || input[s] === 35 /* # */) continue;
      // 2. Fast path: dotted-decimal IPv4, queued for the next group; the address is the input bytes.
      const a = parseIPv4Bytes(input, s, e);
      if (a >= 0) {
        records.add(a, s, e);
        if (records.size === GROUP) {
          records.flush(sink, input, joined, rows);
          rows += GROUP;
        }
        continue;
      }
      // 3. General path, after the queued lines.
      const queued = records.size;
      records.flush(sink, input, joined, rows);
      rows += queued;
      const line = this.decoder.decode(input.subarray(s, e));
      if (joined && rows > 0) sink.append(COMMA_LF);
      rows++;
      let r: CheckResult;
      try {
        r = intel.check(line);
      } catch (err) {
        // A snapshot found damaged on its first IPv6 line (its IPv6 index is decoded then) is not a bad line: the batch stops, exit 3.
        if (!(err instanceof IpIntelError) || err.code === 'snapshot_corrupt') throw err;
        const echo = line.length > ECHO_LIMIT ? `${line.slice(0, ECHO_LIMIT)}…` : line;
        sink.putText(this.template.errorRow(echo, err.code, err.message));
        if (!joined) sink.putText('\n');
        invalid++;
        if (firstInvalidLine === 0) {
          firstInvalidLine = lines;
          firstInvalidMessage = err.message;
        }
        continue;
      }
      this.writeRow(sink, r);
    }
    const queued = records.size;
    records.flush(sink, input, joined, rows);
    rows += queued;
    this.ratio = n > 0 ? Math.max(1, sink.pos / n) : this.ratio;
    return { bytes: sink.view(), lines, rows, invalid, firstInvalidLine, firstInvalidMessage };
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
