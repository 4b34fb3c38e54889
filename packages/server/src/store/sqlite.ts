/**
 * The embedded default store: one SQLite file (better-sqlite3).
 *
 * Several processes may share the file: WAL mode lets readers run beside the
 * one writer, and busy_timeout makes a writer wait for the lock instead of
 * failing. synchronous=NORMAL: in WAL mode a commit is durable against a crash
 * of the process (the WAL is written before the call returns); only a power
 * loss may lose the last commits.
 *
 * Atomic counting: check and increment run in one BEGIN IMMEDIATE
 * transaction, which takes the database's write lock before it reads the
 * counter, so no other process can write between the check and the increment
 * (count-group.ts has the rule).
 *
 * Waiting for another process's lock: better-sqlite3 is synchronous, and
 * SQLite's busy handler sleeps on the calling thread. A server's counts must
 * not stop its event loop for as long as another process (a CLI key command,
 * a long transaction, a backup) holds the write lock, nor outlive their
 * deadline (`storeTimeoutMs`). So SQLite waits at most BUSY_SLICE_MS at a
 * time; a group that finds the lock taken is tried again BUSY_RETRY_MS later
 * (the loop serves other requests meanwhile), and each try first refuses the
 * counts past their deadline (503, nothing counted). A count without a
 * deadline gives up after `busyTimeoutMs`. The other calls (key reads and
 * writes: the CLI's key commands) keep waiting in place, in slices, up to
 * `busyTimeoutMs`; opening the file waits up to `busyTimeoutMs` too.
 *
 * Group commit: the consume calls that arrive within GROUP_TURNS turns of the
 * event loop are run in ONE such transaction (each call still decided in
 * arrival order, as if alone), and every caller is answered only after the
 * commit. So counting stays exact and nothing is served before it is durably
 * counted, while the cost of a commit (the WAL write) is shared by the whole
 * group.
 *
 * Privacy: the file holds key hashes and usage per account, so a file this
 * module creates is 0600 (SQLite gives its -wal and -shm files the same mode)
 * and a folder it creates is 0700. Existing files and folders keep their mode.
 *
 * @module
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { countGroup, type CounterIO } from './count-group.js';
import { StoreUnavailableError, type ConsumeRequest, type ConsumeResult, type KeyRecord, type Store } from './types.js';

/**
 * Event-loop turns a group stays open after its first count (the commit runs
 * in a setImmediate callback that many turns later). Two, not one: the turn
 * after the first count reads the requests that arrived meanwhile, so under
 * load a group holds 7.6-7.8 counts instead of 5.5-5.7, and a server with
 * ten clients answered more requests a second (medians: 16% on a one-network
 * snapshot, 4% on the world's; docs/design.md, "Eighteenth round"); a lone
 * request waits one more turn (microseconds).
 */
const GROUP_TURNS = 2;

/** The longest SQLite's busy handler waits for a lock in one try, ms: the longest a try can hold up the event loop. */
export const BUSY_SLICE_MS = 5;

/** How long a group that found the write lock taken waits (without blocking) before its next try, ms. */
const BUSY_RETRY_MS = 2;

/** Whether `e` says the database was locked by another connection (SQLITE_BUSY and its extended codes). */
function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS keys (
  id TEXT PRIMARY KEY, hash TEXT NOT NULL, prefix TEXT NOT NULL, plan TEXT NOT NULL, name TEXT,
  account TEXT NOT NULL, created_at INTEGER NOT NULL, revoked_at INTEGER, replaced_by TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS usage (
  account TEXT NOT NULL, period TEXT NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (account, period)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rate (account TEXT PRIMARY KEY, sec INTEGER NOT NULL, count INTEGER NOT NULL) WITHOUT ROWID;
`;

interface KeyRow {
  id: string;
  hash: string;
  prefix: string;
  plan: string;
  name: string | null;
  account: string;
  created_at: number;
  revoked_at: number | null;
  replaced_by: string | null;
}

const toRecord = (r: KeyRow): KeyRecord => ({
  id: r.id,
  hash: r.hash,
  prefix: r.prefix,
  plan: r.plan,
  name: r.name,
  account: r.account,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  replacedBy: r.replaced_by,
});

export interface SqliteStoreOptions {
  /**
   * How long a call waits for another connection's lock, ms (default 5000): the key calls and a
   * count without a deadline. A count with a deadline waits until its deadline, without blocking.
   */
  readonly busyTimeoutMs?: number;
}

/** Opens (creating when needed) the SQLite store at `path`. */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  if (path !== ':memory:') createPrivately(path);
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const db = new Database(path, { timeout: busyTimeoutMs });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(SCHEMA);
  // From here SQLite waits for a lock in slices; longer waits are ours (see the module comment).
  db.pragma(`busy_timeout = ${Math.min(BUSY_SLICE_MS, busyTimeoutMs)}`);
  const q = {
    getKey: db.prepare<[string], KeyRow>('SELECT * FROM keys WHERE id = ?'),
    insertKey: db.prepare(
      'INSERT INTO keys (id, hash, prefix, plan, name, account, created_at, revoked_at, replaced_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    listKeys: db.prepare<[], KeyRow>('SELECT * FROM keys ORDER BY created_at, id'),
    revoke: db.prepare('UPDATE keys SET revoked_at = ? WHERE id = ? AND (revoked_at IS NULL OR revoked_at > ?)'),
    replaced: db.prepare('UPDATE keys SET replaced_by = ? WHERE id = ? AND replaced_by IS NULL'),
    used: db.prepare<[string, string], { used: number }>('SELECT used FROM usage WHERE account = ? AND period = ?'),
    setUsed: db.prepare('INSERT INTO usage (account, period, used) VALUES (?, ?, ?) ON CONFLICT (account, period) DO UPDATE SET used = excluded.used'),
    rate: db.prepare<[string], { sec: number; count: number }>('SELECT sec, count FROM rate WHERE account = ?'),
    setRate: db.prepare('INSERT INTO rate (account, sec, count) VALUES (?, ?, ?) ON CONFLICT (account) DO UPDATE SET sec = excluded.sec, count = excluded.count'),
  };
  const usedOf = (account: string, period: string): number => q.used.get(account, period)?.used ?? 0;

  const counters: CounterIO = {
    readUsed: usedOf,
    readRate: (account) => q.rate.get(account),
    writeUsed: (account, period, used) => void q.setUsed.run(account, period, used),
    writeRate: (account, sec, count) => void q.setRate.run(account, sec, count),
  };
  const group = db.transaction((reqs: readonly ConsumeRequest[]): ConsumeResult[] => countGroup(reqs, counters));

  let closed = false;
  interface Pending {
    readonly r: ConsumeRequest;
    readonly resolve: (v: ConsumeResult) => void;
    readonly reject: (e: unknown) => void;
    /** When a try of its group first found the write lock taken (Date.now()); counts without a deadline wait busyTimeoutMs from then. */
    busySince?: number;
  }
  /** Counts waiting for their group's commit. A group that found the lock taken waits here again for its retry, so new counts join it (the queue is not empty) instead of starting a group. */
  let queue: Pending[] = [];
  /** Whether `p` may no longer be counted at `t`: past its deadline, or (without one) waiting for the lock for busyTimeoutMs. */
  const expired = (p: Pending, t: number): boolean =>
    p.r.deadline !== undefined ? t > p.r.deadline : p.busySince !== undefined && t - p.busySince >= busyTimeoutMs;
  const flush = (): void => {
    let batch = queue;
    queue = [];
    if (closed) {
      for (const p of batch) p.reject(new StoreUnavailableError('the SQLite store is closed'));
      return;
    }
    // A count past its deadline is refused before the transaction: its request is answered 503.
    const t = Date.now();
    if (batch.some((p) => expired(p, t))) {
      for (const p of batch) if (expired(p, t)) p.reject(new StoreUnavailableError(p.r.deadline !== undefined ? 'SQLite store: the count came after its deadline; nothing was counted' : 'SQLite store: the database stayed locked by another connection; nothing was counted'));
      batch = batch.filter((p) => !expired(p, t));
      if (batch.length === 0) return;
    }
    let results: ConsumeResult[];
    try {
      results = group.immediate(batch.map((p) => p.r));
    } catch (e) {
      if (isBusy(e)) {
        // Another connection holds the write lock: nothing was done. Try again later, ahead of
        // the counts that arrive meanwhile (arrival order is the counting order).
        const now = Date.now();
        for (const p of batch) p.busySince ??= now;
        queue = batch.concat(queue);
        setTimeout(flush, BUSY_RETRY_MS);
        return;
      }
      const err = unavailable('count usage', e);
      for (const p of batch) p.reject(err);
      return;
    }
    for (let i = 0; i < batch.length; i++) batch[i]!.resolve(results[i]!);
  };
  // The group is committed GROUP_TURNS event-loop turns after its first count.
  const flushLater = (turns: number): void => void setImmediate(turns <= 1 ? flush : () => flushLater(turns - 1));
  const consume = (r: ConsumeRequest): Promise<ConsumeResult> =>
    new Promise((resolve, reject) => {
      if (queue.push({ r, resolve, reject }) === 1) flushLater(GROUP_TURNS);
    });
  const revoke = db.transaction((id: string, at: number, replacedBy: string | undefined): boolean => {
    if (q.getKey.get(id) === undefined) return false;
    q.revoke.run(at, id, at);
    if (replacedBy !== undefined) q.replaced.run(replacedBy, id);
    return true;
  });

  /** `fn`, tried again in place (in BUSY_SLICE_MS waits) while another connection holds a lock it needs, up to busyTimeoutMs. */
  const guard = <T>(what: string, fn: () => T): Promise<T> => {
    if (closed) return Promise.reject(new StoreUnavailableError('the SQLite store is closed'));
    const until = Date.now() + busyTimeoutMs;
    for (;;) {
      try {
        return Promise.resolve(fn());
      } catch (e) {
        if (!isBusy(e) || Date.now() >= until) return Promise.reject(unavailable(what, e));
      }
    }
  };

  return {
    kind: 'sqlite',
    location: path,
    getKey: (id) => guard('read a key', () => {
      const row = q.getKey.get(id);
      return row === undefined ? null : toRecord(row);
    }),
    insertKey: (k) =>
      guard('insert a key', () => {
        try {
          q.insertKey.run(k.id, k.hash, k.prefix, k.plan, k.name, k.account, k.createdAt, k.revokedAt, k.replacedBy);
          return true;
        } catch (e) {
          if ((e as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT') === true) return false;
          throw e;
        }
      }),
    listKeys: () => guard('list keys', () => q.listKeys.all().map(toRecord)),
    revokeKey: (id, at, replacedBy) => guard('revoke a key', () => revoke.immediate(id, at, replacedBy)),
    consume: (r) => (closed ? Promise.reject(new StoreUnavailableError('the SQLite store is closed')) : consume(r)),
    usage: (account, period) => guard('read usage', () => usedOf(account, period)),
    ping: () => guard('ping', () => void db.prepare('SELECT 1').get()),
    close: () => {
      if (!closed) {
        closed = true;
        db.close();
      }
      return Promise.resolve();
    },
  };
}

/** Creates the folders (0700) and an empty file (0600) unless they exist; SQLite then opens the file as it is. */
function createPrivately(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}

function unavailable(what: string, e: unknown): StoreUnavailableError {
  const msg = e instanceof Error ? e.message : String(e);
  return new StoreUnavailableError(`SQLite store: could not ${what}: ${msg}`, { cause: e });
}
