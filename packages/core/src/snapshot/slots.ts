/**
 * A table of values built on first use, one slot per id, in pages that are
 * allocated when an id in them is first set: memory grows with the ids in
 * use, not with the size of the table, so a snapshot costs nothing here
 * right after it is opened. A read is one more (cached) load than a flat
 * array's.
 *
 * @module
 */

const PAGE_BITS = 12;
const PAGE = 1 << PAGE_BITS;
const IN_PAGE = PAGE - 1;

export class PagedSlots<T> {
  private pages: (T | undefined)[][];
  /** Pages allocated, for tests and memory accounting. */
  allocated = 0;

  constructor(readonly size: number) {
    this.pages = new Array<(T | undefined)[]>(Math.ceil(size / PAGE));
  }

  get(i: number): T | undefined {
    const page = this.pages[i >>> PAGE_BITS];
    return page === undefined ? undefined : page[i & IN_PAGE];
  }

  set(i: number, value: T): void {
    let page = this.pages[i >>> PAGE_BITS];
    if (page === undefined) {
      page = new Array<T | undefined>(PAGE);
      this.pages[i >>> PAGE_BITS] = page;
      this.allocated++;
    }
    page[i & IN_PAGE] = value;
  }

  /** Forgets every value (the pages go to the GC). */
  clear(): void {
    this.pages = new Array<(T | undefined)[]>(this.pages.length);
    this.allocated = 0;
  }
}
