/**
 * Which snapshot a command reads, and opening it. `--snapshot PATH` wins,
 * else core's default (`$IPINTEL_SNAPSHOT`, else the `@ipintel/data` package's).
 * The path is resolved once here so batch workers open the same file.
 *
 * @module
 */
import { resolve } from 'node:path';
import { defaultSnapshotPath, openSync, type IpIntel } from '@ipintel/core';
import type { FlagSpec } from './args.js';

/** The `--snapshot PATH` flag of the commands that read a snapshot. */
export const SNAPSHOT_FLAG: FlagSpec = { type: 'string', value: 'PATH', description: "Snapshot file (default $IPINTEL_SNAPSHOT, else the @ipintel/data package's)." };

/** Absolute path of the snapshot to use. */
export function snapshotPath(flag: string | undefined): string {
  return flag === undefined ? defaultSnapshotPath() : resolve(flag);
}

/**
 * Opens the snapshot (throws IpIntelError `snapshot_not_found` /
 * `snapshot_corrupt` / `snapshot_version`, mapped to exit code 3).
 */
export function openSnapshot(path: string): IpIntel {
  return openSync(path);
}

/**
 * The one stderr line `check` and `batch` print when the snapshot has no
 * source for some signals (docs/scoring.md), or null when it has them all.
 */
export function missingSourcesWarning(command: string, intel: IpIntel): string | null {
  const missing = intel.info.unavailable;
  if (missing.length === 0) return null;
  return `ipintel ${command}: warning: this snapshot has no source for ${missing.join(', ')}; those signals are false with evidence "unavailable" (ipintel info lists its sources)\n`;
}
