/**
 * replaceFile's file system calls, seen through its `fs` seam on a real temp
 * directory: the data is flushed before the rename and the directory after
 * it; a directory that cannot be flushed is skipped only when the file
 * system says "not supported", never when it says the data is lost; a
 * failure anywhere leaves no temporary file and names the path given.
 */
import { execFileSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { folderWithFile, tempDir } from '@ipintel/testkit';
import { ExportError } from '../src/errors.js';
import { replaceFile, type FsCalls } from '../src/replace-file.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 50) });

const { dir, cleanup } = tempDir('ipintel-export-replace-');
afterAll(cleanup);

const bytes = new TextEncoder().encode('new content\n');
/** The error node:fs throws for `code` (its errno is negative, as libuv's). */
const fsError = (code: keyof typeof constants.errno, syscall: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`${code}: injected, ${syscall}`), { code, syscall, errno: -constants.errno[code] });

/**
 * node:fs with the calls that matter logged as "call name" (names relative
 * to `d`, the directory itself as "."), and `fail` deciding which to throw
 * instead of making.
 */
function loggedFs(d: string, fail: (call: string) => NodeJS.ErrnoException | undefined = () => undefined) {
  const calls: string[] = [];
  const fdNames = new Map<number, string>();
  const name = (p: nodeFs.PathLike): string => (String(p) === d ? '.' : basename(String(p)));
  const log = (call: string): void => {
    calls.push(call);
    const e = fail(call);
    if (e !== undefined) throw e;
  };
  const fs: FsCalls = {
    ...nodeFs,
    openSync: (p, flags, mode) => {
      log(`open ${name(p)}`);
      const fd = nodeFs.openSync(p, flags, mode);
      fdNames.set(fd, name(p));
      return fd;
    },
    writeSync: ((fd: number, buffer: NodeJS.ArrayBufferView, offset?: number, length?: number) => {
      log(`write ${fdNames.get(fd)}`);
      return nodeFs.writeSync(fd, buffer, offset, length);
    }) as typeof nodeFs.writeSync,
    fchmodSync: (fd, mode) => {
      log(`fchmod ${fdNames.get(fd)}`);
      nodeFs.fchmodSync(fd, mode);
    },
    fsyncSync: (fd) => {
      log(`fsync ${fdNames.get(fd)}`);
      nodeFs.fsyncSync(fd);
    },
    // close(2) releases the descriptor even when it reports an error, so the close is made first.
    closeSync: (fd) => {
      nodeFs.closeSync(fd);
      log(`close ${fdNames.get(fd)}`);
    },
    renameSync: (from, to) => {
      log(`rename ${name(from)} ${name(to)}`);
      nodeFs.renameSync(from, to);
    },
  };
  return { fs, calls };
}

describe('replaceFile', () => {
  it('flushes the file (its mode set) before the rename and the directory after it', () => {
    const { dir: d, path: out } = folderWithFile(dir, 'order');
    const { fs, calls } = loggedFs(d);
    expect(replaceFile(out, (write) => write(bytes), fs).bytes).toBe(bytes.length);
    const tmp = `out.tmp-${process.pid}`;
    expect(calls).toEqual([`open ${tmp}`, `write ${tmp}`, `fchmod ${tmp}`, `fsync ${tmp}`, `close ${tmp}`, `rename ${tmp} out`, 'open .', 'fsync .', 'close .']);
    expect(readFileSync(out, 'utf8')).toBe('new content\n');
  });

  it.each(['EINVAL', 'EISDIR', 'EACCES'] as const)('a directory that cannot be flushed (%s) is skipped: the file is written', (code) => {
    const { dir: d, path: out } = folderWithFile(dir, `dir-${code}`);
    const { fs } = loggedFs(d, (call) => (call === (code === 'EINVAL' ? 'fsync .' : 'open .') ? fsError(code, code === 'EINVAL' ? 'fsync' : 'open') : undefined));
    expect(replaceFile(out, (write) => write(bytes), fs).bytes).toBe(bytes.length);
    expect(readFileSync(out, 'utf8')).toBe('new content\n');
    expect(readdirSync(d)).toEqual(['out']);
  });

  it('any file system call that fails: before the rename, the target is untouched; after, it is new; never a temporary file left; write_failed names the path', () => {
    const { dir: d, path: out } = folderWithFile(dir, 'failures');
    const clean = loggedFs(d);
    replaceFile(out, (write) => write(bytes), clean.fs);
    const renameAt = clean.calls.findIndex((c) => c.startsWith('rename'));
    fc.assert(
      fc.property(fc.nat(clean.calls.length - 1), fc.constantFrom('EIO', 'ENOSPC', 'EROFS', 'EDQUOT' as const), (at, code) => {
        writeFileSync(out, 'old');
        let n = 0;
        const { fs } = loggedFs(d, () => (n++ === at ? fsError(code, 'injected') : undefined));
        const thrown = (() => {
          try {
            replaceFile(out, (write) => write(bytes), fs);
            return undefined;
          } catch (e) {
            return e;
          }
        })();
        expect(thrown).toBeInstanceOf(ExportError);
        const e = thrown as ExportError;
        expect(e.code).toBe('write_failed');
        const prefix = at <= renameAt ? `cannot write ${out}: ` : `${out} was written, but its directory could not be flushed, so a power loss may undo the rename: `;
        // The code, then libuv's description of it where it has one ("EIO: i/o error"; EDQUOT has none).
        expect(e.message.slice(0, prefix.length + code.length)).toBe(prefix + code);
        expect(e.message).not.toContain('.tmp-');
        expect(e.cause).toMatchObject({ code });
        expect(readFileSync(out, 'utf8')).toBe(at <= renameAt ? 'old' : 'new content\n');
        expect(readdirSync(d)).toEqual(['out']);
      }),
    );
  });

  it('an error of `fill` that is not the file system\'s is thrown as it is, and the temporary file removed', () => {
    const { dir: d, path: out } = folderWithFile(dir, 'fill-throws');
    const bug = new RangeError('not a file system error');
    expect(() =>
      replaceFile(out, (write) => {
        write(bytes);
        throw bug;
      }),
    ).toThrow(bug);
    expect(readFileSync(out, 'utf8')).toBe('old');
    expect(readdirSync(d)).toEqual(['out']);
  });

  it('gives up after a few taken names (write_failed, EEXIST), removing none of them', () => {
    const { dir: d, path: out } = folderWithFile(dir, 'all-taken');
    const { fs, calls } = loggedFs(d, (call) => (call.startsWith('open out.tmp-') ? fsError('EEXIST', 'open') : undefined));
    expect(() => replaceFile(out, (write) => write(bytes), fs)).toThrow(
      expect.objectContaining({ code: 'write_failed', message: `cannot write ${out}: EEXIST: file already exists`, cause: expect.objectContaining({ code: 'EEXIST' }) }),
    );
    const tried = calls.map((c) => c.slice('open '.length));
    expect(tried).toHaveLength(8);
    expect(new Set(tried).size).toBe(8);
    expect(tried[0]).toBe(`out.tmp-${process.pid}`);
    for (const name of tried.slice(1)) expect(name).toMatch(new RegExp(`^out\\.tmp-${process.pid}-[0-9a-f]{12}$`));
    expect(readdirSync(d)).toEqual(['out']);
  });

  it('the new file has the permission bits of the one it replaces, whatever they are', () => {
    const d = join(dir, 'modes');
    mkdirSync(d);
    const out = join(d, 'out');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0o7777 }), (mode) => {
        writeFileSync(out, 'old');
        chmodSync(out, mode);
        replaceFile(out, (write) => write(bytes));
        // Only the permission bits: set-user-ID, set-group-ID and sticky do not carry over to new content.
        expect((statSync(out).mode & 0o7777).toString(8)).toBe((mode & 0o777).toString(8));
        expect(readdirSync(d)).toEqual(['out']);
        rmSync(out);
      }),
    );
  });

  it('the new file has the owner and group of the one it replaces (fchown before fchmod, which it may clear); refused (EPERM), the file is still written', () => {
    const { dir: d, path: out } = folderWithFile(dir, 'owner-seam');
    const own = statSync(out);
    for (const refuse of [false, true]) {
      const { fs, calls } = loggedFs(d);
      const given: number[][] = [];
      const seam: FsCalls = {
        ...fs,
        // The target as if another user's: its owner and group one past ours.
        statSync: ((p: nodeFs.PathLike, o?: nodeFs.StatSyncOptions) => {
          const s = nodeFs.statSync(p, o);
          return s === undefined ? s : Object.assign(s, { uid: own.uid + 1, gid: own.gid + 1 });
        }) as typeof nodeFs.statSync,
        fchownSync: (fd, uid, gid) => {
          calls.push('fchown');
          given.push([uid, gid]);
          if (refuse) throw fsError('EPERM', 'fchown');
        },
      };
      replaceFile(out, (write) => write(bytes), seam);
      expect(given).toEqual([[own.uid + 1, own.gid + 1]]);
      expect(calls.indexOf('fchown')).toBeLessThan(calls.findIndex((c) => c.startsWith('fchmod')));
      expect(readFileSync(out, 'utf8')).toBe('new content\n');
    }
    // The same owner: no fchown at all.
    const { fs, calls } = loggedFs(d);
    replaceFile(out, (write) => write(bytes), { ...fs, fchownSync: () => calls.push('fchown') });
    expect(calls).not.toContain('fchown');
  });

  it('on the real file system: as root the owner and group are kept; as a user, the file stays the user\'s', () => {
    const { path: out } = folderWithFile(dir, 'owner-real');
    const root = process.getuid?.() === 0;
    if (root) nodeFs.chownSync(out, 4242, 4343);
    const before = statSync(out);
    replaceFile(out, (write) => write(bytes));
    const after = statSync(out);
    expect(readFileSync(out, 'utf8')).toBe('new content\n');
    if (root) expect([after.uid, after.gid]).toEqual([4242, 4343]);
    else expect([after.uid, after.gid]).toEqual([before.uid, before.gid]);
  });

  it('a new file has the default permissions, those of any file created here', () => {
    const d = join(dir, 'new-mode');
    mkdirSync(d);
    writeFileSync(join(d, 'plain'), 'x');
    replaceFile(join(d, 'out'), (write) => write(bytes));
    expect(statSync(join(d, 'out')).mode).toBe(statSync(join(d, 'plain')).mode);
  });

  it('a chain of links (relative or absolute, in two directories, its file there or not) stays as it was, and its file gets the content', () => {
    let run = 0;
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), fc.boolean(), (relativeLinks, fileThere) => {
        const d = join(dir, `chain-${run++}`);
        const dirs = [join(d, 'a'), join(d, 'b'), join(d, 'data')];
        for (const sub of dirs) mkdirSync(sub, { recursive: true });
        const real = join(d, 'data', 'real');
        if (fileThere) writeFileSync(real, 'old');
        // links[i] lives in a or b by turns and points at links[i + 1], the last at the file.
        const links = relativeLinks.map((_, i) => join(dirs[i % 2]!, `l${i}`));
        const texts = links.map((link, i) => {
          const next = links[i + 1] ?? real;
          return relativeLinks[i] ? relative(dirname(link), next) : next;
        });
        links.forEach((link, i) => symlinkSync(texts[i]!, link));
        replaceFile(links[0]!, (write) => write(bytes));
        expect(links.map((link) => readlinkSync(link))).toEqual(texts);
        expect(readFileSync(real, 'utf8')).toBe('new content\n');
        expect(dirs.map((sub) => readdirSync(sub).sort())).toEqual([
          links.filter((_, i) => i % 2 === 0).map((l) => basename(l)),
          links.filter((_, i) => i % 2 === 1).map((l) => basename(l)),
          ['real'],
        ]);
      }),
      { numRuns: 30 },
    );
  });

  it('a relative link after a linked directory is read as the kernel reads it: `..` is the parent of the real directory', () => {
    const d = join(dir, 'dotdot');
    mkdirSync(join(d, 'real', 'sub'), { recursive: true });
    symlinkSync(join(d, 'real', 'sub'), join(d, 'linked'));
    symlinkSync('../file', join(d, 'real', 'sub', 'out'));
    replaceFile(join(d, 'linked', 'out'), (write) => write(bytes));
    expect(readFileSync(join(d, 'real', 'file'), 'utf8')).toBe('new content\n');
    expect(existsSync(join(d, 'file'))).toBe(false);
  });

  it('a loop of links is write_failed, and nothing is written', () => {
    const d = join(dir, 'loop');
    mkdirSync(d);
    symlinkSync('b', join(d, 'a'));
    symlinkSync('a', join(d, 'b'));
    expect(() => replaceFile(join(d, 'a'), (write) => write(bytes))).toThrow(
      expect.objectContaining({ code: 'write_failed', message: `cannot write ${join(d, 'a')}: more than 40 symbolic links to follow (a loop?)` }),
    );
    expect(readdirSync(d)).toEqual(['a', 'b']);
  });

  it('a named pipe (or a link to one) is refused, not replaced by a file: write_failed, the pipe kept, nothing written beside it', () => {
    const d = join(dir, 'fifo');
    mkdirSync(d);
    const fifo = join(d, 'pipe');
    // A FIFO, not /dev/null: were the check to go, this test would replace what it points at.
    execFileSync('mkfifo', [fifo]);
    symlinkSync('pipe', join(d, 'link'));
    expect(() => replaceFile(fifo, (write) => write(bytes))).toThrow(
      expect.objectContaining({ code: 'write_failed', message: `cannot write ${fifo}: it is a named pipe (FIFO), which an export would replace with a file` }),
    );
    expect(() => replaceFile(join(d, 'link'), (write) => write(bytes))).toThrow(
      expect.objectContaining({ code: 'write_failed', message: expect.stringMatching(/^cannot write .*link \(a link to .*pipe\): it is a named pipe/) }),
    );
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(d).sort()).toEqual(['link', 'pipe']);
  });
});
