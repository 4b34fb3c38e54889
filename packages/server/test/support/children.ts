/**
 * Server processes for tests: test/support/server-child.ts run with
 * child_process.fork and the TypeScript hooks (no build needed).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Plan } from '../../src/plans.js';
import type { StartOptions } from '../../src/standalone.js';

const CHILD = fileURLToPath(new URL('./server-child.ts', import.meta.url));
const REGISTER = fileURLToPath(new URL('./register-ts.mjs', import.meta.url));

export interface ChildServer {
  readonly url: string;
  readonly port: number;
  readonly process: ChildProcess;
  /** What the child wrote on stdout so far (when started with `pipeStdout`). */
  readonly stdout: { text: string };
  stop(): Promise<void>;
}

export interface ChildOptions {
  /**
   * More startServer options (JSON-serialisable); `defaultLogger: true` keeps the stdout logger;
   * `clockOffsetMs` (a testkit steadyClock's offsetMs) gives the child that clock.
   */
  readonly options?: Partial<StartOptions> & { defaultLogger?: boolean; clockOffsetMs?: number };
  /** Capture stdout instead of inheriting it. */
  readonly pipeStdout?: boolean;
}

/** Starts one server process on `store` and waits for its port. */
export function startChild(snapshotPath: string, store: string, plans: Record<string, Plan>, more: ChildOptions = {}): Promise<ChildServer> {
  const child = fork(CHILD, [snapshotPath, store, JSON.stringify(plans), JSON.stringify(more.options ?? {})], {
    execArgv: ['--import', REGISTER],
    stdio: ['ignore', more.pipeStdout === true ? 'pipe' : 'inherit', 'inherit', 'ipc'],
  });
  const stdout = { text: '' };
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout.text += d));
  return new Promise((resolve, reject) => {
    // Generous: on a fresh machine the children's TypeScript transpile cache is empty, and several start at once. A child that dies fails at once (exit below).
    const timer = setTimeout(() => reject(new Error('server child did not start in 50 s')), 50_000);
    child.once('exit', (code) => reject(new Error(`server child exited with ${code}`)));
    child.once('message', (m: { port: number }) => {
      clearTimeout(timer);
      resolve({
        url: `http://127.0.0.1:${m.port}`,
        port: m.port,
        process: child,
        stdout,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.send('stop');
            setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
          }),
      });
    });
  });
}

/** Waits until `check()` holds, polling; throws `what` if it does not within `ms` (a bound, not a timing assertion). */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not seen within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Resolves when the child has exited. */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}
