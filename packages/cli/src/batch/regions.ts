/**
 * The output regions of a run's shared memory (space.ts), lent to one block
 * at a time: a block's rows are written into its region, written out from
 * there, and the region is given back once the stream is done with it. When
 * none is free (every one in a block in hand or being written), a block
 * writes into a buffer of its own, as before regions.
 *
 * @module
 */
export class OutputRegions {
  private readonly free: number[] = [];

  constructor(count: number) {
    for (let i = count - 1; i >= 0; i--) this.free.push(i);
  }

  /** A free region, or -1. */
  take(): number {
    return this.free.pop() ?? -1;
  }

  /** Gives back a region (-1 is ignored). */
  give(region: number): void {
    if (region >= 0) this.free.push(region);
  }
}
