/**
 * Server processes for tests: test/support/server-child.ts run with
 * child_process.fork and the TypeScript hooks (no build needed).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Plan } from '../../src/plans.js';

const CHILD = fileURLToPath(new URL('./server-child.ts', import.meta.url));
const REGISTER = fileURLToPath(new URL('./register-ts.mjs', import.meta.url));

export interface ChildServer {
  readonly url: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts one server process on `store` and waits for its port. */
export function startChild(snapshotPath: string, store: string, plans: Record<string, Plan>): Promise<ChildServer> {
  const child = fork(CHILD, [snapshotPath, store, JSON.stringify(plans)], { execArgv: ['--import', REGISTER], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server child did not start in 20 s')), 20_000);
    child.once('exit', (code) => reject(new Error(`server child exited with ${code}`)));
    child.once('message', (m: { port: number }) => {
      clearTimeout(timer);
      resolve({
        url: `http://127.0.0.1:${m.port}`,
        process: child,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.send('stop');
            setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
          }),
      });
    });
  });
}
