#!/usr/bin/env node
// The long reliability suite (issue 11): real server processes on 127.0.0.1
// (startServer from packages/server/dist), SQLite and a private redis-server,
// under load, crashes, stalls, swaps and hostile clients; prints one table.
//
//   pnpm reliability                 # full run, a few minutes
//   pnpm reliability -- --quick      # smaller counts, well under a minute
//   pnpm reliability -- --update-readme   # also writes the table into README.md
//   pnpm reliability -- --only kill9,drain,cli
//
// Needs the packages built (pnpm build) and redis-server on PATH (the Redis
// phases are skipped, and say so, without it). Exits 1 when a figure that
// must be 0 is not.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

for (const pkg of ['core', 'cli', 'server', 'builder', 'testkit']) {
  if (!existsSync(fileURLToPath(new URL(`../../packages/${pkg}/dist/${pkg === 'cli' ? 'main' : 'index'}.js`, import.meta.url)))) {
    process.stderr.write(`reliability: packages/${pkg}/dist is missing; run pnpm build first\n`);
    process.exit(2);
  }
}
await import('./suite.mjs');
