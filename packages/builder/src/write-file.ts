/**
 * How the builder writes a file: the snapshot (`--out`), its explain
 * sidecar, the feeds `--save-feeds` saves, the feeds manifest and
 * SOURCES.md. Each is replaced as a whole (a temporary file beside it,
 * flushed, renamed over it), so a reader never sees half a file and a
 * power loss cannot leave the name over an empty or partial one.
 *
 * Its own module because it is not the manifest's job: every file the
 * builder writes goes through here. @ipintel/export has its synchronous
 * twin (packages/export/src/replace-file.ts); the two packages share no
 * runtime package, and core does not write files, so each keeps its own.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes a file beside its final name, flushes it to the disk, then renames
 * it over: a reader never sees half a file, and a power loss after this
 * returned cannot leave the name over an empty or partial file (the rename
 * may reach the disk before unflushed data). The temporary file is created
 * exclusively (a leftover at `FILE.tmp-<pid>`, or a link planted there, is
 * left alone and a random name taken instead) and removed on any failure.
 * A file it replaces keeps its permission bits, and its owner and group
 * where the process may give them (keepOwnership).
 */
export async function writeAtomically(file: string, data: Uint8Array | string): Promise<void> {
  const { handle, tmp } = await createTemporary(file);
  let closed = false;
  let renamed = false;
  try {
    await handle.writeFile(data);
    await keepOwnership(handle, file);
    await handle.sync();
    closed = true;
    await handle.close();
    await rename(tmp, file);
    renamed = true;
  } finally {
    if (!renamed) {
      // A failed write's error is the one to report, not a close that fails after it.
      if (!closed) await handle.close().catch(() => undefined);
      await rm(tmp, { force: true });
    }
  }
  await syncDirectory(dirname(file));
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

/** `FILE.tmp-<pid>`, or, when something is at that name, `FILE.tmp-<pid>-<random>` (8 tries). */
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
