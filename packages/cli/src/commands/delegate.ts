/**
 * `build`, `serve` and `keys` belong to other packages (@ipintel/builder,
 * @ipintel/server), which export `xxxCommand(argv, io) => Promise<exitCode>`.
 * They are imported only when used, by a specifier held in a variable, so
 * check/batch/info keep working when one of those packages is missing or
 * fails to load — that command then reports a clear error (exit 5).
 *
 * @module
 */
import { CliError, EXIT_OK, EXIT_UNAVAILABLE } from '../errors.js';
import { writeAsync, type CliIo } from '../io.js';

/** The signature a delegated command exports. */
export type CommandFn = (
  argv: string[],
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
) => Promise<number>;

export interface Delegated {
  readonly pkg: string;
  readonly exportName: string;
  readonly summary: string;
  /** Printed for `--help` when the package cannot be loaded. */
  readonly usage: string;
}

export const DELEGATED: Readonly<Record<string, Delegated>> = {
  build: {
    pkg: '@ipintel/builder',
    exportName: 'buildCommand',
    summary: 'Compile the public feeds into a snapshot file.',
    usage: 'ipintel build [flags]   (see "ipintel build --help"; example: ipintel build --feeds ./feeds --out world.ipintel)',
  },
  serve: {
    pkg: '@ipintel/server',
    exportName: 'serveCommand',
    summary: 'Run the HTTP API (GET /v1/check, POST /v1/check/batch).',
    usage: 'ipintel serve [flags]   (see "ipintel serve --help"; example: ipintel serve --port 8080)',
  },
  keys: {
    pkg: '@ipintel/server',
    exportName: 'keysCommand',
    summary: 'Create, list, rotate and revoke API keys of the HTTP API.',
    usage: 'ipintel keys <action> [flags]   (see "ipintel keys --help"; example: ipintel keys create --plan free)',
  },
};

/** Dynamic import through a variable: bundlers leave it alone and TypeScript does not need the package's types. */
const importModule = (specifier: string): Promise<Record<string, unknown>> => import(specifier) as Promise<Record<string, unknown>>;

async function load(name: string, d: Delegated): Promise<CommandFn> {
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(d.pkg);
  } catch (e) {
    throw new CliError(`"ipintel ${name}" is unavailable: ${d.pkg} could not be loaded (${e instanceof Error ? e.message : String(e)})`, EXIT_UNAVAILABLE);
  }
  const fn = mod[d.exportName];
  if (typeof fn !== 'function') throw new CliError(`"ipintel ${name}" is unavailable: ${d.pkg} does not export ${d.exportName}()`, EXIT_UNAVAILABLE);
  return fn as CommandFn;
}

/** Runs a delegated command and returns its exit code. */
export async function runDelegated(name: string, argv: readonly string[], io: CliIo): Promise<number> {
  const d = DELEGATED[name]!;
  let fn: CommandFn;
  try {
    fn = await load(name, d);
  } catch (e) {
    // Help is still answered when the package cannot load, with the reason on stderr.
    if (!(e instanceof CliError) || !(argv.includes('--help') || argv.includes('-h'))) throw e;
    await writeAsync(io.stdout, `Usage: ${d.usage}\n\n${d.summary}\n`);
    io.stderr.write(`ipintel ${name}: note: ${e.message}\n`);
    return EXIT_OK;
  }
  const code = await fn([...argv], { stdout: io.stdout, stderr: io.stderr });
  return Number.isInteger(code) ? code : EXIT_OK;
}
