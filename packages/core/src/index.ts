/**
 * @ipintel/core for Node: everything in `@ipintel/core/portable`, plus
 * opening snapshots by path. `loadSnapshot` and `fromShared` here inflate
 * with Node's native zlib, and this entry does not load fflate at all.
 *
 * @module
 */
export * from './everywhere.js';
export { open, openSync, loadSnapshot, fromShared, nodeInflate, EXPLAIN_SUFFIX, type OpenOptions } from './node.js';
export { defaultSnapshotPath, DATA_PACKAGE } from './default-snapshot.js';
