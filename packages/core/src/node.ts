/**
 * The Node layer: opening a snapshot by path, and the default snapshot's
 * location. Everything else is the portable core.
 *
 * The default snapshot is, in order: `$IPINTEL_SNAPSHOT`, else
 * `data/default.ipintel` inside this package (where `ipintel build` writes it).
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRaw, inflateRawSync } from 'node:zlib';
import { IpIntelError } from './errors.js';
import { IpIntel, type LoadOptions } from './intel.js';
import { decodeSnapshot, decodeSnapshotAsync, type Inflate, type InflateAsync } from './snapshot/decode.js';

/**
 * Native zlib reads the same deflate-raw stream as fflate, several times
 * faster; one chunk of the known size avoids growing and concatenating.
 */
export const nodeInflate: Inflate = (stored, rawSize) => inflateRawSync(stored, { chunkSize: Math.max(64, rawSize) });

/** Inflates on libuv's thread pool, so the columns of a snapshot inflate in parallel. */
const nodeInflateAsync: InflateAsync = (stored, rawSize) =>
  new Promise((resolve, reject) => {
    inflateRaw(stored, { chunkSize: Math.max(64, rawSize) }, (err, out) => (err ? reject(err) : resolve(out)));
  });

function packageDir(): string {
  // dist/index.js (ESM) or dist/index.cjs (CJS) -> the package root.
  const here = typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));
  return resolve(here, '..');
}

/** Path of the default snapshot (`$IPINTEL_SNAPSHOT`, else `<@ipintel/core>/data/default.ipintel`). */
export function defaultSnapshotPath(): string {
  const env = process.env['IPINTEL_SNAPSHOT'];
  return env !== undefined && env !== '' ? resolve(env) : join(packageDir(), 'data', 'default.ipintel');
}

function notFound(path: string): IpIntelError {
  return new IpIntelError(
    'snapshot_not_found',
    `no snapshot at ${path}: build one with \`ipintel build\` (see the README) or pass a path`,
    path,
  );
}

function loadSync(bytes: Uint8Array, options: LoadOptions | undefined): IpIntel {
  return new IpIntel(decodeSnapshot(bytes, options?.inflate ?? nodeInflate), options);
}

/**
 * Opens a snapshot from a path or bytes (default: the default snapshot).
 *
 * @example
 * const intel = await open(); intel.check('8.8.8.8').geo.country_code // => 'US'
 */
export async function open(source?: string | Uint8Array, options?: LoadOptions): Promise<IpIntel> {
  const load = async (bytes: Uint8Array): Promise<IpIntel> =>
    options?.inflate ? loadSync(bytes, options) : new IpIntel(await decodeSnapshotAsync(bytes, nodeInflateAsync), options);
  if (source instanceof Uint8Array) return load(source);
  const path = source ?? defaultSnapshotPath();
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(path);
    throw e;
  }
  return load(bytes);
}

/** Synchronous {@link open} (columns inflate one after another). */
export function openSync(source?: string | Uint8Array, options?: LoadOptions): IpIntel {
  if (source instanceof Uint8Array) return loadSync(source, options);
  const path = source ?? defaultSnapshotPath();
  if (!existsSync(path)) throw notFound(path);
  return loadSync(readFileSync(path), options);
}
