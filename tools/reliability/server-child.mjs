// One ipintel server process for the reliability run: startServer from the
// built package (packages/server/dist), options as JSON in argv[2]. Reports
// its port over IPC, answers {rss} to 'rss', closes gracefully on SIGTERM
// (as `ipintel serve` does) and exits 0.
import { startServer } from '../../packages/server/dist/index.js';

const options = JSON.parse(process.argv[2] ?? '{}');
const server = await startServer({ port: 0, sighup: false, ...options });
process.send?.({ port: server.port });
process.on('message', (m) => {
  if (m === 'rss') process.send?.({ rss: process.memoryUsage().rss });
});
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
process.on('disconnect', () => void server.close().then(() => process.exit(0)));
