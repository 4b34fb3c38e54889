/**
 * Replacing a file as a whole: the new content is written to a temporary
 * file beside the target, flushed to the disk, and renamed over the target,
 * so a reader sees the old file or the new one, never half of one, and a
 * power loss after the export returned cannot leave an empty or partial
 * file under the target's name (docs/export.md, "How the file is written").
 * Faithful to what it replaces: the target keeps its permission bits, and a
 * symbolic link stays a link, the file it links to being the target.
 *
 * The file system calls come in as `fs` (node:fs by default) so a test can
 * see which were made, in which order; nothing else is replaceable.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { dirname, resolve } from 'node:path';
import { getSystemErrorMap } from 'node:util';
import { ExportError } from './errors.js';

/** The node:fs calls replaceFile makes. */
export type FsCalls = Pick<
  typeof nodeFs,
  'openSync' | 'writeSync' | 'fsyncSync' | 'closeSync' | 'renameSync' | 'rmSync' | 'statSync' | 'fstatSync' | 'fchmodSync' | 'fchownSync' | 'lstatSync' | 'readlinkSync' | 'realpathSync'
>;

/**
 * Failures of fsync on a directory that say "not here" rather than "the
 * data is lost": file systems that refuse fsync on a directory (EINVAL,
 * ENOTSUP), Windows, where a directory cannot be opened as a file (EISDIR,
 * EPERM), a directory we may write into but not read (EACCES).
 */
const DIR_SYNC_UNSUPPORTED = new Set(['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EISDIR', 'EPERM', 'EACCES', 'EBADF']);

/**
 * Writes `path` as a whole: `fill` gets a `write` that appends to a
 * temporary file beside the target (`path`, or the file it links to: the
 * link is kept); once `fill` returns, the file is flushed (fsync) and
 * renamed over the target, and the directory is flushed so the rename
 * survives a power loss too. The new file keeps the permission bits of the
 * one it replaces. On any failure (of `fill` or of the file system) the
 * temporary file is removed and the target is untouched.
 *
 * Throws what `fill` throws, and ExportError `write_failed` naming `path`
 * (the file system's error as its `cause`) when the file cannot be written.
 *
 * @returns what `fill` returned, and the number of bytes written.
 * @example
 * replaceFile('out.csv', (write) => write(new TextEncoder().encode('a,b\n'))).bytes // => 4
 */
export function replaceFile<T>(path: string, fill: (write: (bytes: Uint8Array) => void) => T, fs: FsCalls = nodeFs): { result: T; bytes: number } {
  // A fill without pauses: the steps pause only after the flush, and nothing listens then.
  // eslint-disable-next-line require-yield
  const steps = replaceSteps(path, function* (write) {
    return fill(write);
  }, fs);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * How a caller lets a write be stopped (ipintel export: on SIGINT or
 * SIGTERM). Called once the write begins, with `stop` to call on an
 * interruption (`by` names it: 'SIGINT'); returns the function that ends
 * the subscription, called once the temporary file is renamed over the
 * target or removed.
 *
 * A subscription rather than an AbortSignal because of when it is on: a
 * process listener for SIGINT defers the signal until the thread is free,
 * so the caller listens only while there is a temporary file to remove and
 * the write yields often enough to hear it; before (an MMDB is built in
 * memory first, 35 s for the world snapshot), Ctrl-C keeps its default
 * action and ends the process at once, with nothing on disk to clean.
 */
export type WriteInterrupts = (stop: (by: string) => void) => () => void;

/**
 * A fill for replaceFileAsync: writes through `write`, and yields where the
 * write may pause (after a chunk) to let the event loop run, so an
 * interruption is heard.
 */
export type SteppedFill<T> = (write: (bytes: Uint8Array) => void) => Generator<void, T, void>;

/**
 * replaceFile, giving the event loop a turn each time `fill` yields and once
 * more after the flush, before the rename: an interruption `interrupts`
 * reports by then stops the write, removes the temporary file and leaves
 * the target untouched (ExportError `interrupted`, naming `path` and what
 * stopped it). One that comes later (during the rename, or after it) does
 * not undo the write.
 *
 * @example
 * await replaceFileAsync('out.csv', function* (write) { write(bytes); yield; }, { interrupts }).bytes
 */
export async function replaceFileAsync<T>(
  path: string,
  fill: SteppedFill<T>,
  { interrupts, fs = nodeFs }: { interrupts?: WriteInterrupts; fs?: FsCalls } = {},
): Promise<{ result: T; bytes: number }> {
  let stoppedBy: string | undefined;
  const unsubscribe: unknown = interrupts?.((by) => {
    stoppedBy ??= by;
  });
  // Refused before anything is written: called in the finally below, a value that is not a
  // function failed as a TypeError after the rename, the file replaced but the promise rejected.
  // Nothing (undefined, null) stays accepted: there is then no subscription to end.
  if (unsubscribe !== undefined && unsubscribe !== null && typeof unsubscribe !== 'function') {
    throw new ExportError('invalid_option', 'interrupts must return the function that ends its subscription');
  }
  try {
    const steps = replaceSteps(path, fill, fs);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
      // setImmediate, not a microtask: a signal's listener runs in the poll phase, before it.
      await new Promise((resume) => setImmediate(resume));
      if (stoppedBy !== undefined) {
        // Ends the steps where they paused: their finally blocks close and remove the temporary file.
        steps.return(undefined as never);
        throw new ExportError('interrupted', `stopped by ${stoppedBy} before ${path} was replaced: it was left as it was`);
      }
    }
  } finally {
    (unsubscribe as (() => void) | undefined)?.();
  }
}

/**
 * The steps of a replacement (see replaceFile), pausing where `fill` yields
 * and once after the flush, before the rename; ended early (return()), the
 * temporary file is closed and removed.
 */
function* replaceSteps<T>(path: string, fill: SteppedFill<T>, fs: FsCalls): Generator<void, { result: T; bytes: number }, void> {
  let target = path;
  let written: { result: T; bytes: number };
  try {
    target = linkTarget(path, fs);
    const special = specialFileKind(target, fs);
    if (special !== null) throw new ExportError('write_failed', `cannot write ${named(path, target)}: it is a ${special}, which an export would replace with a file`);
    written = yield* writeAndRename(target, fill, fs);
  } catch (e) {
    throw writeFailed(e, `cannot write ${named(path, target)}`);
  }
  try {
    syncDirectory(target, fs);
  } catch (e) {
    throw writeFailed(e, `${named(path, target)} was written, but its directory could not be flushed, so a power loss may undo the rename`);
  }
  return written;
}

/**
 * Fails now, as replaceFile would fail later, when no file can be created
 * beside the target of `path` (a missing directory, no permission, a
 * device at the path): a temporary file is created and removed at once.
 * An export checks this before it computes the file (35 s for the world
 * snapshot's MMDB), which it does before the temporary file it writes
 * exists, so a Ctrl-C meanwhile leaves nothing behind.
 *
 * Throws ExportError `write_failed` naming `path`, as replaceFile does.
 */
export function checkWritable(path: string, fs: FsCalls = nodeFs): void {
  let target = path;
  try {
    target = linkTarget(path, fs);
    const special = specialFileKind(target, fs);
    if (special !== null) throw new ExportError('write_failed', `cannot write ${named(path, target)}: it is a ${special}, which an export would replace with a file`);
    const { fd, tmp } = openTemporary(target, fs);
    try {
      fs.closeSync(fd);
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  } catch (e) {
    throw writeFailed(e, `cannot write ${named(path, target)}`);
  }
}

/** `path` as the messages name it: with the file it links to, when it is a link. */
const named = (path: string, target: string): string => (target === path ? path : `${path} (a link to ${target})`);

/** Links followed from the path given before giving up, Linux's own limit (ELOOP past 40). */
const MAX_LINKS = 40;

/**
 * The file a write to `path` replaces: `path` itself or, when `path` is a
 * symbolic link, the file at the end of its chain, so the link stays a link
 * and the file it points at gets the new content (renamed over, the link
 * became a regular file and the file it pointed at was left stale). A
 * dangling link is followed too: the file it names is created, as a shell's
 * `>` would, when its directory exists.
 */
function linkTarget(path: string, fs: FsCalls): string {
  let target = path;
  for (let links = 0; ; links++) {
    const stat = fs.lstatSync(target, { throwIfNoEntry: false });
    if (stat === undefined || !stat.isSymbolicLink()) return target;
    if (links === MAX_LINKS) throw new ExportError('write_failed', `cannot write ${path}: more than ${MAX_LINKS} symbolic links to follow (a loop?)`);
    // A relative link is read from the link's real directory, as the kernel reads it: after a
    // linked directory, `..` is the parent of the directory it links to, not of the link.
    target = resolve(fs.realpathSync(dirname(target)), fs.readlinkSync(target));
  }
}

/** The temporary file written, flushed and renamed over `target`; removed on any failure, or when the steps are ended early. */
function* writeAndRename<T>(target: string, fill: SteppedFill<T>, fs: FsCalls): Generator<void, { result: T; bytes: number }, void> {
  const { fd, tmp } = openTemporary(target, fs);
  // The partial file goes unless it became the target: a failure anywhere before the rename
  // completes (writing, flushing, closing, or the rename itself, e.g. onto a directory), or an
  // interruption, must not leave hundreds of MB beside the target.
  let open = true;
  let renamed = false;
  try {
    let bytes = 0;
    const result = yield* fill((chunk) => {
      for (let at = 0; at < chunk.length; ) at += fs.writeSync(fd, chunk, at, chunk.length - at);
      bytes += chunk.length;
    });
    keepMode(fd, target, fs);
    // Without it the rename can reach the disk before the data: after a power loss the target
    // would be the new name over an empty or partial file, the old one gone.
    fs.fsyncSync(fd);
    open = false;
    fs.closeSync(fd);
    // A pause before the rename: an interruption during the flush (seconds, for GBs of CSV) still stops it.
    yield;
    fs.renameSync(tmp, target);
    renamed = true;
    return { result, bytes };
  } finally {
    if (!renamed) {
      // A second close after a failed one would throw EBADF over the error that matters.
      if (open) fs.closeSync(fd);
      fs.rmSync(tmp, { force: true });
    }
  }
}

/**
 * An error of the file system (it carries a code and a syscall) as
 * ExportError `write_failed`: "<what>: ENOENT: no such file or directory".
 * The file system's message names the temporary file (open
 * 'out/x.mmdb.tmp-123'), which the user never gave; it stays in `cause`.
 * Any other error (an ExportError of the export itself, a bug) is returned
 * as it is.
 */
function writeFailed(e: unknown, what: string): unknown {
  const err = e as NodeJS.ErrnoException;
  if (!(e instanceof Error) || typeof err.code !== 'string' || typeof err.syscall !== 'string') return e;
  const description = err.errno === undefined ? undefined : getSystemErrorMap().get(err.errno)?.[1];
  return new ExportError('write_failed', `${what}: ${err.code}${description === undefined ? '' : `: ${description}`}`, { cause: e });
}

/**
 * Gives the temporary file the permissions of the file it replaces: a
 * target kept private (0600) or readable by a group (0640) would otherwise
 * come back with the umask's default, 0644 as a rule. Only the permission
 * bits: set-user-ID, set-group-ID and sticky are not carried to new content.
 * A new target keeps the default the temporary file was created with.
 *
 * Its owner and group too, where the process may give them (root, or a
 * group of its own): a `root:www-data 0640` file replaced by root came back
 * `root:root`, and the server reading it through its group lost it. Where
 * the system refuses (EPERM: an ordinary user cannot give a file away), the
 * file keeps the writer's, as any new file does.
 */
function keepMode(fd: number, target: string, fs: FsCalls): void {
  // Read once the content is written, not before: a chmod during a long export is kept too.
  const old = fs.statSync(target, { throwIfNoEntry: false });
  if (old === undefined) return;
  const mine = fs.fstatSync(fd);
  if (mine.uid !== old.uid || mine.gid !== old.gid) {
    try {
      fs.fchownSync(fd, old.uid, old.gid);
    } catch (e) {
      if (!OWNER_REFUSED.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
    }
  }
  // After the chown, which may clear bits of the mode.
  fs.fchmodSync(fd, old.mode & 0o777);
}

/** fchown's answers meaning "not allowed here" (an ordinary user; a file system without owners), not a failed write. */
const OWNER_REFUSED = new Set(['EPERM', 'EINVAL', 'ENOSYS', 'ENOTSUP', 'EOPNOTSUPP']);

/**
 * What `target` is when it is neither a file, a directory nor absent: a
 * device, a named pipe or a socket. Renamed over, `/dev/null` (as root)
 * would become a regular file; a directory is left to the rename, which
 * refuses it.
 */
function specialFileKind(target: string, fs: FsCalls): string | null {
  const stat = fs.lstatSync(target, { throwIfNoEntry: false });
  if (stat === undefined || stat.isFile() || stat.isDirectory()) return null;
  if (stat.isCharacterDevice()) return 'character device';
  if (stat.isBlockDevice()) return 'block device';
  if (stat.isFIFO()) return 'named pipe (FIFO)';
  return 'socket';
}

/** Names tried for the temporary file before giving up (each after the first is random). */
const TEMPORARY_NAME_TRIES = 8;

/**
 * Creates the temporary file, `TARGET.tmp-<pid>`, exclusively: a file
 * already there (a leftover of a dead process that had our pid, or a link
 * planted to make us overwrite what it points at) is never opened, followed
 * or removed; a random suffix is tried instead, so a leftover does not
 * block every later export.
 */
function openTemporary(target: string, fs: FsCalls): { fd: number; tmp: string } {
  for (let attempt = 0; ; attempt++) {
    const tmp = attempt === 0 ? `${target}.tmp-${process.pid}` : `${target}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
    try {
      return { fd: fs.openSync(tmp, 'wx'), tmp };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt + 1 === TEMPORARY_NAME_TRIES) throw e;
    }
  }
}

/**
 * Flushes the directory of `target`, so the rename in it is on the disk
 * (best effort: see DIR_SYNC_UNSUPPORTED). Any other failure, an I/O error,
 * is thrown: the file was renamed, but its new name may not survive a power
 * loss.
 */
function syncDirectory(target: string, fs: FsCalls): void {
  let fd: number;
  try {
    fd = fs.openSync(dirname(target), 'r');
  } catch (e) {
    if (DIR_SYNC_UNSUPPORTED.has((e as NodeJS.ErrnoException).code ?? '')) return;
    throw e;
  }
  try {
    fs.fsyncSync(fd);
  } catch (e) {
    if (!DIR_SYNC_UNSUPPORTED.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
  } finally {
    fs.closeSync(fd);
  }
}
