/**
 * turnBuffered (log.ts), the standalone server's stdout: the lines of one
 * event-loop turn go out together at the end of the turn, in order (or, with
 * `delayMs`, within that many ms, sooner once `maxBytes` are pending); flush
 * and end write what is pending at once; a process that exits (even by an
 * uncaught exception) in the middle of a turn or of a wait still writes its
 * lines, and a wait never keeps a process alive.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '@ipintel/testkit';
import pino from 'pino';
import { expect, it, vi } from 'vitest';
import { turnBuffered } from '../src/log.js';

const REGISTER = fileURLToPath(new URL('./support/register-ts.mjs', import.meta.url));
const LOG_MODULE = fileURLToPath(new URL('../src/log.ts', import.meta.url));
const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

it('writes the lines of a turn together at its end, in order, and flush/end write at once', async () => {
  const tmp = tempDir('ipintel-log-turn-');
  const path = join(tmp.dir, 'out.log');
  const fd = openSync(path, 'w');
  try {
    const out = turnBuffered(fd);
    const logger = pino({ base: null, timestamp: false }, out);
    for (let i = 0; i < 3; i++) logger.info({ i }, 'line');
    expect(readFileSync(path, 'utf8')).toBe(''); // still this turn
    await nextTurn();
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { i: number });
    expect(lines.map((l) => l.i)).toEqual([0, 1, 2]);
    logger.info({ i: 3 }, 'line');
    await new Promise<void>((r) => out.flush(() => r()));
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(4);
    logger.info({ i: 4 }, 'line');
    out.end();
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(5);
  } finally {
    closeSync(fd);
    tmp.cleanup();
  }
});

it('a process that dies in the middle of a turn still writes the lines it logged', () => {
  const script = `
    const { default: pino } = await import('pino');
    const { turnBuffered } = await import(${JSON.stringify(LOG_MODULE)});
    const logger = pino({ base: null, timestamp: false }, turnBuffered());
    logger.info('before the crash');
    setImmediate(() => {}); // a turn that never gets to write
    throw new Error('boom');
  `;
  let stdout = '';
  try {
    execFileSync(process.execPath, ['--import', REGISTER, '--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    stdout = String((e as { stdout: Buffer }).stdout);
  }
  expect(stdout).toContain('"msg":"before the crash"');
});

it('writes every byte of a turn larger than the pipe, multi-byte text included, waiting while the pipe is full', () => {
  // ~2.6 MB in one turn: far more than a pipe holds (64 KiB), so the write is short or meets EAGAIN.
  const script = `
    const { turnBuffered } = await import(${JSON.stringify(LOG_MODULE)});
    void process.stdout; // makes fd 1 non-blocking, as in a server whose pino logger touched it: a full pipe answers EAGAIN
    const out = turnBuffered();
    for (let i = 0; i < 20000; i++) out.write(JSON.stringify({ i, city: 'São Paulo ✓ '.repeat(10) }) + '\\n');
    out.end();
  `;
  const stdout = execFileSync(process.execPath, ['--import', REGISTER, '--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
    encoding: 'utf8',
  });
  const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { i: number; city: string });
  expect(lines.map((l) => l.i)).toEqual(Array.from({ length: 20000 }, (_, i) => i));
  expect(new Set(lines.map((l) => l.city))).toEqual(new Set(['São Paulo ✓ '.repeat(10)]));
});

it('with delayMs: holds the lines past the end of their turn, writes them when the delay has passed, or at once when maxBytes are pending', async () => {
  const tmp = tempDir('ipintel-log-delay-');
  const path = join(tmp.dir, 'out.log');
  const fd = openSync(path, 'w');
  const line = (i: number): string => `${String(i).padStart(19, '0')}\n`; // 20 characters
  const lines = (): number[] => readFileSync(path, 'utf8').split('\n').filter(Boolean).map(Number);
  // The delay runs on a fake clock (the turn's end stays real): on the real one, a process held up 40 ms between the
  // writes and the end of their turn (a loaded machine) has its delay timer run before the turn ends.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const out = turnBuffered(fd, { delayMs: 40, maxBytes: 200 });
  try {
    out.write(line(0));
    out.write(line(1));
    await nextTurn();
    expect(lines()).toEqual([]); // the turn ended, the delay has not
    vi.advanceTimersByTime(39);
    expect(lines()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(lines()).toEqual([0, 1]);
    // 200 characters pending at the 10th line: all ten written at once, in this turn.
    for (let i = 2; i < 11; i++) out.write(line(i));
    expect(lines()).toEqual([0, 1]);
    out.write(line(11));
    expect(lines()).toEqual(Array.from({ length: 12 }, (_, i) => i));
    out.write(line(12));
    await new Promise<void>((r) => out.flush(() => r()));
    expect(lines()).toHaveLength(13);
    out.write(line(13));
    out.end();
    expect(lines()).toEqual(Array.from({ length: 14 }, (_, i) => i));
  } finally {
    out.end();
    vi.useRealTimers();
    closeSync(fd);
    tmp.cleanup();
  }
});

it('writeLater: a held line keeps its place among the written ones, gets its text only when written, and counts its size towards maxBytes', async () => {
  const tmp = tempDir('ipintel-log-later-');
  const path = join(tmp.dir, 'out.log');
  const fd = openSync(path, 'w');
  let made = 0;
  const later = (text: string) => ({ toString: () => (made++, text) });
  const out = turnBuffered(fd, { delayMs: 60_000, maxBytes: 100 });
  try {
    out.write('a\n');
    out.writeLater(later('b\n'), 2);
    out.write('c\n');
    out.writeLater(later('d\n'), 2);
    expect(made).toBe(0);
    out.flush();
    expect(made).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe('a\nb\nc\nd\n');
    // The size given, not the text's, counts: 100 reached at once.
    out.writeLater(later('e\n'), 100);
    expect(readFileSync(path, 'utf8')).toBe('a\nb\nc\nd\ne\n');
    // A lone held line (no join) too; and without delayMs, at the end of the turn.
    const perTurn = turnBuffered(fd);
    perTurn.writeLater(later('f\n'), 2);
    expect(readFileSync(path, 'utf8')).toBe('a\nb\nc\nd\ne\n');
    await nextTurn();
    expect(readFileSync(path, 'utf8')).toBe('a\nb\nc\nd\ne\nf\n');
    perTurn.end();
  } finally {
    out.end();
    closeSync(fd);
    tmp.cleanup();
  }
});

it('with delayMs: a process whose work ends while lines wait exits at once and writes them', () => {
  const script = `
    const { default: pino } = await import('pino');
    const { turnBuffered } = await import(${JSON.stringify(LOG_MODULE)});
    const logger = pino({ base: null, timestamp: false }, turnBuffered(1, { delayMs: 60000 }));
    logger.info('waiting');
  `;
  const t = Date.now();
  const stdout = execFileSync(process.execPath, ['--import', REGISTER, '--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: 30000,
  });
  expect(stdout).toContain('"msg":"waiting"');
  // Far less than the 60 s wait: the timer did not keep the process alive (the exit wrote the line).
  expect(Date.now() - t).toBeLessThan(30000);
});
