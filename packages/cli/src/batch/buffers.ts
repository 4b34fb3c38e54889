/**
 * A small free list of ArrayBuffers, so the blocks that go round between
 * threads are reused instead of allocated per block. Why: a worker's fast
 * path allocates almost nothing on its JS heap, so its GC seldom runs, and
 * buffers transferred in and dropped pile up as external memory (RSS grew
 * with input size before this). Reused buffers keep memory flat.
 *
 * @module
 */
export class BufferPool {
  private readonly free: ArrayBuffer[] = [];

  constructor(
    /** Buffers kept at most (the rest are left to the GC). */
    private readonly max: number,
    /** Smallest buffer allocated, so one buffer fits most requests. */
    private readonly minBytes: number,
  ) {}

  /** A view of `size` bytes over a free buffer that is big enough, or a new one. */
  take(size: number): Uint8Array {
    for (let i = this.free.length - 1; i >= 0; i--) {
      const ab = this.free[i]!;
      if (ab.byteLength >= size) {
        this.free.splice(i, 1);
        return new Uint8Array(ab, 0, size);
      }
    }
    return new Uint8Array(new ArrayBuffer(Math.max(size, this.minBytes)), 0, size);
  }

  /** Any free buffer (the most recently returned), or undefined. */
  takeAny(): ArrayBuffer | undefined {
    return this.free.pop();
  }

  /** Returns a buffer nobody uses any more (a detached one is ignored). */
  give(ab: ArrayBuffer): void {
    if (ab.byteLength > 0 && this.free.length < this.max) this.free.push(ab);
  }
}
