/**
 * @ipintel/server: the ipintel HTTP API (spec section 4, PRODUCT.md section 6),
 * standalone (`startServer`) or embedded (`createNodeHandler`,
 * `createFetchHandler`, or the socket-less `createApp`), and key management
 * (`createKey`, `rotateKey`, ...). The `ipintel serve` and `ipintel keys`
 * commands live in the CLI package and call these. Re-exports only.
 *
 * @module
 */
export { createApp, type App, type AppOptions } from './app.js';
export { createNodeHandler, type NodeHandler, type NodeHandlerOptions } from './adapters/node.js';
export { createFetchHandler, type FetchHandler, type FetchHandlerOptions } from './adapters/fetch.js';
export { startServer, type StartOptions, type RunningServer } from './standalone.js';
export { DEFAULT_LIMITS, type ServerLimits } from './http/server-limits.js';
export type { ApiRequest, ApiResponse } from './http/types.js';
export { PROBLEMS, type ProblemCode, type ProblemBody } from './http/problem.js';
export { DEFAULT_PLANS, resolvePlans, periodAt, type Plan, type QuotaPeriod } from './plans.js';
export {
  createKey,
  revokeKey,
  rotateKey,
  keyState,
  KeyError,
  DEFAULT_ACTIVATION_DELAY_MS,
  DEFAULT_ROTATION_GRACE_MS,
  type CreatedKey,
  type KeyState,
} from './keys/manage.js';
export { generateKey, hashKey, keyId, redactKey } from './keys/secret.js';
export { openStore, openStoreSync, defaultStoreSpec } from './store/open.js';
export { openSqliteStore } from './store/sqlite.js';
export { openRedisStore, type RedisStore } from './store/redis.js';
export { StoreUnavailableError, type Store, type KeyRecord, type ConsumeRequest, type ConsumeResult } from './store/types.js';
export { openApiDocument } from './openapi/document.js';
export { MAX_BATCH } from './context.js';
export { turnBuffered, type TurnBufferOptions, type TurnBufferedDestination } from './log.js';
export { serverLogger } from './access-log.js';
