/**
 * Files of the tests: the repository's `fixtures/` folder and temp folders.
 *
 * @module
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

/** A fresh temp folder and the function that removes it. */
export function tempDir(prefix = 'ipintel-test-'): { readonly dir: string; readonly cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
