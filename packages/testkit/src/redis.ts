/**
 * A private redis-server on a free 127.0.0.1 port, for the Redis tests and
 * the reliability tools: start, stop (with a signal), stall and resume.
 *
 * @module
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';

let available: boolean | undefined;
/** Whether redis-server is on PATH (asked once, when first needed). */
export function redisAvailable(): boolean {
  available ??= spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error === undefined;
  return available;
}

/** A TCP port free on 127.0.0.1 at the time of asking. */
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

/**
 * Whether the redis-server whose process id is `pid` is ready on `port`: PING
 * answers +PONG (not -LOADING), and INFO names that process, not whatever
 * else may listen on a port that was free when it was picked.
 */
function readyAs(port: number, pid: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect(port, '127.0.0.1');
    let text = '';
    const done = (ok: boolean): void => {
      c.destroy();
      resolve(ok);
    };
    c.setTimeout(2000, () => done(false));
    c.once('connect', () => c.write('PING\r\nINFO server\r\n'));
    c.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (!text.startsWith('+PONG')) {
        if (text.includes('\r\n')) done(false);
        return;
      }
      const m = /\r\nprocess_id:(\d+)\r\n/.exec(text);
      if (m !== null) done(Number(m[1]) === pid);
    });
    c.once('error', () => done(false));
    c.once('close', () => done(false));
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

/** Starts redis-server in `dir`; `appendonly` keeps data across restarts (AOF, fsync always). */
export async function startRedis(options: { readonly dir: string; readonly appendonly?: boolean }): Promise<RedisProcess> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', options.dir, '--appendonly', options.appendonly === true ? 'yes' : 'no'];
  if (options.appendonly === true) args.push('--appendfsync', 'always');
  const proc: RedisProcess = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      const c = spawn('redis-server', args, { stdio: 'ignore' });
      child = c;
      let failed: Error | undefined;
      c.once('error', (e) => (failed = e));
      for (let i = 0; i < 400; i++) {
        // A server that cannot bind its port (taken since it was picked) exits: say so at once.
        if (failed !== undefined) throw new Error(`redis-server could not start: ${failed.message}`);
        if (c.exitCode !== null || c.signalCode !== null) {
          throw new Error(`redis-server exited (${c.exitCode ?? c.signalCode}) before answering on port ${port}`);
        }
        if (c.pid !== undefined && (await readyAs(port, c.pid))) return;
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
      // Already gone (an exit code, or killed by a signal, when exitCode stays null): no 'exit' to wait for.
      if (c === undefined || c.exitCode !== null || c.signalCode !== null) return;
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
