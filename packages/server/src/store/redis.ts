/**
 * The Redis store (ioredis): keys and counters for several server processes
 * or hosts.
 *
 * Layout (`ipintel:` prefix): `key:<id>` a hash per key, `keys` the set of ids,
 * `{<account>}:u:<period>` usage counters, `{<account>}:r` the rate window
 * (its second and the tokens taken in it), `{<account>}:c:<second>` markers
 * of the counts made in that second (count id -> lookups, kept 2 minutes;
 * redis-reconcile.ts) (the braces keep one account's keys in one cluster slot).
 *
 * Atomic counting: a Lua script (run with EVALSHA through ioredis
 * defineCommand, which falls back to EVAL after a server restart empties the
 * script cache) checks the rate window and the quota and increments, as one
 * step: Redis runs a script without interleaving other commands.
 *
 * Failing closed: the offline queue is off, so while Redis is unreachable every
 * command rejects at once (no request hangs, none is served uncounted);
 * ioredis keeps reconnecting in the background and the store recovers by
 * itself when Redis returns. While Redis is connected but not answering
 * (stalled), commands fail fast too (redis-link.ts).
 *
 * Counted iff answered: a count carries a deadline, converted to Redis's
 * clock; the script reads TIME first and, past the deadline, returns
 * `expired` without touching anything. The store stops waiting only after the
 * deadline (plus the clock's uncertainty and GUARD_MS), so a count that Redis
 * runs after the request was answered 503 is refused by Redis itself. A count
 * whose request got a 503 without the store knowing whether Redis ran it (a
 * reply later than the guard, a connection broken after sending, Redis killed
 * mid-count) is checked against the marker the script leaves, once it can no
 * longer run, and undone if it ran (redis-reconcile.ts). ioredis re-sends
 * commands left unanswered by a broken connection; the script does not count
 * an id whose marker exists, so a re-sent count never counts twice.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisLink } from './redis-link.js';
import { checkRedisUrl, withoutCredentials } from './redis-url.js';
import { MARKER_TTL_MS, Reconciler, REFUND_LUA, type UncertainCount } from './redis-reconcile.js';
import { StoreUnavailableError, type ConsumeRequest, type ConsumeResult, type KeyRecord, type Store } from './types.js';

/** How long past a count's deadline (beyond the clock's uncertainty) the store still waits for its answer, ms. */
const GUARD_MS = 100;
/** How long close() keeps checking uncertain counts beyond the command timeout, ms. */
const DRAIN_EXTRA_MS = 2000;

/**
 * How long an account's rate window is kept after its last token, ms. The
 * window (`{account}:r`, fields `s` second and `c` tokens taken) is one per
 * account, as in SQLite's table, not one per second: a request stamped with an
 * earlier second than the window's (a body read across a second's end, a host
 * whose clock is behind) takes its token in the current window instead of
 * opening a window of its own second (count-group.ts has the rule). Kept well
 * past its second so that such late requests still find it; once expired, the
 * next request starts a window, as after a quiet spell.
 */
const RATE_WINDOW_TTL_MS = 60_000;

const CONSUME_LUA = `
local deadline = tonumber(ARGV[5])
if deadline > 0 then
  local t = redis.call('TIME')
  if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > deadline then return {3, 0} end
end
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if redis.call('HEXISTS', KEYS[3], ARGV[6]) == 1 then return {0, used} end
local limit = tonumber(ARGV[3])
if limit > 0 then
  local w = redis.call('HMGET', KEYS[2], 's', 'c')
  local sec = tonumber(w[1] or '-1')
  local c = tonumber(w[2] or '0')
  local now = tonumber(ARGV[8])
  if now > sec then
    sec = now
    c = 0
  end
  if c >= limit then return {2, used} end
  redis.call('HSET', KEYS[2], 's', sec, 'c', c + 1)
  redis.call('PEXPIRE', KEYS[2], ${RATE_WINDOW_TTL_MS})
end
local n = tonumber(ARGV[1])
if n == 0 then return {0, used} end
if used + n > tonumber(ARGV[2]) then return {1, used} end
used = redis.call('INCRBY', KEYS[1], n)
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('HSET', KEYS[3], ARGV[6], n)
redis.call('PEXPIRE', KEYS[3], ARGV[7])
return {0, used}`;

const INSERT_LUA = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('SADD', KEYS[2], ARGV[1])
return 1`;

const REVOKE_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local cur = redis.call('HGET', KEYS[1], 'revokedAt')
if (not cur) or tonumber(cur) > tonumber(ARGV[1]) then redis.call('HSET', KEYS[1], 'revokedAt', ARGV[1]) end
if ARGV[2] ~= '' then redis.call('HSETNX', KEYS[1], 'replacedBy', ARGV[2]) end
return 1`;

const OUTCOMES = ['ok', 'quota_exceeded', 'rate_limited'] as const;
/** The script's answer for a count that reached Redis after its deadline (nothing done). */
const EXPIRED = 3;
/** Usage counters are kept this long after their period ends (for `keys list`). */
const KEEP_AFTER_PERIOD_S = 40 * 86_400;

interface Scripts {
  ipintelConsume(usageKey: string, rateKey: string, markerKey: string, n: number, quota: number, rate: number, ttlSeconds: number, redisDeadlineMs: number, id: string, markerTtlMs: number, second: number): Promise<[number, number]>;
  ipintelRefund(usageKey: string, markerKey: string, id: string): Promise<number>;
  ipintelInsert(hashKey: string, setKey: string, id: string, ...fields: string[]): Promise<number>;
  ipintelRevoke(hashKey: string, at: number, replacedBy: string): Promise<number>;
}

export interface RedisStoreOptions {
  /** Key prefix (default `ipintel:`). */
  readonly prefix?: string;
  /**
   * Called on connection errors and recovery, when Redis stops and starts
   * answering (`stalled`, `ready`), and when a count that arrived too late
   * was undone (`late_count`) (the server logs them).
   */
  readonly onEvent?: (event: 'error' | 'ready' | 'stalled' | 'late_count' | 'unreconciled', error?: Error) => void;
  /** Timeout of a command, and the deadline of a count that has none, ms (default 1000). */
  readonly commandTimeoutMs?: number;
}

export interface RedisStore extends Store {
  /** Resolves when connected; rejects with StoreUnavailableError after `timeoutMs`. */
  whenReady(timeoutMs: number): Promise<void>;
}

/** Rejects once `deadline` (Date.now() time) has passed, without holding the process open. */
function untilDeadline(deadline: number): Promise<never> {
  return new Promise((_, reject) => {
    setTimeout(() => reject(new Error('not connected before the deadline')), Math.max(0, deadline - Date.now())).unref();
  });
}

function fromHash(h: Record<string, string>): KeyRecord | null {
  if (h['id'] === undefined) return null;
  return {
    id: h['id'],
    hash: h['hash'] ?? '',
    prefix: h['prefix'] ?? 'ipi',
    plan: h['plan'] ?? '',
    name: h['name'] ?? null,
    account: h['account'] ?? h['id'],
    createdAt: Number(h['createdAt']),
    revokedAt: h['revokedAt'] === undefined ? null : Number(h['revokedAt']),
    replacedBy: h['replacedBy'] ?? null,
  };
}

function toFields(k: KeyRecord): string[] {
  const f = ['id', k.id, 'hash', k.hash, 'prefix', k.prefix, 'plan', k.plan, 'account', k.account, 'createdAt', String(k.createdAt)];
  if (k.name !== null) f.push('name', k.name);
  if (k.revokedAt !== null) f.push('revokedAt', String(k.revokedAt));
  if (k.replacedBy !== null) f.push('replacedBy', k.replacedBy);
  return f;
}

/**
 * Connects to Redis at `url` (`redis://[[user]:password@]host[:port][/db]`, `rediss://` for TLS).
 * Throws a TypeError naming the problem, without the password, for a URL ioredis would refuse
 * or misread (redis-url.ts).
 */
export function openRedisStore(url: string, options: RedisStoreOptions = {}): RedisStore {
  checkRedisUrl(url);
  const prefix = options.prefix ?? 'ipintel:';
  const timeoutMs = options.commandTimeoutMs ?? 1000;
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    // Commands issued in the same tick go out in one write: fewer syscalls under load.
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    // Commands unanswered when a connection breaks are re-sent on the next one (ioredis's default;
    // without it, auto-pipelining stalls after a reconnect). A re-sent count is safe: the script
    // does not count an id it has counted (its marker).
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(50 * times, 1000),
  });
  redis.on('error', (e: Error) => options.onEvent?.('error', e));
  redis.on('ready', () => options.onEvent?.('ready'));
  redis.defineCommand('ipintelConsume', { numberOfKeys: 3, lua: CONSUME_LUA });
  redis.defineCommand('ipintelRefund', { numberOfKeys: 2, lua: REFUND_LUA });
  redis.defineCommand('ipintelInsert', { numberOfKeys: 2, lua: INSERT_LUA });
  redis.defineCommand('ipintelRevoke', { numberOfKeys: 1, lua: REVOKE_LUA });
  const scripts = redis as unknown as Scripts;
  const location = withoutCredentials(url);
  const link = new RedisLink(redis, location, (stalled) => options.onEvent?.(stalled ? 'stalled' : 'ready'));
  const reconciler = new Reconciler(
    (c) => link.call('undo a count', () => scripts.ipintelRefund(c.usageKey, c.markerKey, c.id), timeoutMs),
    (event, error) => options.onEvent?.(event, error),
  );
  // Ids of counts, unique per store instance: a random prefix and a sequence number.
  const idPrefix = randomBytes(6).toString('base64url');
  let idSeq = 0;
  const keyKey = (id: string): string => `${prefix}key:${id}`;
  const usageKey = (account: string, period: string): string => `${prefix}{${account}}:u:${period}`;

  // Until the first connection is up, commands wait for it (up to 2 s, a count
  // only up to its deadline) rather than fail: a server starting beside Redis
  // answers its first requests. Once connected, an outage fails commands at once
  // (offline queue off).
  let everReady = false;
  // One wait shared by all commands issued before the first connection.
  let firstConnect: Promise<void> | undefined;
  redis.on('ready', () => {
    everReady = true;
  });
  const whenReady = (timeoutMs: number): Promise<void> => {
    if (redis.status === 'ready') return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => {
        redis.off('ready', done);
        reject(new Error(`not reachable within ${timeoutMs} ms`));
      }, timeoutMs);
      function done(): void {
        clearTimeout(t);
        resolve();
      }
      redis.once('ready', done);
    });
  };
  const firstConnection = async (what: string, deadline = Number.POSITIVE_INFINITY): Promise<void> => {
    if (everReady || redis.status === 'ready') return;
    try {
      const shared = (firstConnect ??= whenReady(2000).finally(() => (firstConnect = undefined)));
      // A count waits no longer than its deadline: its request must get its 503 within
      // storeTimeoutMs (a keyless demo request reads no key, so nothing else bounds it).
      await (deadline === Number.POSITIVE_INFINITY ? shared : Promise.race([shared, untilDeadline(deadline)]));
    } catch (e) {
      throw new StoreUnavailableError(`Redis store (${location}): could not ${what}: ${(e as Error).message}`, { cause: e });
    }
  };
  /** One command (or a short sequence), bounded by the command timeout. */
  const guard = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    await firstConnection(what);
    return link.call(what, fn, timeoutMs);
  };

  const consume = async (r: ConsumeRequest): Promise<ConsumeResult> => {
    const deadline = r.deadline ?? Date.now() + timeoutMs;
    await firstConnection('count usage', deadline);
    // Once per connection: wait (at most to the deadline) for the first reading of Redis's clock.
    if (!link.clockKnown) await Promise.race([link.clockRead, new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())).unref())]);
    const { offset, slack } = link.clock;
    // Relative TTL: the counter outlives its period by KEEP_AFTER_PERIOD_S.
    const ttl = Math.max(0, Math.ceil((r.periodEndsAt - Date.now()) / 1000)) + KEEP_AFTER_PERIOD_S;
    const rateKey = `${prefix}{${r.account}}:r`;
    const giveUp = deadline + slack + GUARD_MS;
    const count: UncertainCount = {
      usageKey: usageKey(r.account, r.period),
      markerKey: `${prefix}{${r.account}}:c:${r.second}`,
      id: `${idPrefix}${(idSeq++).toString(36)}`,
      n: r.n,
      account: r.account,
      notBefore: giveUp,
      expires: Date.now() + MARKER_TTL_MS - 10_000,
    };
    let sent = false;
    let o: number;
    let used: number;
    try {
      [o, used] = await link.call(
        'count usage',
        () => {
          sent = true;
          return scripts.ipintelConsume(count.usageKey, rateKey, count.markerKey, r.n, r.quota, r.ratePerSecond, ttl, Math.floor(deadline + offset), count.id, MARKER_TTL_MS, r.second);
        },
        Math.ceil(giveUp - Date.now()),
        ([late]) => {
          if (late === 0 && r.n > 0) reconciler.late(count);
        },
      );
    } catch (e) {
      // Sent, but no answer: it may have run. Checked (and undone if it did) once it can no longer run.
      if (sent && r.n > 0) reconciler.add(count);
      throw e;
    }
    if (o === EXPIRED) throw new StoreUnavailableError(`Redis store (${location}): the count reached Redis after its deadline; nothing was counted`);
    return { outcome: OUTCOMES[o] ?? 'quota_exceeded', used };
  };

  // Counts under way: close() waits for them (each is bounded by its deadline), so a count that
  // ends unanswered is in the reconciler's list before the last check of that list, not after it.
  const counting = new Set<Promise<unknown>>();
  const trackedConsume = (r: ConsumeRequest): Promise<ConsumeResult> => {
    const run = consume(r);
    counting.add(run);
    const forget = (): void => void counting.delete(run);
    run.then(forget, forget);
    return run;
  };

  return {
    kind: 'redis',
    location,
    getKey: (id) => guard('read a key', async () => fromHash(await redis.hgetall(keyKey(id)))),
    insertKey: (k) => guard('insert a key', async () => (await scripts.ipintelInsert(keyKey(k.id), `${prefix}keys`, k.id, ...toFields(k))) === 1),
    listKeys: () =>
      guard('list keys', async () => {
        const ids = (await redis.smembers(`${prefix}keys`)).sort();
        const out: KeyRecord[] = [];
        for (const id of ids) {
          const k = fromHash(await redis.hgetall(keyKey(id)));
          if (k !== null) out.push(k);
        }
        return out.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
      }),
    revokeKey: (id, at, replacedBy) =>
      guard('revoke a key', async () => (await scripts.ipintelRevoke(keyKey(id), at, replacedBy ?? '')) === 1),
    consume: trackedConsume,
    usage: (account, period) => guard('read usage', async () => Number((await redis.get(usageKey(account, period))) ?? 0)),
    ping: () => guard('ping', async () => void (await redis.ping())),
    whenReady: (ms) =>
      whenReady(ms).catch((e: Error) => {
        throw new StoreUnavailableError(`Redis store (${location}): could not connect: ${e.message}`, { cause: e });
      }),
    close: async () => {
      // Counts answered 503 whose fate is unknown are checked before the connection goes
      // (bounded: the longest a count can still run, plus time to reconnect).
      await Promise.allSettled(counting);
      await reconciler.drain(timeoutMs + DRAIN_EXTRA_MS);
      link.close();
      try {
        if (redis.status === 'ready') await redis.quit();
      } catch {
        // quitting a broken connection: disconnect below is enough
      }
      redis.disconnect();
    },
  };
}
