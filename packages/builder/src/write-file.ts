/**
 * How the builder writes a file: the snapshot (`--out`), its explain
 * sidecar, the feeds `--save-feeds` saves, the feeds manifest and
 * SOURCES.md. Each is replaced as a whole (a temporary file beside it,
 * flushed, renamed over it), so a reader never sees half a file and a
 * power loss cannot leave the name over an empty or partial one. A link
 * stays a link, the file it leads to getting the content (write-target.ts);
 * every failure is BuildError `write_failed` naming the path given.
 *
 * Its own module because it is not the manifest's job: every file the
 * builder writes goes through here. @ipintel/export has its synchronous
 * twin (packages/export/src/replace-file.ts); the two packages share no
 * runtime package, and core does not write files, so each keeps its own.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { BuildError } from './errors.js';
import { fsErrorText } from './fs-error.js';
import { named, writeTarget } from './write-target.js';

/**
 * Writes `file` as a whole: beside the file it replaces (`file`, or the
 * file it links to: the link is kept; write-target.ts), flushed to the
 * disk, then renamed over it, so a reader never sees half a file and a
 * power loss after this returned cannot leave the name over an empty or
 * partial file (the rename may reach the disk before unflushed data); the
 * folder is flushed after, so the rename lasts too. The temporary file is
 * created exclusively (a leftover at `TARGET.tmp-<pid>`, or a link planted
 * there, is left alone and a random name taken instead) and removed on any
 * failure, which leaves the file it would replace untouched. A file it
 * replaces keeps its permission bits, and its owner and group where the
 * process may give them (keepOwnership).
 *
 * Throws BuildError `write_failed` naming `file` as given, never the
 * temporary file the user did not ask for (the file system's error is its
 * `cause`); a device, named pipe or socket at `file` is refused before
 * anything is written. With `interrupts`, a stop before the rename ends
 * the write: the temporary file is removed, `file` is left as it was, and
 * it throws BuildError `interrupted`.
 */
export async function writeAtomically(file: string, data: Uint8Array | string, interrupts?: WriteInterrupts): Promise<void> {
  let target = file;
  const stop = new AbortController();
  let stoppedBy: string | undefined;
  const unsubscribe = interrupts?.((by) => {
    stoppedBy ??= by;
    stop.abort();
  });
  try {
    target = await writeTarget(file);
    await replace(target, data, stop.signal);
  } catch (e) {
    // The write's own AbortError, or any failure after the stop: the stop is what happened.
    if (stoppedBy !== undefined) throw new BuildError('interrupted', `stopped by ${stoppedBy} before ${named(file, target)} was replaced: it was left as it was`, { cause: e });
    throw writeFailed(e, `cannot write ${named(file, target)}`);
  } finally {
    unsubscribe?.();
  }
  try {
    await syncDirectory(dirname(target));
  } catch (e) {
    throw writeFailed(e, `${named(file, target)} was written, but its folder could not be flushed, so a power loss may undo the rename`);
  }
}

/**
 * How a caller lets a write be stopped (ipintel build: on SIGINT or
 * SIGTERM). Called as the write begins, with `stop` to call on an
 * interruption (`by` names it: 'SIGINT'); returns the function that ends
 * the subscription, called once the temporary file is renamed over the
 * file or removed. A subscription, not an AbortSignal, because a process
 * listener for SIGINT defers the signal until the thread is free: the
 * caller listens only while a temporary file exists (the write is
 * asynchronous, so it hears it at once), and the long synchronous work
 * before (encoding the snapshot) keeps Ctrl-C's default action.
 */
export type WriteInterrupts = (stop: (by: string) => void) => () => void;

/** The temporary file written, flushed and renamed over `target`; removed on any failure, or when `signal` aborts first. */
async function replace(target: string, data: Uint8Array | string, signal: AbortSignal): Promise<void> {
  const { handle, tmp } = await createTemporary(target);
  let closed = false;
  let renamed = false;
  try {
    // Written in chunks (512 KiB), the signal checked between them.
    await handle.writeFile(data, { signal });
    await keepOwnership(handle, target);
    await handle.sync();
    closed = true;
    await handle.close();
    // A stop during the flush still comes before the old file is replaced.
    signal.throwIfAborted();
    await rename(tmp, target);
    renamed = true;
  } finally {
    if (!renamed) {
      // A failed write's error is the one to report, not a close that fails after it.
      if (!closed) await handle.close().catch(() => undefined);
      await rm(tmp, { force: true });
    }
  }
}

/**
 * Makes the folder `file` goes in, and its parents (the build writes
 * `--out` into a folder it creates), as BuildError `write_failed` naming
 * `file` when it cannot be made (a file where a folder should be).
 */
export async function makeFolderFor(file: string): Promise<void> {
  try {
    await mkdir(dirname(file), { recursive: true });
  } catch (e) {
    throw writeFailed(e, `cannot write ${file}: its folder ${dirname(file)} cannot be made`);
  }
}

/** Removes `file` if it is there (a link: the link), as BuildError `write_failed` naming it when it cannot be. */
export async function removeFile(file: string): Promise<void> {
  try {
    // unlink, not rm: a folder at the name is refused as EISDIR (rm's ERR_FS_EISDIR has no errno to describe).
    await unlink(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw writeFailed(e, `cannot remove ${file}`);
  }
}

/**
 * An error of the file system (it carries a code and a syscall) as
 * BuildError `write_failed`: "<what>: ENOENT: no such file or directory".
 * The file system's own message names the temporary file (open
 * '/srv/world.ipintel.tmp-123'), which the user never gave; it stays in
 * `cause`. Any other error (a BuildError already, a bug) is returned as it
 * is.
 */
function writeFailed(e: unknown, what: string): unknown {
  const text = fsErrorText(e);
  return text === null ? e : new BuildError('write_failed', `${what}: ${text}`, { cause: e });
}

/** fchown's answers meaning "not allowed here" (an ordinary user cannot give a file away), not a failed write. */
const OWNER_REFUSED = ['EPERM', 'EINVAL', 'ENOSYS', 'ENOTSUP', 'EOPNOTSUPP'];

/**
 * Gives the temporary file the permission bits of the file it replaces (a
 * `0640` snapshot came back `0644`, the umask's default), and its owner and
 * group where the system lets us (as root, a `root:ipintel` file came back
 * `root:root`). Set-user-ID, set-group-ID and sticky are not carried to new
 * content. A new file keeps the defaults.
 */
async function keepOwnership(handle: FileHandle, file: string): Promise<void> {
  const old = await stat(file).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
  if (old === undefined) return;
  const mine = await handle.stat();
  if (mine.uid !== old.uid || mine.gid !== old.gid) {
    await handle.chown(old.uid, old.gid).catch((e: NodeJS.ErrnoException) => {
      if (!OWNER_REFUSED.includes(e.code ?? '')) throw e;
    });
  }
  // After the chown, which may clear bits of the mode.
  await handle.chmod(old.mode & 0o777);
}

/** `TARGET.tmp-<pid>`, or, when something is at that name, `TARGET.tmp-<pid>-<random>` (8 tries). */
async function createTemporary(file: string): Promise<{ handle: FileHandle; tmp: string }> {
  for (let attempt = 0; ; attempt++) {
    const tmp = attempt === 0 ? `${file}.tmp-${process.pid}` : `${file}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
    try {
      return { handle: await open(tmp, 'wx'), tmp };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt === 7) throw e;
    }
  }
}

/**
 * Failures of a directory's fsync that mean "not here", not "lost": file
 * systems that refuse it (EINVAL, ENOTSUP), Windows, which cannot open a
 * directory (EISDIR, EPERM), a directory writable but not readable (EACCES).
 */
const DIR_SYNC_REFUSED = ['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EISDIR', 'EPERM', 'EACCES'];

/** Flushes a directory so a rename in it lasts (best effort: see DIR_SYNC_REFUSED). */
async function syncDirectory(dir: string): Promise<void> {
  const refused = (e: unknown): boolean => DIR_SYNC_REFUSED.includes((e as NodeJS.ErrnoException).code ?? '');
  let handle: FileHandle;
  try {
    handle = await open(dir, 'r');
  } catch (e) {
    if (refused(e)) return;
    throw e;
  }
  try {
    await handle.sync();
  } catch (e) {
    if (!refused(e)) throw e;
  } finally {
    await handle.close();
  }
}
