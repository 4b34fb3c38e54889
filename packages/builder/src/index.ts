/**
 * @ipintel/builder: compiles public feeds into an ipintel snapshot.
 *
 * @module
 */
export { buildSnapshot, BuildError, DEFAULT_ATTRIBUTION_URL, type BuildOptions, type BuildReport, type TagConflict } from './build/build.js';
export { combine } from './combine/combine.js';
export type { CombineInput } from './combine/input.js';
export { fromFolder, fromNetwork, AcquireError, USER_AGENT, type Acquire, type Acquired, type FetchOptions } from './acquire.js';
export * as manifest from './manifest.js';
export type { SaveReport } from './save.js';
export type { WriteInterrupts } from './write-file.js';
export type { SourceReport } from './build/load.js';
export type { InvalidUtf8 } from './feeds/types.js';
export { describeInvalidUtf8 } from './feeds/read/utf8.js';
export * as feeds from './feeds/registry.js';
export { BUILDER_ERROR_CODES, DeclarationError, FeedError, type BuilderErrorCode } from './errors.js';
