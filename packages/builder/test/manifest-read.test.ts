/**
 * Reading a feeds folder's manifest (src/manifest.ts), as `--save-feeds`
 * and tools/vendor-feeds.mjs do: a manifest or a listed file that is there
 * but cannot be read, or a sources.json that is not a manifest, is a
 * BuildError with a code naming the path, never the file system's raw error
 * or a TypeError from a missing list. The file system's error code is read
 * from the cause, so the tests hold whatever the platform names it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '@ipintel/testkit';
import { BuildError } from '../src/errors.js';
import { checkManifest, readManifest, type Manifest } from '../src/manifest.js';

const { dir, cleanup } = tempDir('ipintel-builder-manifest-');
afterAll(cleanup);

/** A fresh folder under the temp dir. */
const folder = (name: string): string => {
  const d = join(dir, name);
  mkdirSync(d);
  return d;
};

/** What `read` threw; it must throw a BuildError. */
function thrown(read: () => unknown): BuildError & { cause?: NodeJS.ErrnoException } {
  let e: unknown;
  try {
    read();
  } catch (err) {
    e = err;
  }
  expect(e).toBeInstanceOf(BuildError);
  return e as BuildError & { cause?: NodeJS.ErrnoException };
}

const manifest = (files: Manifest['files']): Manifest => ({ collected: '2026-01-01', note: '', files, excluded: [] });
const file = (path: string): Manifest['files'][number] => ({ path, publisher: 'p', url: 'u', copied_from: 'c', data_date: null, terms: 't', class: 'k', bytes: 0, sha256: '' });

describe('readManifest', () => {
  it('no sources.json, or no folder: null (no manifest)', () => {
    expect(readManifest(folder('none'))).toBeNull();
    expect(readManifest(join(dir, 'no-such-folder'))).toBeNull();
  });

  it('a folder at sources.json is manifest_unreadable naming the file, the file system error as cause', () => {
    const d = folder('dir-at-name');
    mkdirSync(join(d, 'sources.json'));
    const e = thrown(() => readManifest(d));
    expect(e.code).toBe('manifest_unreadable');
    expect(e.cause?.code).toMatch(/^E[A-Z]+$/);
    expect(e.message).toMatch(new RegExp(`^cannot read ${join(d, 'sources.json')}: ${e.cause!.code}: `));
  });

  it.each([
    ['{"files": [', /is not JSON: /],
    ['[]', /is not a feeds manifest: not an object$/],
    ['{"excluded": []}', /is not a feeds manifest: "files" is not a list$/],
    ['{"files": [{"publisher": "x"}], "excluded": []}', /is not a feeds manifest: files\[0\] has no "path"$/],
    ['{"files": [], "excluded": [{"reason": "x"}]}', /is not a feeds manifest: excluded\[0\] has no "paths" list$/],
  ])('%s is manifest_invalid', (text, message) => {
    const d = folder(`invalid-${Buffer.from(text).toString('hex').slice(0, 24)}`);
    writeFileSync(join(d, 'sources.json'), text);
    const e = thrown(() => readManifest(d));
    expect(e.code).toBe('manifest_invalid');
    expect(e.message.startsWith(join(d, 'sources.json'))).toBe(true);
    expect(e.message).toMatch(message);
  });

  it('a manifest reads back as written', () => {
    const d = folder('good');
    const m = manifest([file('a.txt')]);
    writeFileSync(join(d, 'sources.json'), JSON.stringify(m));
    expect(readManifest(d)).toEqual(m);
  });
});

describe('checkManifest', () => {
  it('a listed file that is a folder is manifest_unreadable naming it', () => {
    const d = folder('listed-folder');
    mkdirSync(join(d, 'a.txt'));
    writeFileSync(join(d, 'a.txt', 'inside'), 'x');
    const e = thrown(() => checkManifest(d, manifest([file('a.txt')])));
    expect(e.code).toBe('manifest_unreadable');
    expect(e.message).toMatch(new RegExp(`^cannot read ${join(d, 'a.txt')}: ${e.cause!.code}: `));
  });

  it('a folder that is not there is manifest_unreadable naming it', () => {
    const d = join(dir, 'gone');
    const e = thrown(() => checkManifest(d, manifest([])));
    expect(e.code).toBe('manifest_unreadable');
    expect(e.cause?.code).toBe('ENOENT');
    expect(e.message).toBe(`cannot read ${d}: ENOENT: no such file or directory`);
  });
});
