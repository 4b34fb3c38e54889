#!/usr/bin/env node
// The @ipintel/data package (packages/data): its snapshot, its version (the
// data date) and the licence notices it carries.
//
//   node tools/data-package.mjs --check    what `pnpm pack` runs first (prepack): the snapshot is
//                                          there, loads, and its build date is the package version
//
// default-snapshot.mjs calls prepareDataPackage() after building the snapshot into the package.
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const DATA_DIR = join(root, 'packages', 'data');
export const DATA_SNAPSHOT = join(DATA_DIR, 'world.ipintel');
export const VENDORED_FEEDS = join(root, 'data', 'feeds');
const pkgPath = join(DATA_DIR, 'package.json');

/** `2026-09-15T10:00:00.000Z` -> `2026.9.15`: the data date as a semver version. */
export function versionOfDate(iso) {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  if (!m) throw new Error(`not an ISO date: ${iso}`);
  return `${Number(m[1])}.${Number(m[2])}.${Number(m[3])}`;
}

/**
 * Makes the package match the snapshot just built into it: version = data date
 * (rewritten when it differs, with a note), licence notices copied from
 * data/feeds/LICENSES. Returns the version.
 */
export function prepareDataPackage(buildDate, say = (m) => console.error(m)) {
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  const version = versionOfDate(buildDate);
  if (pkg.version !== version) {
    say(`@ipintel/data: version ${pkg.version} -> ${version} (the data date of the new snapshot); commit packages/data/package.json`);
    pkg.version = version;
    writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
  }
  rmSync(join(DATA_DIR, 'LICENSES'), { recursive: true, force: true });
  cpSync(join(VENDORED_FEEDS, 'LICENSES'), join(DATA_DIR, 'LICENSES'), { recursive: true });
  return version;
}

async function check() {
  const { readSnapshotMeta } = await import('../packages/core/dist/writer.js');
  const fail = (m) => {
    console.error(`@ipintel/data: ${m}`);
    process.exit(1);
  };
  if (!existsSync(DATA_SNAPSHOT)) fail(`no snapshot at ${DATA_SNAPSHOT}: run \`pnpm start\` first`);
  if (!existsSync(join(DATA_DIR, 'LICENSES'))) fail('no LICENSES folder: run `pnpm start` (it copies data/feeds/LICENSES)');
  const meta = readSnapshotMeta(new Uint8Array(readFileSync(DATA_SNAPSHOT)));
  const { version } = JSON.parse(readFileSync(pkgPath, 'utf8'));
  if (versionOfDate(meta.build_date) !== version) fail(`version ${version} is not the snapshot's data date ${meta.build_date}: run \`pnpm start\``);
  console.error(`@ipintel/data ${version}: snapshot and notices in place`);
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--check')) await check();
