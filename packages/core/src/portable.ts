/**
 * @ipintel/core for any JavaScript runtime: load a snapshot from bytes and
 * check addresses. No Node built-ins are imported from here; columns are
 * inflated with fflate.
 *
 * @module
 */
import { fflateInflate } from './inflate-fflate.js';
import { fromSharedWith, loadSnapshotWith, type IpIntel, type LoadOptions } from './intel.js';
import type { SharedSnapshot } from './shared.js';

export * from './everywhere.js';

/**
 * Loads a snapshot from bytes (any runtime). Throws `IpIntelError`
 * `snapshot_corrupt` / `snapshot_version`.
 *
 * @example
 * const intel = loadSnapshot(new Uint8Array(await (await fetch(url)).arrayBuffer()));
 */
export function loadSnapshot(bytes: Uint8Array, options?: LoadOptions): IpIntel {
  return loadSnapshotWith(bytes, options, fflateInflate);
}

/**
 * Opens a snapshot shared by another thread (`IpIntel#share()`). Every
 * column's type and every index invariant is checked again (the object may
 * come from anywhere); the decoded columns are not copied. IPv6 columns
 * shared as stored are checked against the meta's lengths and checksums now
 * and decoded, into this thread's own memory, by its first IPv6 call (with
 * `options.inflate`, or this entry's default), as a file's are. Throws
 * `IpIntelError` `snapshot_corrupt`.
 */
export function fromShared(shared: SharedSnapshot, options?: LoadOptions): IpIntel {
  return fromSharedWith(shared, options, fflateInflate);
}
