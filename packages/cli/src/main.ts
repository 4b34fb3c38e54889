/**
 * The `ipintel` binary (dist/main.js). Kept to the process wiring: all
 * behaviour is in runCli so tests can run it in-process.
 *
 * @module
 */
import { runCli } from './cli.js';
import { processIo } from './io.js';

process.exitCode = await runCli(process.argv.slice(2), processIo());
