#!/usr/bin/env node
// The vendored feeds (data/feeds/): checks that every file the manifest
// (data/feeds/sources.json) lists is there with its recorded size and
// sha256 and that nothing else is, and writes data/feeds/SOURCES.md from the
// manifest. The logic is the builder's (packages/builder/src/manifest.ts),
// which `ipintel build --fetch --save-feeds data/feeds` uses as well.
//
//   node tools/vendor-feeds.mjs            check (exit 1 on any difference)
//   node tools/vendor-feeds.mjs --update   record sizes and hashes of the files now present, rewrite SOURCES.md
//
// Imports the built builder (`pnpm run build` first; the test command does).
import { fileURLToPath } from 'node:url';
import { manifest as m } from '../packages/builder/dist/index.js';

export const FEEDS_DIR = fileURLToPath(new URL('../data/feeds/', import.meta.url));

/** The manifest (data/feeds/sources.json). */
export const readManifest = () => m.readManifest(FEEDS_DIR);

/** SOURCES.md as the manifest generates it. */
export const sourcesMarkdown = m.sourcesMarkdown;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const update = process.argv.includes('--update');
  let manifest;
  try {
    manifest = readManifest();
  } catch (e) {
    // The builder's typed refusal (manifest_unreadable, manifest_invalid) says what is wrong: no stack trace.
    if (!(e instanceof Error && 'code' in e && String(e.code).startsWith('manifest_'))) throw e;
    console.error(e.message);
    process.exit(1);
  }
  if (manifest === null) {
    console.error('data/feeds has no sources.json');
    process.exit(1);
  }
  const problems = m.checkManifest(FEEDS_DIR, manifest, update);
  if (update) {
    await m.writeManifest(FEEDS_DIR, manifest);
    console.log(`recorded ${manifest.files.length} files; wrote data/feeds/SOURCES.md`);
  }
  if (problems.length > 0) {
    console.error(`data/feeds does not match its manifest:\n  ${problems.join('\n  ')}`);
    if (!update) console.error('If the change is intended (a refreshed feed), run: node tools/vendor-feeds.mjs --update');
    process.exit(1);
  }
  if (!update) console.log(`data/feeds: ${manifest.files.length} files match sources.json`);
}
