/**
 * @ipintel/core/writer: the snapshot writer and its helpers, for the builder
 * and tests. Not needed to read snapshots.
 *
 * @module
 */
export { encodeSnapshot, dayNumber, type EncodeOptions } from './snapshot/encode.js';
export { flattenPrefixes, pushRange, familyBits, type PrefixEntry, type Ranges } from './snapshot/flatten.js';
export type { SnapshotModel, GeoRow, NetworkRow, SignalRow, LeafRow } from './snapshot/model.js';
export * as format from './snapshot/format.js';
export { crc32, type Checksum } from './snapshot/checksum.js';
export { readSnapshotMeta } from './snapshot/decode.js';
export { addressToBigInt, bigIntToText, parseAddress, wordsToBigInt } from './ip/address.js';
export { formatIPv4, formatIPv6 } from './ip/format.js';
export {
  classify,
  connectionFor,
  rpkiFor,
  EXPLAINED_FIELDS,
  NULL_GEO,
  BOGON_NETWORK,
  BOGON_SIGNALS,
  type AddressFacts,
  type AsnInfo,
  type Classified,
  type ExplainedField,
  type FactKey,
  type OperatorRow,
  type PublishedRange,
  type RouteFacts,
  type Sets,
  type Trace,
} from './rules/classify.js';
export { RULES, type RuleId } from './rules/ids.js';
export { encodeSidecar, type SidecarInput, type PrefixSectionInput, type IntervalSectionInput, type AsnSectionInput, type SourceRun } from './explain/encode.js';
export { snapshotIdentity, SIDECAR_VERSION, type SidecarHeader } from './explain/format.js';
export { readSidecarHeader } from './explain/decode.js';
