/**
 * A real redis-server per test file, on a free 127.0.0.1 port, stopped after.
 *
 * Without redis-server on PATH the Redis suites fail with a clear message when
 * CI is set (CI must run them) and are skipped with a printed reason otherwise.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { describe, it } from 'vitest';

export const REDIS_AVAILABLE = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error === undefined;
const MISSING = 'redis-server is not on PATH: install it (apt-get install -y redis-server) to run the Redis suites';

/** `describe` that needs redis-server: fails in CI without it, skips (with a reason) elsewhere. */
export function describeRedis(name: string, fn: () => void): void {
  if (REDIS_AVAILABLE) describe(name, fn);
  else if (process.env['CI']) describe(name, () => it('has redis-server', () => { throw new Error(MISSING); }));
  else {
    console.warn(`skipping "${name}": ${MISSING}`);
    describe.skip(name, fn);
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function answers(port: number): Promise<boolean> {
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

export interface RedisProcess {
  readonly url: string;
  readonly port: number;
  /** Starts (again) on the same port and directory. */
  start(): Promise<void>;
  /** Stops with SIGTERM (Redis writes its AOF on the way out), or the signal given, and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Stalls it (SIGSTOP): connections stay open, nothing is answered. */
  pause(): void;
  /** Ends a stall (SIGCONT). */
  resume(): void;
}

/** Starts redis-server; `appendonly` keeps data across restarts (in `dir`). */
export async function startRedis(options: { dir: string; appendonly?: boolean }): Promise<RedisProcess> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', options.dir, '--appendonly', options.appendonly === true ? 'yes' : 'no'];
  if (options.appendonly === true) args.push('--appendfsync', 'always');
  const proc: RedisProcess = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      child = spawn('redis-server', args, { stdio: 'ignore' });
      for (let i = 0; i < 200; i++) {
        if (await answers(port)) return;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`redis-server did not start on port ${port}`);
    },
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      const c = child;
      child = undefined;
      if (c === undefined || c.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill(signal);
        c.kill('SIGCONT'); // a paused server handles SIGTERM once it runs again
      });
    },
  };
  await proc.start();
  return proc;
}

/**
 * A TCP relay to `port` whose answers (server to client) can be held back:
 * requests reach Redis at once, their replies arrive `delayMs` late. Models
 * a slow return path, where Redis has run a command before the caller gives up.
 */
export async function delayingProxy(port: number): Promise<{ url: string; delayMs: number; cut(): void; close(): void }> {
  const { createServer: tcpServer, connect: tcpConnect } = await import('node:net');
  const state = { delayMs: 0 };
  const sockets = new Set<import('node:net').Socket>();
  const server = tcpServer((client) => {
    const upstream = tcpConnect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => {
      if (state.delayMs === 0) client.write(d);
      else setTimeout(() => client.writable && client.write(d), state.delayMs);
    });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  const proxyPort = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
  return {
    url: `redis://127.0.0.1:${proxyPort}`,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(ms: number) {
      state.delayMs = ms;
    },
    /** Breaks every connection now (replies held back are lost); new connections are relayed. */
    cut() {
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
