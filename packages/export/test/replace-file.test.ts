/**
 * replaceFile's file system calls, seen through its `fs` seam on a real temp
 * directory: the data is flushed before the rename and the directory after
 * it; a directory that cannot be flushed is skipped only when the file
 * system says "not supported", never when it says the data is lost.
 */
import * as nodeFs from 'node:fs';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '@ipintel/testkit';
import { replaceFile, type FsCalls } from '../src/replace-file.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 50) });

const { dir, cleanup } = tempDir('ipintel-export-replace-');
afterAll(cleanup);

const bytes = new TextEncoder().encode('new content\n');
/** The error node:fs throws for `code`. */
const fsError = (code: string, syscall: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: injected, ${syscall}`), { code, syscall });

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
    fchmodSync: (fd, mode) => {
      log(`fchmod ${fdNames.get(fd)}`);
      nodeFs.fchmodSync(fd, mode);
    },
    fsyncSync: (fd) => {
      log(`fsync ${fdNames.get(fd)}`);
      nodeFs.fsyncSync(fd);
    },
    closeSync: (fd) => {
      log(`close ${fdNames.get(fd)}`);
      nodeFs.closeSync(fd);
    },
    renameSync: (from, to) => {
      log(`rename ${name(from)} ${name(to)}`);
      nodeFs.renameSync(from, to);
    },
  };
  return { fs, calls };
}

/** A fresh directory holding `out` with "old". */
function withOldFile(label: string): { d: string; out: string } {
  const d = join(dir, label);
  mkdirSync(d);
  const out = join(d, 'out');
  writeFileSync(out, 'old');
  return { d, out };
}

describe('replaceFile', () => {
  it('flushes the file (its mode set) before the rename and the directory after it', () => {
    const { d, out } = withOldFile('order');
    const { fs, calls } = loggedFs(d);
    expect(replaceFile(out, (write) => write(bytes), fs).bytes).toBe(bytes.length);
    const tmp = `out.tmp-${process.pid}`;
    expect(calls).toEqual([`open ${tmp}`, `fchmod ${tmp}`, `fsync ${tmp}`, `close ${tmp}`, `rename ${tmp} out`, 'open .', 'fsync .', 'close .']);
    expect(readFileSync(out, 'utf8')).toBe('new content\n');
  });

  it.each(['EINVAL', 'EISDIR', 'EACCES'])('a directory that cannot be flushed (%s) is skipped: the file is written', (code) => {
    const { d, out } = withOldFile(`dir-${code}`);
    const { fs } = loggedFs(d, (call) => (call === (code === 'EINVAL' ? 'fsync .' : 'open .') ? fsError(code, 'fsync') : undefined));
    expect(replaceFile(out, (write) => write(bytes), fs).bytes).toBe(bytes.length);
    expect(readFileSync(out, 'utf8')).toBe('new content\n');
    expect(readdirSync(d)).toEqual(['out']);
  });

  it('an I/O error flushing the directory is thrown (the rename may not last), and the directory is closed', () => {
    const { d, out } = withOldFile('dir-eio');
    const { fs, calls } = loggedFs(d, (call) => (call === 'fsync .' ? fsError('EIO', 'fsync') : undefined));
    expect(() => replaceFile(out, (write) => write(bytes), fs)).toThrow(expect.objectContaining({ code: 'EIO' }));
    expect(calls.at(-1)).toBe('close .');
  });

  it('when flushing the file fails, the target is untouched and the temporary file removed', () => {
    const { d, out } = withOldFile('file-eio');
    const { fs, calls } = loggedFs(d, (call) => (call.startsWith('fsync out.tmp-') ? fsError('EIO', 'fsync') : undefined));
    expect(() => replaceFile(out, (write) => write(bytes), fs)).toThrow(expect.objectContaining({ code: 'EIO' }));
    expect(calls.some((c) => c.startsWith('rename'))).toBe(false);
    expect(readFileSync(out, 'utf8')).toBe('old');
    expect(readdirSync(d)).toEqual(['out']);
  });

  it('gives up after a few taken names, with EEXIST, removing none of them', () => {
    const { d, out } = withOldFile('all-taken');
    const { fs, calls } = loggedFs(d, (call) => (call.startsWith('open out.tmp-') ? fsError('EEXIST', 'open') : undefined));
    expect(() => replaceFile(out, (write) => write(bytes), fs)).toThrow(expect.objectContaining({ code: 'EEXIST' }));
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

  it('a new file has the default permissions, those of any file created here', () => {
    const d = join(dir, 'new-mode');
    mkdirSync(d);
    writeFileSync(join(d, 'plain'), 'x');
    replaceFile(join(d, 'out'), (write) => write(bytes));
    expect(statSync(join(d, 'out')).mode).toBe(statSync(join(d, 'plain')).mode);
  });
});
