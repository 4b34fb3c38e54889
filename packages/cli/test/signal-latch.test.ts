/**
 * The latch main.ts puts on signals before the CLI's modules load
 * (signal-latch.ts), and its hand-over to a command (io.ts
 * processInterrupts), on a fake process: real signals would reach the test
 * runner. process.test.ts sends real ones to the built CLI.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { processInterrupts, type StopSignal } from '../src/io.js';
import { latchSignals } from '../src/signal-latch.js';

/** A process whose kill() is recorded, with the listeners on at the time (none: the default action). */
function fakeProcess() {
  const emitter = new EventEmitter();
  const kills: { signal: StopSignal; listeners: number }[] = [];
  const proc = {
    pid: 4242,
    on: (event: StopSignal, listener: () => void) => emitter.on(event, listener),
    off: (event: StopSignal, listener: () => void) => emitter.off(event, listener),
    kill: (pid: number, signal: StopSignal) => {
      expect(pid).toBe(4242);
      kills.push({ signal, listeners: emitter.listenerCount('SIGINT') + emitter.listenerCount('SIGTERM') });
    },
  };
  const listening = (): number => emitter.listenerCount('SIGINT') + emitter.listenerCount('SIGTERM');
  return { proc, kills, listening, send: (signal: StopSignal) => emitter.emit(signal) };
}

describe('latchSignals', () => {
  it('listens from the start and holds the first signal, without ending anything', () => {
    const p = fakeProcess();
    const latch = latchSignals(p.proc);
    expect(p.listening()).toBe(2);
    expect(latch.caught).toBeUndefined();
    p.send('SIGTERM');
    expect(latch.caught).toBe('SIGTERM');
    expect(p.kills).toEqual([]);
  });

  it('a second signal while latching has its default action at once', () => {
    const p = fakeProcess();
    latchSignals(p.proc);
    p.send('SIGINT');
    p.send('SIGINT');
    expect(p.kills).toEqual([{ signal: 'SIGINT', listeners: 0 }]);
  });

  it('release: a signal caught meanwhile has its default action then (the command does not take it)', () => {
    const p = fakeProcess();
    const latch = latchSignals(p.proc);
    p.send('SIGINT');
    latch.release();
    expect(p.kills).toEqual([{ signal: 'SIGINT', listeners: 0 }]);
    latch.release();
    expect(p.kills).toHaveLength(1);
  });

  it('release with nothing caught only takes the listeners off (later signals: their default action)', () => {
    const p = fakeProcess();
    const latch = latchSignals(p.proc);
    latch.release();
    expect(p.listening()).toBe(0);
    expect(p.kills).toEqual([]);
  });

  it('stop hands a caught signal to the caller: release after it raises nothing', () => {
    const p = fakeProcess();
    const latch = latchSignals(p.proc);
    p.send('SIGTERM');
    latch.stop();
    latch.release();
    expect(p.listening()).toBe(0);
    expect(latch.caught).toBe('SIGTERM');
    expect(p.kills).toEqual([]);
  });
});

describe('processInterrupts with the start-up latch', () => {
  it('a signal caught during start-up is the first one: the handler hears it at once and no listener is put on', () => {
    const p = fakeProcess();
    const latch = latchSignals(p.proc);
    p.send('SIGINT');
    const before = process.listenerCount('SIGINT');
    const heard: StopSignal[] = [];
    const off = processInterrupts((s) => heard.push(s), latch);
    expect(heard).toEqual(['SIGINT']);
    // The next signal finds no listener: its default action ends the process (a second Ctrl-C).
    expect(process.listenerCount('SIGINT')).toBe(before);
    expect(p.listening()).toBe(0);
    off();
    latch.release();
    expect(p.kills).toEqual([]);
  });

  it('none caught: the command listens from before the latch lets go, so no signal meets neither', () => {
    const p = fakeProcess();
    const latch = latchSignals(p.proc);
    const before = { int: process.listenerCount('SIGINT'), term: process.listenerCount('SIGTERM') };
    let latchOffWhileOursOn = false;
    const stop = latch.stop.bind(latch);
    latch.stop = () => {
      latchOffWhileOursOn = process.listenerCount('SIGINT') === before.int + 1 && process.listenerCount('SIGTERM') === before.term + 1;
      stop();
    };
    const heard: StopSignal[] = [];
    const off = processInterrupts((s) => heard.push(s), latch);
    expect(latchOffWhileOursOn).toBe(true);
    expect(p.listening()).toBe(0);
    off();
    expect(process.listenerCount('SIGINT')).toBe(before.int);
    expect(heard).toEqual([]);
  });
});
