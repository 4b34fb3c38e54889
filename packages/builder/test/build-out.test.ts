/**
 * What a build does with the `out` it is given, as a deploy gives it: a
 * symbolic link (`current.ipintel -> releases/v5/world.ipintel`) stays a
 * link and the file it leads to becomes the new snapshot; a named pipe is
 * refused as write_failed without being read (the check of the last
 * build's counts reads only a regular file). The write itself is tested in
 * write-file.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXPLAIN_SUFFIX, openSync } from '@ipintel/core';
import { tempDir } from '@ipintel/testkit';
import { buildSnapshot } from '../src/build/build.js';
import { FIXTURES } from './feeds/helpers.js';

const { dir, cleanup } = tempDir('ipintel-build-out-');
afterAll(cleanup);
const buildDate = '2026-08-22T00:00:00.000Z';

describe('buildSnapshot: the out path', () => {
  it('a link stays a link: the file it leads to is the new snapshot, the explain sidecar is beside the link, where readers look for it', async () => {
    const d = join(dir, 'deploy');
    mkdirSync(join(d, 'releases', 'v5'), { recursive: true });
    const plain = join(d, 'plain.ipintel');
    await buildSnapshot({ out: plain, feeds: FIXTURES, buildDate });
    const real = join(d, 'releases', 'v5', 'world.ipintel');
    const link = join(d, 'current.ipintel');
    symlinkSync('releases/v5/world.ipintel', link);
    const report = await buildSnapshot({ out: link, feeds: FIXTURES, buildDate });
    expect(report.out).toBe(link);
    expect(readlinkSync(link)).toBe('releases/v5/world.ipintel');
    expect(readFileSync(real).equals(readFileSync(plain))).toBe(true);
    expect(lstatSync(link + EXPLAIN_SUFFIX).isFile()).toBe(true);
    expect(openSync(link).check('8.8.8.8', { explain: true })).toHaveProperty('explanation');
    expect(readdirSync(join(d, 'releases', 'v5'))).toEqual(['world.ipintel']);
  });

  it('a named pipe is refused (write_failed) without being read, and kept', async () => {
    const d = join(dir, 'fifo');
    mkdirSync(d);
    const fifo = join(d, 'world.ipintel');
    execFileSync('mkfifo', [fifo]);
    await expect(buildSnapshot({ out: fifo, feeds: FIXTURES, buildDate })).rejects.toThrow(
      expect.objectContaining({ name: 'BuildError', code: 'write_failed', message: `cannot write ${fifo}: it is a named pipe (FIFO), which the build would replace with a regular file` }),
    );
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(d)).toEqual(['world.ipintel']);
  });
});

describe('buildSnapshot: the build date', () => {
  // Core refuses a snapshot whose build_date is not what toISOString writes (its freshness read 'x' as age 0,
  // the MMDB export as epoch NaN), so the build refuses to be given one, before any work.
  it('a build date in another form, or a SOURCE_DATE_EPOCH past 9999, is build_date_invalid and nothing is written', async () => {
    const out = join(dir, 'dated.ipintel');
    for (const bad of ['x', '2026-08-22', '2026-08-22T00:00:00Z', '2026-02-30T00:00:00.000Z', 5 as unknown as string]) {
      await expect(buildSnapshot({ out, feeds: FIXTURES, buildDate: bad }), String(bad)).rejects.toMatchObject({ code: 'build_date_invalid' });
    }
    const saved = process.env['SOURCE_DATE_EPOCH'];
    try {
      process.env['SOURCE_DATE_EPOCH'] = '253402300800'; // 10000-01-01
      await expect(buildSnapshot({ out, feeds: FIXTURES })).rejects.toMatchObject({ code: 'build_date_invalid' });
    } finally {
      if (saved === undefined) delete process.env['SOURCE_DATE_EPOCH'];
      else process.env['SOURCE_DATE_EPOCH'] = saved;
    }
    expect(readdirSync(dir).filter((n) => n.startsWith('dated'))).toEqual([]);
  });
});
