/**
 * @ipintel/builder: compiles public feeds into an ipintel snapshot.
 *
 * @module
 */
export { buildSnapshot, BuildError, DEFAULT_ATTRIBUTION_URL, type BuildOptions, type BuildReport, type TagConflict } from './build/build.js';
export { combine } from './combine/combine.js';
export type { CombineInput } from './combine/input.js';
export { fromFolder, fromNetwork, AcquireError } from './acquire.js';
export * as feeds from './feeds/registry.js';
export { BUILDER_ERROR_CODES, DeclarationError, FeedError, type BuilderErrorCode } from './errors.js';
