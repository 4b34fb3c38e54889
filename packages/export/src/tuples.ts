/**
 * Interning small tuples of non-negative integers without a string or an
 * array per tuple: a hash table over typed arrays. The export keys millions
 * of records by the ids of their groups' projections; string keys made the
 * garbage collector the largest cost of a world export.
 *
 * @module
 */

export class TupleTable {
  /** Tuple i is items[i*width .. i*width+width). */
  private items: Int32Array;
  private slots: Int32Array;
  private mask: number;
  count = 0;

  constructor(readonly width: number) {
    this.items = new Int32Array(Math.max(1, width) * 1024);
    this.slots = new Int32Array(2048).fill(-1);
    this.mask = 2047;
  }

  /** The id of `tuple` (a new one, in order of first sight, when it is new). */
  intern(tuple: ArrayLike<number>): number {
    const w = this.width;
    let i = this.hash(tuple) & this.mask;
    for (;;) {
      const at = this.slots[i]!;
      if (at < 0) break;
      if (this.equals(at, tuple)) return at;
      i = (i + 1) & this.mask;
    }
    const id = this.count++;
    if ((id + 1) * w > this.items.length) {
      const next = new Int32Array(this.items.length * 2);
      next.set(this.items);
      this.items = next;
    }
    for (let k = 0; k < w; k++) this.items[id * w + k] = tuple[k]!;
    this.slots[i] = id;
    if (this.count * 2 > this.slots.length) this.rehash();
    return id;
  }

  /** Element k of tuple `id`. */
  get(id: number, k: number): number {
    return this.items[id * this.width + k]!;
  }

  private hash(t: ArrayLike<number>): number {
    let h = 0x811c9dc5;
    for (let k = 0; k < this.width; k++) h = Math.imul(h ^ t[k]!, 0x01000193);
    return (h ^ (h >>> 15)) >>> 0;
  }

  private equals(id: number, t: ArrayLike<number>): boolean {
    const base = id * this.width;
    for (let k = 0; k < this.width; k++) if (this.items[base + k] !== t[k]) return false;
    return true;
  }

  private rehash(): void {
    const size = this.slots.length * 2;
    this.slots = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    const tuple = new Int32Array(this.width);
    for (let id = 0; id < this.count; id++) {
      for (let k = 0; k < this.width; k++) tuple[k] = this.items[id * this.width + k]!;
      let i = this.hash(tuple) & this.mask;
      while (this.slots[i]! >= 0) i = (i + 1) & this.mask;
      this.slots[i] = id;
    }
  }
}
