// Server processes of the reliability run (server-child.mjs), on 127.0.0.1,
// each with a log file in the run's work folder. A server that exits without
// being told to counts as a crash. (redis-server: testkit's startRedis.)
import { fork } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('../server-child.mjs', import.meta.url));
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Crashes seen so far (servers that exited on their own). */
export const crashes = { count: 0, what: [] };

/**
 * Starts a server process; resolves once it listens.
 * @returns {{ url, port, proc, rss(): Promise<number>, stop(): Promise<number|null>, kill(): Promise<void>, exited: Promise<void> }}
 */
export function startServerProcess(work, name, options) {
  const log = createWriteStream(join(work, `${name}.log`), { flags: 'a' });
  const proc = fork(CHILD, [JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  proc.stdout.pipe(log, { end: false });
  proc.stderr.pipe(log, { end: false });
  let expected = false;
  const exited = new Promise((resolve) =>
    proc.once('exit', (code, signal) => {
      if (!expected) {
        crashes.count++;
        crashes.what.push(`${name}: exit ${code ?? signal}`);
      }
      resolve();
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 20 s (see ${name}.log)`)), 20_000);
    proc.once('exit', () => reject(new Error(`${name} exited while starting (see ${join(work, `${name}.log`)})`)));
    proc.once('message', ({ port }) => {
      clearTimeout(timer);
      resolve({
        url: `http://127.0.0.1:${port}`,
        port,
        proc,
        exited,
        rss: () =>
          new Promise((done) => {
            proc.once('message', (m) => done(m.rss));
            proc.send('rss');
          }),
        /** SIGTERM, as an operator stops `ipintel serve`; resolves with the exit code. */
        stop: async () => {
          expected = true;
          proc.kill('SIGTERM');
          await exited;
          return proc.exitCode;
        },
        kill: async () => {
          expected = true;
          proc.kill('SIGKILL');
          await exited;
        },
      });
    });
  });
}
