/**
 * turnBuffered (log.ts), the standalone server's stdout: the lines of one
 * event-loop turn go out together at the end of the turn, in order; flush
 * and end write what is pending at once; a process that exits (even by an
 * uncaught exception) in the middle of a turn still writes its lines.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '@ipintel/testkit';
import pino from 'pino';
import { expect, it } from 'vitest';
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
