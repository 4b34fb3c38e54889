/**
 * The store of rendered runs, as one thread writes it: runs back to back in
 * chunks the thread claims from a space shared by every thread (the batch
 * kernel's memory, space.ts), so that threads never write the same bytes
 * and each run's bytes stay where they were written (places are offsets).
 *
 * A run is written between begin() and finish(), in one or more appends; a
 * run that outgrows its chunk moves whole to a new one (its bytes so far
 * copied), so a run is always contiguous.
 *
 * @module
 */
import type { CellWriter } from '@ipintel/core/internal';

/** The most room one cell may ask for (a record's longest string is a few hundred bytes; this is a bound on a bug, not a limit on data). */
export const MAX_CELL_BYTES = 1 << 26;

/** Where a RunStore claims its chunks: the batch kernel's memory, or a buffer of its own. */
export interface StoreSpace {
  /** `bytes` bytes no one else writes: their absolute start. */
  claim(bytes: number): number;
  /** The memory, covering at least `end` (a view: read it again after a claim). */
  view(end: number): Uint8Array;
}

/** A StoreSpace in a buffer of its own, doubled when short (for one thread; tests). */
export class OwnStoreSpace implements StoreSpace {
  private buf: Uint8Array;
  private top = 0;

  constructor(bytes: number) {
    this.buf = new Uint8Array(Math.max(1, bytes));
  }

  claim(bytes: number): number {
    const start = this.top;
    this.top += bytes;
    if (this.top > this.buf.length) {
      const grown = new Uint8Array(Math.max(this.top, 2 * this.buf.length));
      grown.set(this.buf);
      this.buf = grown;
    }
    return start;
  }

  view(): Uint8Array {
    return this.buf;
  }
}

export class RunStore {
  private readonly encoder = new TextEncoder();
  /** Where the next byte goes, and the end of this thread's chunk (absolute). */
  pos = 0;
  end = 0;
  /** Where the run being written starts. */
  private runStart = 0;

  constructor(
    private readonly space: StoreSpace,
    /** Bytes claimed at a time (more for a run that needs more). */
    private readonly chunk: number,
  ) {}

  /** The memory (a view: read it again after anything that may claim). */
  get bytes(): Uint8Array {
    return this.space.view(this.end);
  }

  /** Starts a run at the current position. */
  begin(): void {
    this.runStart = this.pos;
  }

  /**
   * Makes room for `n` more bytes of the run: past the chunk's end, claims
   * a new chunk and moves the run's bytes so far to its start.
   */
  room(n: number): void {
    if (this.pos + n <= this.end) return;
    const have = this.pos - this.runStart;
    const size = Math.max(this.chunk, have + n);
    const at = this.space.claim(size);
    if (have > 0) this.space.view(at + size).copyWithin(at, this.runStart, this.pos);
    this.runStart = at;
    this.pos = at + have;
    this.end = at + size;
  }

  /** Appends `text` as UTF-8. */
  appendText(text: string): void {
    this.room(text.length * 3);
    this.pos += this.encoder.encodeInto(text, this.bytes.subarray(this.pos, this.end)).written;
  }

  /** Appends a copy of the stored bytes [at, at + n) (a joined run's piece, maybe another thread's). */
  appendCopy(at: number, n: number): void {
    this.room(n);
    this.space.view(Math.max(at + n, this.end)).copyWithin(this.pos, at, at + n);
    this.pos += n;
  }

  /** Appends the cells of record `row` (literals and cell writers). */
  appendCells(parts: readonly (Uint8Array | CellWriter)[], row: number, today: number): void {
    for (const part of parts) {
      if (part instanceof Uint8Array) {
        this.room(part.length);
        this.bytes.set(part, this.pos);
        this.pos += part.length;
        continue;
      }
      let end = part(row, today, this.bytes.subarray(0, this.end), this.pos);
      // A writer that ran out of room wrote nothing that counts: grow and write again.
      for (let more = 256; end < 0; more *= 2) {
        // Bounded, so a store that fails to grow, or a writer that refuses any
        // room, stops the run with an error instead of spinning here forever.
        if (more > MAX_CELL_BYTES) throw new Error(`a cell of record ${row} asked for more than ${MAX_CELL_BYTES} bytes of room`);
        this.room(more);
        if (this.end - this.pos < more) throw new Error(`the rendered-run store did not grow to ${this.pos + more} bytes`);
        end = part(row, today, this.bytes.subarray(0, this.end), this.pos);
      }
      this.pos = end;
    }
  }

  /** Takes the bytes someone else wrote from `pos` up to `end` (inside the chunk: the kernel's renderer) as the run's. */
  take(end: number): void {
    this.pos = end;
  }

  /** Takes the bytes someone else wrote from `pos` up to `end` (inside the chunk: whole runs the kernel wrote and published). */
  advance(end: number): void {
    this.pos = end;
    this.runStart = end;
  }

  /** Leaves the rest of the chunk: the next bytes go to a new one. */
  newChunk(): void {
    this.runStart = this.pos;
    this.room(this.end - this.pos + 1);
  }

  /** Gives up the chunk in hand (the store was emptied: RowKernel#emptyStore): the next byte claims a new one. */
  leave(): void {
    this.pos = 0;
    this.end = 0;
    this.runStart = 0;
  }

  /** Ends the run: its absolute start (its length is pos minus that). */
  finish(): number {
    return this.runStart;
  }
}
