/**
 * Loading the package behind `build` (@ipintel/builder), `serve`/`keys`
 * (@ipintel/server) or `export` (@ipintel/export), only when that command
 * runs: `check`, `batch` and `info` never load them and keep working when
 * they are missing or broken.
 * A package that fails to load is reported as "unavailable" (exit 5).
 *
 * The imports are literal (bundlers keep them external: they are
 * dependencies), so the commands get the packages' types.
 *
 * @module
 */
import { CliError, EXIT_UNAVAILABLE } from '../errors.js';

function unavailable(command: string, pkg: string, e: unknown): CliError {
  return new CliError(`"ipintel ${command}" is unavailable: ${pkg} could not be loaded (${e instanceof Error ? e.message : String(e)})`, EXIT_UNAVAILABLE);
}

/** @ipintel/builder, for `build`. Throws CliError (exit 5) when it cannot be loaded. */
export async function loadBuilder(command: string): Promise<typeof import('@ipintel/builder')> {
  try {
    return await import('@ipintel/builder');
  } catch (e) {
    throw unavailable(command, '@ipintel/builder', e);
  }
}

/** @ipintel/server, for `serve` and `keys`. Throws CliError (exit 5) when it cannot be loaded. */
export async function loadServer(command: string): Promise<typeof import('@ipintel/server')> {
  try {
    return await import('@ipintel/server');
  } catch (e) {
    throw unavailable(command, '@ipintel/server', e);
  }
}

/** @ipintel/export, for `export`. Throws CliError (exit 5) when it cannot be loaded. */
export async function loadExport(command: string): Promise<typeof import('@ipintel/export')> {
  try {
    return await import('@ipintel/export');
  } catch (e) {
    throw unavailable(command, '@ipintel/export', e);
  }
}
