/**
 * Knowing when an input went quiet, for the batch's block reader
 * (blocks.ts): its reads, with a QUIET mark in between when lines have been
 * waiting for more input for a while.
 *
 * Why a race and not a timer per line: a fast input must not pay for it.
 * One timer is armed only while the reader has something waiting, and a
 * read that is ready at once settles before any timer can fire (timers run
 * only once the event loop waits), so files and fast pipes never see QUIET.
 *
 * @module
 */

export const QUIET: unique symbol = Symbol('quiet');

/**
 * The wait of lines for more input: one timer, armed by the first read that
 * races it and kept across reads until `reset` (the lines went out). Not
 * re-armed per read, so a trickle (a line every few ms) ends it too.
 */
export class QuietTimer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private fired: Promise<typeof QUIET> | null = null;

  constructor(private readonly ms: number) {}

  /** The read, or QUIET if the wait ends first. */
  race<T>(read: Promise<T>): Promise<T | typeof QUIET> {
    this.fired ??= new Promise((resolve) => (this.timer = setTimeout(resolve, this.ms, QUIET)));
    return Promise.race([read, this.fired]);
  }

  /** Ends the wait; the next race starts a new one. */
  reset(): void {
    clearTimeout(this.timer);
    this.fired = null;
  }
}

/**
 * The reads of `input`; while `waiting()` says lines wait, a read that
 * `timer` outlasts is preceded by QUIET (the read is kept, never a second
 * one started, and its value follows). The timer is reset at QUIET and at
 * the end; the reader resets it when its lines go out otherwise.
 */
export async function* quietReads<T>(input: AsyncIterable<T>, timer: QuietTimer, waiting: () => boolean): AsyncGenerator<T | typeof QUIET> {
  const it = input[Symbol.asyncIterator]();
  /** The read in progress, kept across QUIET. */
  let pending: Promise<IteratorResult<T>> | null = null;
  let ended = false;
  try {
    for (;;) {
      pending = it.next();
      let r = waiting() ? await timer.race(pending) : await pending;
      if (r === QUIET) {
        timer.reset();
        yield QUIET;
        r = await pending;
      }
      pending = null;
      if (r.done === true) {
        ended = true;
        return;
      }
      yield r.value;
    }
  } finally {
    timer.reset();
    // Left early (the reader stopped): the input is told to end, as for-await tells it. At QUIET,
    // or after a failed read, a read is pending, which may never settle on a quiet pipe (its
    // owner closes it): the input is told without waiting for it (as in untilStopped).
    if (!ended && pending === null) await it.return?.();
    else if (!ended && pending !== null) {
      pending.catch(() => undefined);
      it.return?.().catch(() => undefined);
    }
  }
}
