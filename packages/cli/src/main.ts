/**
 * The `ipintel` binary (dist/main.js). Kept to the process wiring: all
 * behaviour is in runCli so tests can run it in-process.
 *
 * Signals are latched first thing, and the rest is imported after: a Ctrl-C
 * while the modules load (~0.1-0.2 s) is then the command's to take, not the
 * default action's (signal-latch.ts).
 *
 * @module
 */
import { latchSignals } from './signal-latch.js';

const startup = latchSignals();
const [{ runCli, takesStartupSignal }, { processIo }] = await Promise.all([import('./cli.js'), import('./io.js')]);
const argv = process.argv.slice(2);
// A command that does not take it (all but batch) leaves a signal from start-up to its default action, as before the latch.
if (!takesStartupSignal(argv)) startup.release();
process.exitCode = await runCli(argv, processIo(startup));
// One it did not listen for after all (batch stopped by a usage error, or --help): its default action now.
startup.release();
