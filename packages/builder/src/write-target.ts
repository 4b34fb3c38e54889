/**
 * Which file a write to a path replaces, and whether it may be replaced:
 * the path itself or, when it is a symbolic link, the file at the end of
 * its chain; never a device, a named pipe or a socket. Apart from
 * write-file.ts, which does the replacing, because a deploy's
 * `--out current.ipintel -> releases/v5/world.ipintel` must stay a link:
 * renamed over, the link became a regular file and the file it pointed at
 * was left stale.
 *
 * The rules are the export's (packages/export/src/replace-file.ts,
 * docs/export.md "How the file is written"), so `ipintel build --out` and
 * `ipintel export --out` treat a link alike.
 *
 * @module
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { BuildError } from './errors.js';

/** `path` as messages name it: with the file it links to, when it is a link. */
export const named = (path: string, target: string): string => (target === path ? path : `${path} (a link to ${target})`);

/** Links followed from the path given before giving up, Linux's own limit (ELOOP past 40). */
const MAX_LINKS = 40;

/**
 * The file a write to `path` replaces (see the module header). A dangling
 * link is followed too: the file it names is created, as a shell's `>`
 * would, when its folder exists. Throws BuildError `write_failed` for a
 * loop of links and for a device, named pipe or socket (renamed over, as
 * root, `/dev/null` would become a regular file); file system errors are
 * thrown as they are, for the caller to name.
 */
export async function writeTarget(path: string): Promise<string> {
  let target = path;
  for (let links = 0; ; links++) {
    const stat = await lstat(target).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return undefined;
      throw e;
    });
    if (stat === undefined || stat.isFile() || stat.isDirectory()) return target; // a directory is left to the rename, which refuses it
    if (!stat.isSymbolicLink()) throw new BuildError('write_failed', `cannot write ${named(path, target)}: it is a ${specialKind(stat)}, which the build would replace with a regular file`);
    if (links === MAX_LINKS) throw new BuildError('write_failed', `cannot write ${path}: more than ${MAX_LINKS} symbolic links to follow (a loop?)`);
    // A relative link is read from the link's real folder, as the kernel reads it: after a
    // linked folder, `..` is the parent of the folder it links to, not of the link.
    target = resolve(await realpath(dirname(target)), await readlink(target));
  }
}

/** What a file that is neither a regular file, a directory nor a link is, in words. */
function specialKind(stat: { isCharacterDevice(): boolean; isBlockDevice(): boolean; isFIFO(): boolean }): string {
  if (stat.isCharacterDevice()) return 'character device';
  if (stat.isBlockDevice()) return 'block device';
  if (stat.isFIFO()) return 'named pipe (FIFO)';
  return 'socket';
}
