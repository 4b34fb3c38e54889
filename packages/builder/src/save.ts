/**
 * `--save-feeds DIR`: after a `--fetch` build that wrote its snapshot, the
 * copies it downloaded are written into DIR in the feeds-folder layout (each
 * at its declared path), so the next build can fall back to them (the last
 * good copy of a feed whose download fails) and `--feeds DIR` rebuilds the
 * same snapshot offline.
 *
 * When DIR holds a manifest (`sources.json`, as the repository's
 * `data/feeds` does), only the files it lists are written, and their
 * entries are recorded (size, sha256, data date, where the bytes came from)
 * and SOURCES.md regenerated: a feed the folder may not carry is never
 * written there. Without a manifest every downloaded copy is written.
 * Copies a build kept (its download failed) are not rewritten.
 *
 * @module
 */
import { join } from 'node:path';
import { readManifest, sha256, writeManifest } from './manifest.js';
import { makeFolderFor, writeAtomically, type WriteInterrupts } from './write-file.js';

/** A feed this build downloaded and read. */
export interface FetchedCopy {
  readonly id: string;
  /** Its path in a feeds folder. */
  readonly path: string;
  readonly bytes: Uint8Array;
  /** The URL finally downloaded. */
  readonly url: string;
  /** The data date the build read from it. */
  readonly dataDate: string | null;
}

/** What `--save-feeds` did. */
export interface SaveReport {
  readonly dir: string;
  /** Whether DIR has a manifest (then only its files are written, and it is updated). */
  readonly manifest: boolean;
  /** Paths written. */
  readonly written: readonly string[];
  /** Downloaded copies not written, with the reason. */
  readonly skipped: readonly { readonly id: string; readonly path: string; readonly reason: string }[];
}

/**
 * Writes the downloaded copies into `dir` (see the module header).
 *
 * @param when ISO time of the download, recorded in the manifest's `copied_from`.
 * @param interrupts stops a write (BuildOptions.interrupts).
 */
export async function saveFetched(dir: string, copies: readonly FetchedCopy[], when: string, interrupts?: WriteInterrupts): Promise<SaveReport> {
  const manifest = readManifest(dir);
  const written: string[] = [];
  const skipped: { id: string; path: string; reason: string }[] = [];
  for (const c of copies) {
    const entry = manifest?.files.find((f) => f.path === c.path);
    if (manifest !== null && entry === undefined) {
      const excluded = manifest.excluded.find((e) => e.paths.includes(c.path));
      skipped.push({ id: c.id, path: c.path, reason: excluded !== undefined ? `not carried: ${excluded.reason}` : 'not listed in sources.json' });
      continue;
    }
    const file = join(dir, c.path);
    await makeFolderFor(file);
    await writeAtomically(file, c.bytes, interrupts);
    written.push(c.path);
    if (entry !== undefined) {
      entry.bytes = c.bytes.length;
      entry.sha256 = sha256(c.bytes);
      entry.data_date = c.dataDate;
      entry.copied_from = `downloaded from ${c.url} on ${when} (ipintel build --fetch --save-feeds)`;
      delete entry.reprocessed; // the publisher's own file now, not a re-processed mirror copy
    }
  }
  if (manifest !== null && written.length > 0) await writeManifest(dir, manifest, interrupts);
  return { dir, manifest: manifest !== null, written, skipped };
}
