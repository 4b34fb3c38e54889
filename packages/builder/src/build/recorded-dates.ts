/**
 * The data dates a feeds folder's manifest (`sources.json`, manifest.ts)
 * records, for the files that state none themselves.
 *
 * Many publishers' files carry no date (Azure's service tags, the X4B lists,
 * the cloud providers' plain CIDR lists); whoever carried the copy recorded
 * one beside its size and sha256 (Azure's from the publisher's file name, a
 * mirror's from its commit). Without it such a source is undated: `info`
 * shows `-`, freshness cannot judge it, and the VPN age rule (roles.ts)
 * cannot age it. The date is taken only for the exact bytes the manifest
 * describes: a file whose sha256 differs was changed or replaced since, and
 * the recorded date says nothing about it. A date the file states itself
 * always comes first (register.ts `sourceRow`).
 *
 * A manifest that cannot be read, an entry of the wrong shape or a date in no
 * form a source row carries is said (the build's progress lines) and gives no
 * date; it never stops a build, which did not need the manifest before.
 *
 * @module
 */
import { MANIFEST_FILE, readManifest, sha256, type Manifest } from '../manifest.js';
import { isoFromRecordedDate } from '../feeds/read/dates.js';
import { join } from 'node:path';

/** The recorded date of the file at `path` (relative to the folder) if `bytes` are the bytes recorded, else null. */
export interface RecordedDates {
  dateOf(path: string, bytes: Uint8Array): string | null;
}

/** For a build that reads no folder (downloads, npm packages). */
export const NO_RECORDED_DATES: RecordedDates = { dateOf: () => null };

interface Recorded {
  readonly sha256: string;
  readonly date: string;
}

/** The dates `dir`'s manifest records (none when it has no manifest); `say` hears why an entry gives none. */
export function recordedDates(dir: string, say: (message: string) => void): RecordedDates {
  const file = join(dir, MANIFEST_FILE);
  let manifest: Manifest | null;
  try {
    manifest = readManifest(dir); // its shape checked there: a list of files, each with a path
  } catch (e) {
    say(`${file} cannot be read (${e instanceof Error ? e.message : String(e)}): no data dates are taken from it`);
    return NO_RECORDED_DATES;
  }
  if (manifest === null) return NO_RECORDED_DATES;
  const byPath = new Map<string, Recorded>();
  for (const { path, sha256: hash, data_date: given } of manifest.files) {
    if (given === null || given === undefined) continue;
    const date = isoFromRecordedDate(given);
    if (date === null) {
      say(`${file}: ${path} records data_date ${JSON.stringify(given)}, not a date (YYYY-MM-DD or an ISO UTC time ending in Z): the file gets no date from it`);
      continue;
    }
    if (typeof hash !== 'string') continue; // no recorded bytes to hold a copy to
    byPath.set(path, { sha256: hash, date });
  }
  const told = new Set<string>();
  return {
    dateOf(path, bytes) {
      const recorded = byPath.get(path);
      if (recorded === undefined) return null;
      if (sha256(bytes) === recorded.sha256) return recorded.date;
      if (!told.has(path)) {
        told.add(path);
        say(`${join(dir, path)} is not the copy ${MANIFEST_FILE} describes (another sha256): its recorded data date ${recorded.date} is not used`);
      }
      return null;
    },
  };
}
