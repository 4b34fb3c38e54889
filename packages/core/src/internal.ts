/**
 * @ipintel/core/internal: leaf-level access for ipintel's own packages (the
 * CLI's batch writer and `info`, the builder's quality check, the benchmarks). **Unstable**: no semver
 * promise; anything here may change in any release. Applications use
 * `IpIntel#check`, `checkBatch`, `match`, `info` and `share` instead.
 *
 * A leaf is one distinct answer of the snapshot (a geo row, a network row
 * and a signal set); every address maps to exactly one leaf. Leaf ids are
 * 0..leafCount-1, in the file's numbering (most address space first), not
 * the order of the model the writer was given.
 *
 * @module
 */
export {
  flatRanges,
  fromSharedTrusted,
  isIpIntel,
  leafCount,
  leafCoverage,
  leafGeoPairsMany,
  leafOfIPv4,
  leafRecords,
  leafRecordsMany,
  lookupMany,
  pairCount,
  pairRecords,
  recordCells,
  resultForLeaf,
  shareInto,
  snapshotColumns,
} from './leaves.js';
export type { SharedAlloc } from './shared.js';
export { isIsoUtcTime } from './clock.js';
export { checkSharedIndex4, fromSharedButIndex4, placedBytes, planSnapshotFile, readSharedSnapshot, type SnapshotFilePlan } from './node-shared.js';
export type { PlannedColumn } from './snapshot/decode.js';
export type { MainColumns } from './snapshot/decode.js';
export type { FlatRanges } from './snapshot/walk.js';
export type { CellWriter, RecordCells } from './snapshot/cells.js';
export {
  QUALITY_LABELS,
  QUALITY_LIMITS,
  WORLD_SCALE_IPV4,
  isConnectionLabel,
  qualityFailures,
  qualityReport,
  type AsnShare,
  type LabelShare,
  type QualityFailure,
  type QualityLabel,
  type QualityReport,
} from './quality.js';
export { csvCell } from './result/csv.js';
export { withRoom } from './bytes.js';
export { evidenceKey } from './snapshot/tables.js';
// Also in @ipintel/core/writer; here so that the CLI's batch does not load the writer (and fflate) for it.
export { bigIntToText } from './ip/address.js';
