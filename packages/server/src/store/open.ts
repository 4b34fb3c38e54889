/**
 * Store specs (`sqlite:PATH`, a plain path, or `redis://...`) and the default
 * store location, shared by `ipintel serve` and `ipintel keys` so that a key
 * created by one is seen by the other without flags.
 *
 * Default: `$IPINTEL_STORE` when set, else the SQLite file
 * `$XDG_DATA_HOME/ipintel/store.sqlite` (XDG_DATA_HOME defaulting to
 * `~/.local/share`; on Windows `%LOCALAPPDATA%\ipintel\store.sqlite`). A
 * per-user data directory, not the working directory, so the two commands find
 * the same file wherever they are run from.
 *
 * @module
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { openRedisStore, type RedisStore, type RedisStoreOptions } from './redis.js';
import { withoutCredentials } from './redis-url.js';
import { openSqliteStore } from './sqlite.js';
import type { Store } from './types.js';

/** The default store spec (see the module comment). */
export function defaultStoreSpec(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env['IPINTEL_STORE'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return `sqlite:${defaultSqlitePath(env)}`;
}

function defaultSqlitePath(env: NodeJS.ProcessEnv): string {
  if (process.platform === 'win32' && env['LOCALAPPDATA']) return join(env['LOCALAPPDATA'], 'ipintel', 'store.sqlite');
  const xdg = env['XDG_DATA_HOME'];
  const base = xdg !== undefined && xdg !== '' ? xdg : join(homedir(), '.local', 'share');
  return join(base, 'ipintel', 'store.sqlite');
}

export interface OpenStoreOptions {
  /** For Redis: how to report connection events. */
  readonly onEvent?: RedisStoreOptions['onEvent'];
  /** For Redis: wait this long for the connection before resolving (default: do not wait). */
  readonly waitMs?: number;
}

/**
 * Opens a store from its spec without waiting for a Redis connection (requests fail closed until
 * it is up). A spec that is no store throws a TypeError that never shows a password: an unknown
 * scheme, a Redis URL ioredis would refuse or misread (redis-url.ts), or `redis:` without `//`
 * (which would otherwise be taken for a SQLite file of that name).
 */
export function openStoreSync(spec: string, options: Pick<OpenStoreOptions, 'onEvent'> = {}): Store {
  // A URL's scheme is case-insensitive (RFC 3986, 3.1), as ioredis reads it.
  if (/^rediss?:/i.test(spec)) {
    return openRedisStore(spec, options.onEvent === undefined ? {} : { onEvent: options.onEvent });
  }
  const path = spec.startsWith('sqlite:') ? spec.slice('sqlite:'.length) : spec;
  if (path === '') throw new TypeError('store spec "sqlite:" needs a path, e.g. sqlite:./ipintel.sqlite');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    throw new TypeError(`unknown store ${JSON.stringify(withoutCredentials(spec))}: use sqlite:PATH or redis://HOST:PORT`);
  }
  return openSqliteStore(path === ':memory:' ? path : resolve(path));
}

/**
 * Opens a store from its spec; for Redis, waits up to `waitMs` for the connection.
 *
 * @example
 * const store = await openStore('sqlite:/var/lib/ipintel/store.sqlite');
 * const shared = await openStore('redis://127.0.0.1:6379/0', { waitMs: 2000 });
 */
export async function openStore(spec: string, options: OpenStoreOptions = {}): Promise<Store> {
  const store = openStoreSync(spec, options);
  if (options.waitMs !== undefined && 'whenReady' in store) {
    try {
      await (store as RedisStore).whenReady(options.waitMs);
    } catch (e) {
      await store.close();
      throw e;
    }
  }
  return store;
}
