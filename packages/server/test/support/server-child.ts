/**
 * A server process for the multi-process and CLI tests: started with
 * child_process.fork (and the TypeScript hooks), it serves the snapshot and
 * store named in its argv and reports its port over IPC.
 *
 * argv: <snapshotPath> <storeSpec> <plansJson>
 */
import { startServer } from '../../src/standalone.js';

const [snapshotPath, store, plans] = process.argv.slice(2) as [string, string, string];
const server = await startServer({ port: 0, snapshotPath, store, plans: JSON.parse(plans), activationDelayMs: 0, logger: false, sighup: false, watch: false });
process.send?.({ port: server.port });
process.on('message', (m) => {
  if (m === 'stop') void server.close().then(() => process.exit(0));
});
process.on('disconnect', () => void server.close().then(() => process.exit(0)));
