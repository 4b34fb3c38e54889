/**
 * @ipintel/core for Node: everything in `@ipintel/core/portable`, plus
 * opening snapshots by path.
 *
 * @module
 */
export * from './portable.js';
export { open, openSync, defaultSnapshotPath, nodeInflate } from './node.js';
