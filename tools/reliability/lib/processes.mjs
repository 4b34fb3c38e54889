// Child processes of the reliability run: ipintel servers (server-child.mjs)
// and a private redis-server, all on 127.0.0.1, each with a log file in the
// run's work folder. A server that exits without being told to counts as a crash.
import { spawn, fork, spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('../server-child.mjs', import.meta.url));
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Crashes seen so far (servers that exited on their own). */
export const crashes = { count: 0, what: [] };

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

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

export const REDIS_AVAILABLE = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error === undefined;

function pong(port) {
  return new Promise((resolve) => {
    const c = connect(port, '127.0.0.1');
    c.once('connect', () => c.write('PING\r\n'));
    c.once('data', (d) => {
      c.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    c.once('error', () => resolve(false));
  });
}

/** A private redis-server (AOF, fsync always) on a free port; start/stop/pause/resume. */
export async function startRedis(dir) {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always'];
  let child;
  const r = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', args, { stdio: 'ignore' });
      for (let i = 0; i < 400; i++) {
        if (await pong(port)) return;
        await sleep(25);
      }
      throw new Error(`redis-server did not start on port ${port}`);
    },
    async stop(signal = 'SIGTERM') {
      const c = child;
      child = undefined;
      if (c === undefined || c.exitCode !== null) return;
      const gone = new Promise((resolve) => c.once('exit', resolve));
      c.kill(signal);
      c.kill('SIGCONT');
      await gone;
    },
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
  };
  await r.start();
  return r;
}
