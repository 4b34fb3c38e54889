/**
 * What both entries of @ipintel/core export: nothing here imports a Node
 * built-in or an inflater. Each entry adds its own `loadSnapshot` and
 * `fromShared`, which differ only in their default inflater (Node's native
 * zlib, or fflate's in `@ipintel/core/portable`).
 *
 * @module
 */
export { IpIntel, type LoadOptions } from './intel.js';
export type { SharedSnapshot } from './shared.js';
export { IpIntelError, type IpIntelErrorCode } from './errors.js';
export { parseAddress, type ParsedAddress } from './ip/address.js';
export { parseIPv4Bytes } from './ip/parse.js';
// The result helpers an application calls check their arguments (checked-helpers.ts); the snapshot's own code calls the unchecked ones.
export { toThirdParty, scoreSignals, riskLevel, evidenceFor } from './result/checked-helpers.js';
export { RISK_WEIGHTS } from './result/score.js';
export { freshness, refreshMs, type Freshness, type StaleSource } from './freshness.js';
export type { Inflate } from './snapshot/decode.js';
export type * from './types.js';
