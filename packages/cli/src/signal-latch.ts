/**
 * Signals that come while the CLI starts. Until a listener is on, node
 * gives SIGINT and SIGTERM their default action (the process ends at once),
 * and `batch` puts its own on only once its modules are loaded (~0.1-0.2 s):
 * a Ctrl-C in that window left the output empty, or a JSON array unclosed,
 * with an exit by signal instead of 130/143 (docs/cli.md, "Interrupting a
 * run"). main.ts latches them first thing, before it imports the rest.
 *
 * Then, once the command is known, either the command takes a latched
 * signal as its first (batch: io.ts processInterrupts hands it over, and the
 * run stops cleanly before reading) or the latch is released and a latched
 * signal has its default action then, re-raised: every other command keeps
 * the behaviour it had without the latch. While latching, a second signal
 * ends the process at once, as a second Ctrl-C does during a batch run.
 *
 * @module
 */
import type { StopSignal } from './io.js';

/** What the latch needs of the process (tests pass a fake one). */
export interface SignalTarget {
  readonly pid: number;
  on(event: StopSignal, listener: () => void): unknown;
  off(event: StopSignal, listener: () => void): unknown;
  kill(pid: number, signal: StopSignal): unknown;
}

export interface SignalLatch {
  /** The first signal that came while latching, if any. */
  readonly caught: StopSignal | undefined;
  /** Stops latching; the caller honours `caught` (processInterrupts: the command's handler hears it). */
  stop(): void;
  /** Stops latching, if `stop` was not called: a signal caught meanwhile has its default action now. */
  release(): void;
}

/**
 * Latches SIGINT and SIGTERM from now on (see the module comment).
 *
 * @example
 * const startup = latchSignals(); // first thing in main.ts
 * // ... once the command is known: startup.stop() and honour startup.caught, or startup.release()
 */
export function latchSignals(proc: SignalTarget = process): SignalLatch {
  let caught: StopSignal | undefined;
  let latching = true;
  const off = (): void => {
    latching = false;
    proc.off('SIGINT', onInt);
    proc.off('SIGTERM', onTerm);
  };
  /** Without listeners, the re-raised signal has its default action. */
  const raise = (signal: StopSignal): void => {
    off();
    proc.kill(proc.pid, signal);
  };
  const on = (signal: StopSignal): void => {
    if (caught === undefined) caught = signal;
    else raise(signal);
  };
  const onInt = (): void => on('SIGINT');
  const onTerm = (): void => on('SIGTERM');
  proc.on('SIGINT', onInt);
  proc.on('SIGTERM', onTerm);
  return {
    get caught() {
      return caught;
    },
    stop: () => {
      if (latching) off();
    },
    release: () => {
      if (!latching) return;
      if (caught === undefined) off();
      else raise(caught);
    },
  };
}
