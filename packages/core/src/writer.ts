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
export { addressToBigInt, bigIntToText, parseAddress } from './ip/address.js';
export { formatIPv4, formatIPv6 } from './ip/format.js';
