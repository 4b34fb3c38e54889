/**
 * exportToFile's promise about the file system (docs/export.md, `--out`):
 * the export is written beside the target and renamed over it once
 * complete, so a failed export leaves the old file (or directory) as it was
 * and nothing beside it — in particular not the partial `PATH.tmp-<pid>`,
 * which for the world snapshot is hundreds of MB (MMDB) or GB (CSV).
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '@ipintel/core';
import { encodeSnapshot } from '@ipintel/core/writer';
import { folderWithFile, tempDir } from '@ipintel/testkit';
import { ExportError, exportToFile, exportToFileAsync } from '../src/index.js';
import { testModel } from './model.js';

const intel = loadSnapshot(encodeSnapshot(testModel(3).model));
const { dir, cleanup } = tempDir('ipintel-export-file-');
afterAll(cleanup);

/** The names in `d`, sorted. */
const names = (d: string): string[] => readdirSync(d).sort();

describe('exportToFile and the file system', () => {
  it.each(['mmdb', 'csv'] as const)('%s: writes the file and leaves nothing beside it', (format) => {
    const { dir: d, path } = folderWithFile(dir, `ok-${format}`, `out.${format}`);
    const s = exportToFile(intel, format, path);
    expect(names(d)).toEqual([`out.${format}`]);
    expect(s.bytes).toBe(readFileSync(path).length);
    expect(readFileSync(path, 'latin1')).not.toBe('old');
  });

  it.each(['mmdb', 'csv'] as const)('%s: when the rename fails (the target is a directory), the partial file is removed and the target is untouched', (format) => {
    const d = join(dir, `rename-${format}`);
    const target = join(d, `out.${format}`);
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, 'keep'), 'x');
    expect(() => exportToFile(intel, format, target)).toThrow(
      expect.objectContaining({ code: 'write_failed', message: expect.stringMatching(new RegExp(`^cannot write ${target}: (EISDIR|ENOTEMPTY|EEXIST): `)) }),
    );
    expect(names(d)).toEqual([`out.${format}`]);
    expect(names(target)).toEqual(['keep']);
  });

  it('when the export itself fails (an unknown field), the old file stays and nothing is left beside it', () => {
    const { dir: d, path } = folderWithFile(dir, 'bad-option', 'out.mmdb');
    expect(() => exportToFile(intel, 'mmdb', path, { fields: ['geo.planet'] })).toThrow(ExportError);
    expect(names(d)).toEqual(['out.mmdb']);
    expect(readFileSync(path, 'utf8')).toBe('old');
  });

  it.each(['mmdb', 'csv'] as const)('%s: the replaced file keeps its mode (0640 stays 0640, not the umask default)', (format) => {
    const { path } = folderWithFile(dir, `mode-${format}`, `out.${format}`);
    chmodSync(path, 0o640);
    exportToFile(intel, format, path);
    expect(statSync(path).mode & 0o7777).toBe(0o640);
    expect(readFileSync(path, 'latin1')).not.toBe('old');
  });

  it.each(['mmdb', 'csv'] as const)('%s: a symbolic link stays a link, and the file it points at (in another directory) gets the export, its mode kept', (format) => {
    const d = join(dir, `link-${format}`);
    mkdirSync(d);
    const { dir: data, path: real } = folderWithFile(dir, `link-${format}-data`, `real.${format}`);
    chmodSync(real, 0o640);
    const path = join(d, `out.${format}`);
    symlinkSync(real, path);
    const s = exportToFile(intel, format, path);
    expect(s.path).toBe(path);
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
    expect(readlinkSync(path)).toBe(real);
    expect(readFileSync(real).length).toBe(s.bytes);
    expect(readFileSync(real, 'latin1')).not.toBe('old');
    expect(statSync(real).mode & 0o777).toBe(0o640);
    // The temporary file was written beside the real file (a rename cannot cross file systems), and is gone.
    expect(names(d)).toEqual([`out.${format}`]);
    expect(names(data)).toEqual([`real.${format}`]);
  });

  it('a dangling link (its file not there yet) is followed: the file it names is created, the link kept', () => {
    const d = join(dir, 'dangling');
    mkdirSync(d);
    const path = join(d, 'out.mmdb');
    symlinkSync('real.mmdb', path);
    const s = exportToFile(intel, 'mmdb', path);
    expect(readlinkSync(path)).toBe('real.mmdb');
    expect(readFileSync(join(d, 'real.mmdb')).length).toBe(s.bytes);
    expect(names(d)).toEqual(['out.mmdb', 'real.mmdb']);
  });

  it('a dangling link into a missing directory is write_failed naming the path and the file it links to, and creates nothing', () => {
    const d = join(dir, 'dangling-dir');
    mkdirSync(d);
    const path = join(d, 'out.mmdb');
    const real = join(dir, 'no-such-dir', 'real.mmdb');
    symlinkSync(real, path);
    expect(() => exportToFile(intel, 'mmdb', path)).toThrow(
      expect.objectContaining({ code: 'write_failed', message: `cannot write ${path} (a link to ${real}): ENOENT: no such file or directory` }),
    );
    expect(names(d)).toEqual(['out.mmdb']);
    expect(existsSync(join(dir, 'no-such-dir'))).toBe(false);
  });

  it.each(['mmdb', 'csv'] as const)('%s: a leftover PATH.tmp-<pid> (a dead process with our pid) is left alone, and the export still succeeds', (format) => {
    const d = join(dir, `stale-${format}`);
    mkdirSync(d);
    const path = join(d, `out.${format}`);
    const stale = `${path}.tmp-${process.pid}`;
    writeFileSync(stale, 'a leftover');
    const s = exportToFile(intel, format, path);
    expect(s.bytes).toBe(readFileSync(path).length);
    expect(readFileSync(stale, 'utf8')).toBe('a leftover');
    expect(names(d)).toEqual([`out.${format}`, `out.${format}.tmp-${process.pid}`]);
  });

  it('a link planted at PATH.tmp-<pid> is not followed: the file it points at stays as it was', () => {
    const d = join(dir, 'planted');
    mkdirSync(d);
    const victim = join(d, 'victim');
    writeFileSync(victim, 'precious');
    const path = join(d, 'out.mmdb');
    symlinkSync(victim, `${path}.tmp-${process.pid}`);
    exportToFile(intel, 'mmdb', path);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(readlinkSync(`${path}.tmp-${process.pid}`)).toBe(victim);
    expect(names(d)).toEqual(['out.mmdb', `out.mmdb.tmp-${process.pid}`, 'victim']);
  });

  it('a missing directory is write_failed naming the path given (not the temporary file), the ENOENT as its cause, and creates nothing', () => {
    const path = join(dir, 'no', 'such', 'out.mmdb');
    expect(() => exportToFile(intel, 'mmdb', path)).toThrow(
      expect.objectContaining({
        name: 'ExportError',
        code: 'write_failed',
        message: `cannot write ${path}: ENOENT: no such file or directory`,
        cause: expect.objectContaining({ code: 'ENOENT', syscall: 'open' }),
      }),
    );
    expect(existsSync(join(dir, 'no'))).toBe(false);
  });

  it('a path that is not a non-empty string is invalid_option, before anything is written', () => {
    // A relative path lands in the working directory: 42 would have become "42.tmp-<pid>" there.
    const before = names(process.cwd());
    for (const path of [42, '', null]) {
      expect(() => exportToFile(intel, 'mmdb', path as never)).toThrow(expect.objectContaining({ code: 'invalid_option' }));
    }
    expect(names(process.cwd())).toEqual(before);
  });

  it('an intel that is not an IpIntel is invalid_option, before anything is written (was a TypeError)', async () => {
    const { dir: d, path } = folderWithFile(dir, 'not-intel', 'out.mmdb');
    for (const bad of [null, undefined, {}, { check: () => null, info: {} }, 'world.ipintel']) {
      expect(() => exportToFile(bad as never, 'mmdb', path)).toThrow(expect.objectContaining({ code: 'invalid_option', message: expect.stringMatching(/intel/) }));
      await expect(exportToFileAsync(bad as never, 'csv', path)).rejects.toMatchObject({ code: 'invalid_option' });
    }
    expect(names(d)).toEqual(['out.mmdb']);
    expect(readFileSync(path, 'utf8')).toBe('old');
  });
});

describe('exportToFileAsync and its interrupts', () => {
  it.each(['mmdb', 'csv'] as const)('%s: writes the same bytes as exportToFile, and ends its subscription once the file is in place', async (format) => {
    const { dir: d, path } = folderWithFile(dir, `async-${format}`, `out.${format}`);
    const { path: syncPath } = folderWithFile(dir, `async-${format}-sync`, `out.${format}`);
    const events: string[] = [];
    const s = await exportToFileAsync(intel, format, path, {}, {
      interrupts: () => {
        events.push('subscribed');
        return () => events.push(`unsubscribed with ${names(d).join(' ')}`);
      },
    });
    exportToFile(intel, format, syncPath);
    expect(readFileSync(path)).toEqual(readFileSync(syncPath));
    expect(s.bytes).toBe(readFileSync(path).length);
    expect(events).toEqual(['subscribed', `unsubscribed with out.${format}`]);
  });

  // Issue: Ctrl-C during `ipintel export` left PATH.tmp-<pid> (GBs for the world's CSV): the write was synchronous.
  it.each([
    { format: 'mmdb', by: 'SIGINT' },
    { format: 'csv', by: 'SIGTERM' },
  ] as const)('$format: stopped by $by mid-write, the temporary file is removed and the old file is byte-identical', async ({ format, by }) => {
    const { dir: d, path } = folderWithFile(dir, `stop-${format}`, `out.${format}`);
    const old = readFileSync(path);
    let during: string[] = [];
    let unsubscribed = false;
    const e: unknown = await exportToFileAsync(intel, format, path, {}, {
      interrupts: (stop) => {
        // The first chunk is written before the write pauses: the interruption comes with the temporary file there.
        setImmediate(() => {
          during = names(d);
          stop(by);
        });
        return () => (unsubscribed = true);
      },
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(ExportError);
    expect(e).toMatchObject({ code: 'interrupted', message: `stopped by ${by} before ${path} was replaced: it was left as it was` });
    expect(during).toEqual([`out.${format}`, `out.${format}.tmp-${process.pid}`]);
    expect(statSync(`${path}`).size).toBe(old.length);
    expect(readFileSync(path)).toEqual(old);
    expect(names(d)).toEqual([`out.${format}`]);
    expect(unsubscribed).toBe(true);
  });

  it('a control that is not an object, or interrupts that is not a function, is invalid_option before the work (was a TypeError)', async () => {
    const { dir: d, path } = folderWithFile(dir, 'bad-control', 'out.csv');
    for (const control of [null, 42, 'SIGINT', { interrupts: 42 }, { interrupts: 'SIGINT' }, { interrupts: null }]) {
      await expect(exportToFileAsync(intel, 'csv', path, {}, control as never), JSON.stringify(control)).rejects.toMatchObject({ code: 'invalid_option' });
    }
    expect(names(d)).toEqual(['out.csv']);
    expect(readFileSync(path, 'utf8')).toBe('old');
  });

  // Issue: the returned value was called after the rename: the file was replaced, yet the promise rejected with a TypeError.
  it('interrupts returning something other than a function is invalid_option, and the file is left as it was', async () => {
    const { dir: d, path } = folderWithFile(dir, 'bad-unsubscribe', 'out.csv');
    for (const returned of [42, 'done', {}]) {
      const e: unknown = await exportToFileAsync(intel, 'csv', path, {}, { interrupts: () => returned as never }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(e, JSON.stringify(returned)).toBeInstanceOf(ExportError);
      expect(e).toMatchObject({ code: 'invalid_option', message: expect.stringMatching(/interrupts must return/) });
      expect(readFileSync(path, 'utf8')).toBe('old');
      expect(names(d)).toEqual(['out.csv']);
    }
    // Returning nothing stays accepted (no subscription to end).
    await exportToFileAsync(intel, 'csv', path, {}, { interrupts: () => undefined as never });
    expect(readFileSync(path, 'utf8')).toMatch(/^cidr,/);
  });

  it('an interruption that comes during the flush (after the last chunk) still stops it before the rename', async () => {
    const { dir: d, path } = folderWithFile(dir, 'stop-at-flush', 'out.csv');
    // The test model's CSV is one chunk: the pause after it, then the one after the flush, are the only two.
    let pauses = 0;
    const e: unknown = await exportToFileAsync(intel, 'csv', path, {}, {
      interrupts: (stop) => {
        const tick = (): void => {
          pauses++;
          if (pauses === 2) stop('SIGINT');
          else setImmediate(tick);
        };
        setImmediate(tick);
        return () => undefined;
      },
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toMatchObject({ code: 'interrupted' });
    expect(readFileSync(path, 'utf8')).toBe('old');
    expect(names(d)).toEqual(['out.csv']);
  });
});
