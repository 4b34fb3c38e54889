/**
 * writeAtomically (src/write-file.ts), which writes the snapshot, its explain
 * sidecar, saved feeds and the manifest, on a real temp directory: the data
 * is flushed before the rename and the directory after it; the temporary
 * file is created exclusively, so a leftover or a planted link at its name
 * is left alone; a failure leaves no temporary file and the old file as it
 * was, and is BuildError write_failed naming the path given; a link stays a
 * link, its file getting the content; a named pipe is refused.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, fstatSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { getSystemErrorMap } from 'node:util';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { folderWithFile, tempDir } from '@ipintel/testkit';
import { BuildError } from '../src/errors.js';
import { makeFolderFor, removeFile, writeAtomically } from '../src/write-file.js';

const { dir, cleanup } = tempDir('ipintel-builder-write-');
afterAll(cleanup);
afterEach(() => vi.restoreAllMocks());

/**
 * Runs `before`, told whether the file is a directory, before every FileHandle
 * sync (a throw there fails that sync); FileHandle is not exported, so its prototype is
 * reached through a handle on `file`.
 */
async function onSync(file: string, before: (directory: boolean) => void): Promise<void> {
  const probe = await open(file, 'r');
  const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
  await probe.close();
  const original = proto.sync;
  vi.spyOn(proto, 'sync').mockImplementation(async function (this: { fd: number }) {
    before(fstatSync(this.fd).isDirectory());
    return original.call(this);
  });
}

/** The error node:fs gives for an I/O error at fsync. */
const ioError = (): NodeJS.ErrnoException => Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO', errno: -5, syscall: 'fsync' });

/** What `promise` rejected with (it must reject). */
async function rejection(promise: Promise<unknown>): Promise<BuildError> {
  const e: unknown = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(BuildError);
  return e as BuildError;
}

describe('writeAtomically', () => {
  it.each([
    { when: 'as it begins', stopAt: 0 },
    { when: 'once the temporary file is open', stopAt: 1 },
  ])('stopped by its interrupts $when: BuildError interrupted, the old file as it was, no temporary file, the subscription ended', async ({ stopAt }) => {
    const { dir: d, path: out } = folderWithFile(dir, `stopped-${stopAt}`);
    const events: string[] = [];
    const e = await rejection(
      writeAtomically(out, 'new'.repeat(1 << 20), (stop) => {
        events.push('subscribed');
        if (stopAt === 0) stop('SIGINT');
        // The temporary file is opened on a later turn of the event loop; stop then.
        else void (async () => {
          while (!readdirSync(d).some((n) => n.includes('.tmp-'))) await new Promise((r) => setImmediate(r));
          stop('SIGTERM');
        })();
        return () => events.push('unsubscribed');
      }),
    );
    expect([e.code, e.message]).toEqual(['interrupted', `stopped by ${stopAt === 0 ? 'SIGINT' : 'SIGTERM'} before ${out} was replaced: it was left as it was`]);
    expect(readFileSync(out, 'utf8')).toBe('old');
    expect(readdirSync(d)).toEqual(['out']);
    expect(events).toEqual(['subscribed', 'unsubscribed']);
  });

  it('flushes the file while the old one is still in place, then the directory once the new one is', async () => {
    const { path: out } = folderWithFile(dir, 'order');
    const syncs: string[] = [];
    await onSync(out, (directory) => syncs.push(`${directory ? 'directory' : 'file'} with ${readFileSync(out, 'utf8')} in place`));
    await writeAtomically(out, 'new');
    expect(syncs).toEqual(['file with old in place', 'directory with new in place']);
    expect(readFileSync(out, 'utf8')).toBe('new');
  });

  it('a leftover FILE.tmp-<pid> is left alone, and the write still succeeds', async () => {
    const { dir: d, path: out } = folderWithFile(dir, 'stale');
    writeFileSync(`${out}.tmp-${process.pid}`, 'a leftover');
    await writeAtomically(out, 'new');
    expect(readFileSync(out, 'utf8')).toBe('new');
    expect(readFileSync(`${out}.tmp-${process.pid}`, 'utf8')).toBe('a leftover');
    expect(readdirSync(d).sort()).toEqual(['out', `out.tmp-${process.pid}`]);
  });

  it('a link planted at FILE.tmp-<pid> is not followed: the file it points at stays as it was', async () => {
    const { dir: d, path: out } = folderWithFile(dir, 'planted');
    const victim = join(d, 'victim');
    writeFileSync(victim, 'precious');
    symlinkSync(victim, `${out}.tmp-${process.pid}`);
    await writeAtomically(out, 'new');
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(readlinkSync(`${out}.tmp-${process.pid}`)).toBe(victim);
    expect(readFileSync(out, 'utf8')).toBe('new');
  });

  it('when the rename fails (a directory at the name), nothing is left beside it and a leftover stays', async () => {
    const d = join(dir, 'onto-dir');
    const out = join(d, 'out');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'keep'), 'x');
    writeFileSync(`${out}.tmp-${process.pid}`, 'a leftover');
    await expect(writeAtomically(out, 'new')).rejects.toThrow(
      expect.objectContaining({ code: 'write_failed', message: expect.stringContaining(`cannot write ${out}: E`), cause: expect.objectContaining({ code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST)$/) }) }),
    );
    expect(readdirSync(d).sort()).toEqual(['out', `out.tmp-${process.pid}`]);
    expect(readdirSync(out)).toEqual(['keep']);
    expect(readFileSync(`${out}.tmp-${process.pid}`, 'utf8')).toBe('a leftover');
  });
  it('the file it replaces keeps its permission bits, whatever they are; a new file gets the default', async () => {
    const d = join(dir, 'modes');
    mkdirSync(d, { recursive: true });
    const out = join(d, 'out');
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 0o7777 }), async (mode) => {
        writeFileSync(out, 'old');
        chmodSync(out, mode);
        await writeAtomically(out, 'new');
        // Only the permission bits: set-user-ID, set-group-ID and sticky do not carry over to new content.
        expect((statSync(out).mode & 0o7777).toString(8)).toBe((mode & 0o777).toString(8));
        expect(readFileSync(out, 'utf8')).toBe('new');
        rmSync(out);
      }),
      { numRuns: 30 },
    );
    writeFileSync(join(d, 'plain'), 'x');
    await writeAtomically(join(d, 'fresh'), 'new');
    expect(statSync(join(d, 'fresh')).mode).toBe(statSync(join(d, 'plain')).mode);
  });

  it('as root the owner and group of the file it replaces are kept; as a user, the file stays the user\'s', async () => {
    const { path: out } = folderWithFile(dir, 'owner');
    const root = process.getuid?.() === 0;
    if (root) chownSync(out, 4242, 4343);
    const before = statSync(out);
    await writeAtomically(out, 'new');
    const after = statSync(out);
    expect(readFileSync(out, 'utf8')).toBe('new');
    if (root) expect([after.uid, after.gid]).toEqual([4242, 4343]);
    else expect([after.uid, after.gid]).toEqual([before.uid, before.gid]);
  });

  it('a link stays a link and the file it leads to gets the content (with its mode), the temporary file beside that file', async () => {
    const d = join(dir, 'link');
    mkdirSync(join(d, 'releases', 'v5'), { recursive: true });
    const real = join(d, 'releases', 'v5', 'world.ipintel');
    writeFileSync(real, 'old');
    chmodSync(real, 0o640);
    const link = join(d, 'current.ipintel');
    symlinkSync('releases/v5/world.ipintel', link);
    const flushed: string[] = [];
    await onSync(real, (directory) => {
      if (!directory) flushed.push(readdirSync(join(d, 'releases', 'v5')).sort().join(' '));
    });
    await writeAtomically(link, 'new');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe('releases/v5/world.ipintel');
    expect(readFileSync(real, 'utf8')).toBe('new');
    expect(statSync(real).mode & 0o777).toBe(0o640);
    expect(flushed).toEqual([`world.ipintel world.ipintel.tmp-${process.pid}`]);
    expect(readdirSync(d).sort()).toEqual(['current.ipintel', 'releases']);
  });

  it('a chain of links is followed to its file, a relative link read from its real folder', async () => {
    const d = join(dir, 'chain');
    mkdirSync(join(d, 'real', 'sub'), { recursive: true });
    symlinkSync(join(d, 'real', 'sub'), join(d, 'linked'));
    symlinkSync('../file', join(d, 'real', 'sub', 'out'));
    symlinkSync(join(d, 'linked', 'out'), join(d, 'first'));
    await writeAtomically(join(d, 'first'), 'new');
    expect(readFileSync(join(d, 'real', 'file'), 'utf8')).toBe('new');
    expect(readdirSync(d).sort()).toEqual(['first', 'linked', 'real']);
    expect(lstatSync(join(d, 'real', 'sub', 'out')).isSymbolicLink()).toBe(true);
  });

  it('a dangling link: the file it names is created and the link kept; into a missing folder, write_failed names the link and its file', async () => {
    const d = join(dir, 'dangling');
    mkdirSync(join(d, 'data'), { recursive: true });
    symlinkSync('data/world.ipintel', join(d, 'current.ipintel'));
    await writeAtomically(join(d, 'current.ipintel'), 'new');
    expect(readlinkSync(join(d, 'current.ipintel'))).toBe('data/world.ipintel');
    expect(readFileSync(join(d, 'data', 'world.ipintel'), 'utf8')).toBe('new');

    symlinkSync('missing/world.ipintel', join(d, 'next.ipintel'));
    const e = await rejection(writeAtomically(join(d, 'next.ipintel'), 'new'));
    expect(e.code).toBe('write_failed');
    expect(e.message).toBe(`cannot write ${join(d, 'next.ipintel')} (a link to ${join(d, 'missing', 'world.ipintel')}): ENOENT: no such file or directory`);
    expect(e.cause).toMatchObject({ code: 'ENOENT' });
    expect(readlinkSync(join(d, 'next.ipintel'))).toBe('missing/world.ipintel');
    expect(readdirSync(d).sort()).toEqual(['current.ipintel', 'data', 'next.ipintel']);
  });

  it('a missing folder is write_failed naming the path given, not the temporary file; the file system error is the cause', async () => {
    const out = join(dir, 'no-such-folder', 'world.ipintel');
    const e = await rejection(writeAtomically(out, 'new'));
    expect([e.code, e.message]).toEqual(['write_failed', `cannot write ${out}: ENOENT: no such file or directory`]);
    expect(e.cause).toMatchObject({ code: 'ENOENT', syscall: 'open' });
    expect(e.message).not.toContain('.tmp-');
  });

  it('a named pipe (or a link to one) is refused before anything is written: write_failed, the pipe kept, nothing beside it', async () => {
    const d = join(dir, 'fifo');
    mkdirSync(d);
    const fifo = join(d, 'pipe');
    // A FIFO, not /dev/null: were the check to go, this test would replace what it points at.
    execFileSync('mkfifo', [fifo]);
    symlinkSync('pipe', join(d, 'link'));
    const e = await rejection(writeAtomically(fifo, 'new'));
    expect([e.code, e.message]).toEqual(['write_failed', `cannot write ${fifo}: it is a named pipe (FIFO), which the build would replace with a regular file`]);
    const viaLink = await rejection(writeAtomically(join(d, 'link'), 'new'));
    expect(viaLink.message).toBe(`cannot write ${join(d, 'link')} (a link to ${fifo}): it is a named pipe (FIFO), which the build would replace with a regular file`);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(d).sort()).toEqual(['link', 'pipe']);
  });

  it('a loop of links is write_failed, and nothing is written', async () => {
    const d = join(dir, 'loop');
    mkdirSync(d);
    symlinkSync('b', join(d, 'a'));
    symlinkSync('a', join(d, 'b'));
    const e = await rejection(writeAtomically(join(d, 'a'), 'new'));
    expect([e.code, e.message]).toEqual(['write_failed', `cannot write ${join(d, 'a')}: more than 40 symbolic links to follow (a loop?)`]);
    expect(readdirSync(d).sort()).toEqual(['a', 'b']);
  });

  it('a file that cannot be flushed (EIO) is write_failed; the old file, reached through a link, is as it was and no temporary file is left', async () => {
    const { dir: d, path: real } = folderWithFile(dir, 'eio', 'world.ipintel');
    symlinkSync('world.ipintel', join(d, 'current.ipintel'));
    await onSync(real, (directory) => {
      if (!directory) throw ioError();
    });
    const e = await rejection(writeAtomically(join(d, 'current.ipintel'), 'new'));
    expect([e.code, e.message]).toEqual(['write_failed', `cannot write ${join(d, 'current.ipintel')} (a link to ${real}): EIO: i/o error`]);
    expect(e.cause).toMatchObject({ code: 'EIO' });
    expect(readFileSync(real, 'utf8')).toBe('old');
    expect(readdirSync(d).sort()).toEqual(['current.ipintel', 'world.ipintel']);
  });

  it('a folder that cannot be flushed after the rename (EIO) is write_failed saying the file was written', async () => {
    const { dir: d, path: out } = folderWithFile(dir, 'dir-eio');
    await onSync(out, (directory) => {
      if (directory) throw ioError();
    });
    const e = await rejection(writeAtomically(out, 'new'));
    expect(e.message).toBe(`${out} was written, but its folder could not be flushed, so a power loss may undo the rename: EIO: i/o error`);
    expect(readFileSync(out, 'utf8')).toBe('new');
    expect(readdirSync(d)).toEqual(['out']);
  });
});

describe('makeFolderFor and removeFile', () => {
  it('a file where the folder should be is write_failed naming the file to write', async () => {
    const { path: file } = folderWithFile(dir, 'not-a-folder', 'plain');
    const out = join(file, 'sub', 'world.ipintel');
    const e = await rejection(makeFolderFor(out));
    expect([e.code, e.message]).toEqual(['write_failed', `cannot write ${out}: its folder ${join(file, 'sub')} cannot be made: ENOTDIR: not a directory`]);
    await makeFolderFor(join(dir, 'made', 'deep', 'world.ipintel'));
    expect(statSync(join(dir, 'made', 'deep')).isDirectory()).toBe(true);
  });

  it('removes a file or a link (not what it leads to), passes over a missing one, and a folder at the name is write_failed', async () => {
    const { dir: d, path: out } = folderWithFile(dir, 'remove');
    symlinkSync('out', join(d, 'link'));
    await removeFile(join(d, 'link'));
    expect(readdirSync(d)).toEqual(['out']);
    await removeFile(out);
    await removeFile(out);
    expect(readdirSync(d)).toEqual([]);
    mkdirSync(join(d, 'folder'));
    const e = await rejection(removeFile(join(d, 'folder')));
    // unlink refuses a folder with EISDIR on Linux, EPERM on macOS: the message carries whichever code the cause has.
    const cause = e.cause as NodeJS.ErrnoException;
    expect(cause.code).toMatch(/^(EISDIR|EPERM)$/);
    expect([e.code, e.message]).toEqual(['write_failed', `cannot remove ${join(d, 'folder')}: ${cause.code}: ${getSystemErrorMap().get(cause.errno!)![1]}`]);
  });
});
