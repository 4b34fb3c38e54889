/**
 * Files of the tests: the repository's `fixtures/` folder, temp folders (one
 * holding a file to replace), and a file overwritten in place.
 *
 * @module
 */
import { closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is packages/testkit/src or /dist). */
export const REPO_ROOT: string = fileURLToPath(new URL('../../..', import.meta.url));

/** Absolute path of `fixtures/<rel>`. */
export function fixturePath(rel: string): string {
  return join(REPO_ROOT, 'fixtures', rel);
}

/** The bytes of `fixtures/<rel>`. */
export function readFixture(rel: string): Uint8Array {
  return readFileSync(fixturePath(rel));
}

/**
 * A new folder `name` in `parent` holding one file, `file`, with `content`
 * (the file a test then replaces): the folder's path and the file's.
 */
export function folderWithFile(parent: string, name: string, file = 'out', content = 'old'): { readonly dir: string; readonly path: string } {
  const dir = join(parent, name);
  mkdirSync(dir);
  const path = join(dir, file);
  writeFileSync(path, content);
  return { dir, path };
}

/** A fresh temp folder and the function that removes it. */
export function tempDir(prefix = 'ipintel-test-'): { readonly dir: string; readonly cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Writes `bytes` over the file at `path` in place, as a plain copy (`cp`) does: truncates it,
 * then writes `pieces` pieces `gapMs` apart, so a reader may see it empty or half written.
 */
export async function overwriteInPlace(path: string, bytes: Uint8Array, pieces: number, gapMs: number): Promise<void> {
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, 0);
    const size = Math.ceil(bytes.length / pieces);
    for (let at = 0; at < bytes.length; at += size) {
      writeSync(fd, bytes, at, Math.min(size, bytes.length - at), at);
      await new Promise((r) => setTimeout(r, gapMs));
    }
  } finally {
    closeSync(fd);
  }
}
