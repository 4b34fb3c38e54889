/**
 * @ipintel/core for any JavaScript runtime: load a snapshot from bytes and
 * check addresses. No Node built-ins are imported from here.
 *
 * @module
 */
export { IpIntel, fromShared, loadSnapshot, type LoadOptions, type SharedSnapshot } from './intel.js';
export { IpIntelError, type IpIntelErrorCode } from './errors.js';
export { parseAddress, type ParsedAddress } from './ip/address.js';
export { parseIPv4Bytes } from './ip/parse.js';
export { toThirdParty } from './result/thirdparty.js';
export { RISK_WEIGHTS, scoreSignals, riskLevel } from './result/score.js';
export { evidenceFor } from './result/evidence.js';
export { freshness, refreshMs, type Freshness, type StaleSource } from './freshness.js';
export type { Inflate } from './snapshot/decode.js';
export type * from './types.js';
