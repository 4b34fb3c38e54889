/**
 * Knowing when an input went quiet, for the batch's block reader
 * (blocks.ts): its reads, with a QUIET mark in between when lines have been
 * waiting for more input for a while.
 *
 * Why a race and not a timer per line: a fast input must not pay for it.
 * One timer is armed only while the reader has something waiting, and a
 * read that is ready at once settles before any timer can fire (timers run
 * only once the event loop waits), so files and fast pipes never see QUIET.
 * A plain iterator and a hand-made race rather than an async generator and
 * Promise.race: --grep hands the reader a read per line, and those cost
 * ~0.6 µs a read over a bare read, these ~0.15 µs.
 *
 * @module
 */

export const QUIET: unique symbol = Symbol('quiet');
const QUIET_READ: IteratorResult<typeof QUIET> = { value: QUIET, done: false };

/**
 * The wait of lines for more input: one timer, armed by the first read that
 * races it and kept across reads until `reset` (the lines went out). Not
 * re-armed per read, so a trickle (a line every few ms) ends it too.
 */
export class QuietTimer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private armed = false;
  private fired = false;
  /** Ends the race in progress, if any, with QUIET. */
  private wake: (() => void) | null = null;

  constructor(private readonly ms: number) {}

  /**
   * The read, or QUIET_READ if the wait ends first (`onQuiet` is told
   * then). Only one race is ever in progress: the timer fires only while the
   * event loop waits, and the reader resets it before it lets the loop turn
   * otherwise (a block yielded), so `wake` is always the current race's.
   */
  race<T>(read: Promise<IteratorResult<T>>, onQuiet: () => void): Promise<IteratorResult<T | typeof QUIET>> {
    if (!this.armed) {
      this.armed = true;
      this.timer = setTimeout(() => {
        this.fired = true;
        this.wake?.();
      }, this.ms);
    }
    return new Promise((resolve, reject) => {
      this.wake = () => {
        onQuiet();
        resolve(QUIET_READ);
      };
      if (this.fired) this.wake();
      // At the input's end (or failure) the wait ends: no timer is left to keep the process up.
      read.then(
        (r) => {
          if (r.done === true) this.reset();
          resolve(r);
        },
        (e: unknown) => {
          this.reset();
          reject(e);
        },
      );
    });
  }

  /** Ends the wait; the next race starts a new one. */
  reset(): void {
    clearTimeout(this.timer);
    this.armed = false;
    this.fired = false;
    this.wake = null;
  }
}

/**
 * The reads of `input`; while `waiting()` says lines wait, a read that
 * `timer` outlasts is preceded by QUIET (the read is kept, never a second
 * one started, and its value follows). The reader resets the timer when its
 * lines go out (at QUIET too).
 */
export class QuietReads<T> implements AsyncIterableIterator<T | typeof QUIET> {
  private readonly it: AsyncIterator<T>;
  /** The read in progress when QUIET came: the next `next` gives it. */
  private held: Promise<IteratorResult<T>> | null = null;

  constructor(
    input: AsyncIterable<T>,
    private readonly timer: QuietTimer,
    private readonly waiting: () => boolean,
  ) {
    this.it = input[Symbol.asyncIterator]();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T | typeof QUIET>> {
    const held = this.held;
    if (held !== null) {
      this.held = null;
      return held;
    }
    const read = this.it.next();
    if (!this.waiting()) return read;
    return this.timer.race(read, () => {
      this.held = read;
    });
  }

  /**
   * The reader stopped early: the input is told to end, as for-await tells
   * it. A read kept at QUIET may never settle on a quiet pipe (its owner
   * closes it): then the input is told without waiting for it.
   */
  async return(): Promise<IteratorResult<T | typeof QUIET>> {
    this.timer.reset();
    const held = this.held;
    if (held === null) await this.it.return?.();
    else {
      held.catch(() => undefined);
      this.it.return?.().catch(() => undefined);
    }
    return { value: undefined, done: true };
  }
}
