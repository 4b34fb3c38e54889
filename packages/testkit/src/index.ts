/**
 * @ipintel/testkit: shared test helpers of the ipintel packages (private,
 * dev-only; see README.md). Re-exports only.
 *
 * @module
 */
export { mulberry32, prng, randomU32, random128 } from './random.js';
export { EMPTY_SIGNALS } from './signals.js';
export { sourceRow } from './sources.js';
export {
  modelFromPrefixes,
  writeSnapshotFile,
  naiveLpm,
  prefixContains,
  prefixText,
  prefixArb,
  prefixSetArb,
  probeAddresses,
} from './prefixes.js';
export { signalsArb, connectionArb, nativeArb } from './arbitraries.js';
export { redisAvailable, freePort, startRedis, type RedisProcess } from './redis.js';
export { dribble, exchange, firstResponse, type Exchange, type RawResponse } from './raw-http.js';
export { REPO_ROOT, fixturePath, readFixture, tempDir, folderWithFile, overwriteInPlace } from './files.js';
export { asmapEntry, encodeAsmap, type AsmapEntry } from './asmap-encode.js';
export { TEST_NOON, stoppedClock, steadyClock, utcDayNow, onOneUtcDay, type SteadyClock } from './clock.js';
export { damageColumn, ipIntelErrorOf, resealSnapshot, type EditableMeta } from './damaged.js';
