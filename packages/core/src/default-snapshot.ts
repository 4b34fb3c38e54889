/**
 * Where `open()` looks when it is given no path, in order:
 *
 * 1. `$IPINTEL_SNAPSHOT` (a path; relative to the working directory);
 * 2. the snapshot of the installed data package `@ipintel/data`
 *    (`world.ipintel` in its folder), found the way Node finds a package:
 *    from this package's folder (where npm installs it beside us), then from
 *    the working directory;
 * 3. neither: a typed `snapshot_not_found` error that names both ways.
 *
 * Core does not depend on the data package (it is an optional peer): a
 * server or an edge worker may load its own file, and the data package is
 * 35 MB that those users need not install.
 *
 * @module
 */
import { constants, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IpIntelError } from './errors.js';

/** The npm package that ships the world snapshot. */
export const DATA_PACKAGE = '@ipintel/data';
/** The snapshot's file name inside the data package. */
export const DATA_FILE = 'world.ipintel';

function thisFile(): string {
  // The ES build: its import.meta.url. Not a `__filename` seen from there: that is a global of whoever
  // defines one (`node -e` and `node -p` define '[eval]'), from which the data package beside this one
  // is not found. The CommonJS build: its import.meta.url is the bundler's shim, its own file unless the
  // program defines a global `document` (a DOM test environment; then an http URL): its __filename then.
  const url = import.meta.url;
  if (typeof url === 'string' && url.startsWith('file:')) return fileURLToPath(url);
  return typeof __filename === 'string' ? __filename : join(process.cwd(), 'noop.js');
}

/** The data package's snapshot path, or null when the package is not installed where Node would find it. */
export function dataPackageSnapshot(): string | null {
  for (const from of [thisFile(), join(process.cwd(), 'noop.js')]) {
    try {
      return join(dirname(createRequire(from).resolve(`${DATA_PACKAGE}/package.json`)), DATA_FILE);
    } catch {
      // not resolvable from here: try the next place
    }
  }
  return null;
}

/**
 * Path of the default snapshot: `$IPINTEL_SNAPSHOT`, else the `@ipintel/data`
 * package's `world.ipintel`. Throws `IpIntelError` `snapshot_not_found` when
 * neither is there, saying how to get one.
 *
 * @example
 * defaultSnapshotPath() // => '/app/node_modules/@ipintel/data/world.ipintel'
 */
export function defaultSnapshotPath(): string {
  const env = process.env['IPINTEL_SNAPSHOT'];
  if (env !== undefined && env !== '') return resolve(env);
  const data = dataPackageSnapshot();
  if (data !== null) return data;
  throw new IpIntelError(
    'snapshot_not_found',
    `no default snapshot: $IPINTEL_SNAPSHOT is not set and ${DATA_PACKAGE} is not installed. ` +
      `Install the data (npm install ${DATA_PACKAGE}), set IPINTEL_SNAPSHOT to a snapshot file, or pass a path to open()`,
  );
}

/** The error for a snapshot file that is not there, with how to get one (`open`, `openSync` and the batch's load). */
export function snapshotNotFound(path: string): IpIntelError {
  const inDataPackage = path === dataPackageSnapshot();
  const how = inDataPackage
    ? `the ${DATA_PACKAGE} package here holds no built snapshot (in the ipintel repository: \`pnpm start\` builds it)`
    : 'build one with `ipintel build --out PATH`, or pass the path of an existing snapshot';
  return new IpIntelError('snapshot_not_found', `no snapshot at ${path}: ${how}`, path);
}

/**
 * The size of the snapshot file whose stat is `stat`; `snapshot_not_found` when `path` names no
 * regular file (a directory, a pipe), whose reads would fail with a bare EISDIR or ESPIPE.
 */
export function snapshotFileSize(stat: { isFile(): boolean; isDirectory(): boolean; size: number }, path: string): number {
  if (stat.isFile()) return stat.size;
  const what = stat.isDirectory() ? 'a directory' : 'not a regular file';
  throw new IpIntelError('snapshot_not_found', `no snapshot at ${path}: it is ${what}; pass the path of a snapshot file (\`ipintel build --out PATH\` makes one)`, path);
}

/**
 * Flags that open a file for reading without waiting: a named pipe opened for reading waits for a
 * writer (forever, if none comes), before its stat could refuse it as no regular file. Regular files
 * read the same with or without O_NONBLOCK. (Windows has no O_NONBLOCK, nor such pipes at a path.)
 */
export const READ_NOW = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** A descriptor of the snapshot file at `path` (read only); `snapshot_not_found` when the path names no file. */
export function openSnapshotFd(path: string): number {
  try {
    return openSync(path, READ_NOW);
  } catch (e) {
    if (namesNoFile(e)) throw snapshotNotFound(path);
    throw e;
  }
}

/**
 * Errors of a path that names no file: missing, a file used as a folder on the way, a name too
 * long, and a path holding a NUL character (which no file system takes: node refuses it before
 * any system call, with this code, which the fs calls here give for nothing else, their other
 * arguments being ours).
 */
const NO_FILE = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG', 'ERR_INVALID_ARG_VALUE']);

/** Whether opening a path failed because it names no file (so: `snapshot_not_found`). */
export function namesNoFile(e: unknown): boolean {
  return NO_FILE.has((e as NodeJS.ErrnoException | null)?.code ?? '');
}
