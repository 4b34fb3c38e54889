/**
 * writeAtomically (src/write-file.ts), which writes the snapshot, its explain
 * sidecar, saved feeds and the manifest, on a real temp directory: the data
 * is flushed before the rename and the directory after it; the temporary
 * file is created exclusively, so a leftover or a planted link at its name
 * is left alone; a failure leaves no temporary file.
 */
import { chmodSync, chownSync, fstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { folderWithFile, tempDir } from '@ipintel/testkit';
import { writeAtomically } from '../src/write-file.js';

const { dir, cleanup } = tempDir('ipintel-builder-write-');
afterAll(cleanup);
afterEach(() => vi.restoreAllMocks());

describe('writeAtomically', () => {
  it('flushes the file while the old one is still in place, then the directory once the new one is', async () => {
    const { path: out } = folderWithFile(dir, 'order');
    // FileHandle is not exported: its prototype is reached through a handle.
    const probe = await open(out, 'r');
    const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
    await probe.close();
    const original = proto.sync;
    const syncs: string[] = [];
    vi.spyOn(proto, 'sync').mockImplementation(function (this: { fd: number }) {
      syncs.push(`${fstatSync(this.fd).isDirectory() ? 'directory' : 'file'} with ${readFileSync(out, 'utf8')} in place`);
      return original.call(this);
    });
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
    await expect(writeAtomically(out, 'new')).rejects.toThrow(expect.objectContaining({ code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST)$/) }));
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
});
