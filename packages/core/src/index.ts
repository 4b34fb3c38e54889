/**
 * @ipintel/core for Node: everything in `@ipintel/core/portable`, plus
 * opening snapshots by path.
 *
 * @module
 */
export * from './portable.js';
export { open, openSync, nodeInflate, EXPLAIN_SUFFIX, type OpenOptions } from './node.js';
export { defaultSnapshotPath, DATA_PACKAGE } from './default-snapshot.js';
