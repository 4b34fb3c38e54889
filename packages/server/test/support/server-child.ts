/**
 * A server process for the multi-process, drain, log and crash tests: started
 * with child_process.fork (and the TypeScript hooks), it serves the snapshot
 * and store named in its argv and reports its port over IPC. SIGTERM closes it
 * gracefully (as `ipintel serve` does), then it exits 0.
 *
 * argv: <snapshotPath> <storeSpec> <plansJson> [<startOptionsJson>]
 * `"defaultLogger": true` in the options keeps the server's own stdout logger;
 * `"clockOffsetMs": N` runs the server on Date.now() + N (the parent's
 * testkit steadyClock, which a function in JSON could not carry).
 */
import { startServer, type StartOptions } from '../../src/standalone.js';

const [snapshotPath, store, plans, extra] = process.argv.slice(2) as [string, string, string, string | undefined];
const { defaultLogger, clockOffsetMs, ...options } = JSON.parse(extra ?? '{}') as Partial<StartOptions> & { defaultLogger?: boolean; clockOffsetMs?: number };
const server = await startServer({
  port: 0,
  snapshotPath,
  store,
  plans: JSON.parse(plans),
  activationDelayMs: 0,
  sighup: false,
  watch: false,
  // Short unless a test asks otherwise: idle keep-alive connections of fetch would hold each stop for seconds.
  drainTimeoutMs: 200,
  ...(defaultLogger === true ? {} : { logger: false }),
  ...(clockOffsetMs === undefined ? {} : { now: () => Date.now() + clockOffsetMs }),
  ...options,
});
process.send?.({ port: server.port });
const stop = (): void => void server.close().then(() => process.exit(0));
process.on('message', (m) => {
  if (m === 'stop') stop();
});
process.once('SIGTERM', stop);
process.on('disconnect', stop);
