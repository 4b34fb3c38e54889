/**
 * The data the repository carries: the vendored feeds are exactly the files
 * their manifest records (size and sha256), and the data package's version is
 * the data date of the snapshot built from them.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSnapshotMeta } from '@ipintel/core/writer';
import { REPO_ROOT } from '@ipintel/testkit';

describe('vendored data', () => {
  it('data/feeds matches data/feeds/sources.json byte for byte', () => {
    const r = spawnSync(process.execPath, [join(REPO_ROOT, 'tools/vendor-feeds.mjs')], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/files match sources.json/);
  });

  it('SOURCES.md is the one the manifest generates (edit sources.json, then run --update)', async () => {
    const tool = (await import(join(REPO_ROOT, 'tools/vendor-feeds.mjs'))) as { readManifest: () => unknown; sourcesMarkdown: (m: unknown) => string };
    expect(readFileSync(join(REPO_ROOT, 'data/feeds/SOURCES.md'), 'utf8')).toBe(tool.sourcesMarkdown(tool.readManifest()));
  });

  it('the data package is versioned by the data date of its snapshot', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'packages/data/package.json'), 'utf8')) as { version: string };
    const meta = readSnapshotMeta(new Uint8Array(readFileSync(join(REPO_ROOT, 'packages/data/world.ipintel'))));
    const [y, m, d] = meta.build_date.slice(0, 10).split('-').map(Number);
    expect(pkg.version).toBe(`${y}.${m}.${d}`);
  });
});
