/**
 * The counting rule, applied to a group of consume requests inside one
 * write transaction (the SQLite store's group commit).
 *
 * Each request is decided in arrival order, exactly as if it ran alone:
 *   1. rate window: a later second starts at 0; at the limit -> rate_limited.
 *      A request stamped with an earlier second than the window's (its body
 *      was read across a second's end, or another process counted a later
 *      second first) counts in the current window: restarting the window for
 *      it would let every late request reset the count, and the per-second
 *      limit would no longer hold.
 *   2. n = 0 -> ok (only reads the counter)
 *   3. used + n > quota -> quota_exceeded (nothing added)
 *   4. otherwise used += n -> ok
 * Counters are read once per (account, period) and written once at the end.
 * The caller must hold the write lock for the whole call (BEGIN IMMEDIATE),
 * so no other process can write between the reads and the writes.
 *
 * @module
 */
import type { ConsumeRequest, ConsumeResult } from './types.js';

export interface CounterIO {
  readUsed(account: string, period: string): number;
  readRate(account: string): { sec: number; count: number } | undefined;
  writeUsed(account: string, period: string, used: number): void;
  writeRate(account: string, sec: number, count: number): void;
}

interface Usage {
  readonly account: string;
  readonly period: string;
  used: number;
  dirty: boolean;
}

interface Window {
  sec: number;
  count: number;
  dirty: boolean;
}

export function countGroup(reqs: readonly ConsumeRequest[], io: CounterIO): ConsumeResult[] {
  const usage = new Map<string, Usage>();
  const windows = new Map<string, Window>();
  const out: ConsumeResult[] = [];
  for (const r of reqs) {
    const uk = `${r.account}\u0000${r.period}`;
    let u = usage.get(uk);
    if (u === undefined) {
      u = { account: r.account, period: r.period, used: io.readUsed(r.account, r.period), dirty: false };
      usage.set(uk, u);
    }
    if (r.ratePerSecond > 0) {
      let w = windows.get(r.account);
      if (w === undefined) {
        const row = io.readRate(r.account);
        w = { sec: row?.sec ?? -1, count: row?.count ?? 0, dirty: false };
        windows.set(r.account, w);
      }
      if (r.second > w.sec) {
        w.sec = r.second;
        w.count = 0;
      }
      if (w.count >= r.ratePerSecond) {
        out.push({ outcome: 'rate_limited', used: u.used });
        continue;
      }
      w.count++;
      w.dirty = true;
    }
    if (r.n === 0) out.push({ outcome: 'ok', used: u.used });
    else if (u.used + r.n > r.quota) out.push({ outcome: 'quota_exceeded', used: u.used });
    else {
      u.used += r.n;
      u.dirty = true;
      out.push({ outcome: 'ok', used: u.used });
    }
  }
  for (const u of usage.values()) if (u.dirty) io.writeUsed(u.account, u.period, u.used);
  for (const [account, w] of windows) if (w.dirty) io.writeRate(account, w.sec, w.count);
  return out;
}
