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
