/**
 * The group-commit counting rule: deciding a group of requests together gives
 * exactly the answers and counters of deciding them one at a time.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countGroup, type CounterIO } from '../src/store/count-group.js';
import type { ConsumeRequest, ConsumeResult } from '../src/store/types.js';

function memory(): CounterIO & { used: Map<string, number>; rate: Map<string, { sec: number; count: number }> } {
  const used = new Map<string, number>();
  const rate = new Map<string, { sec: number; count: number }>();
  return {
    used,
    rate,
    readUsed: (a, p) => used.get(`${a}/${p}`) ?? 0,
    readRate: (a) => rate.get(a),
    writeUsed: (a, p, u) => void used.set(`${a}/${p}`, u),
    writeRate: (a, sec, count) => void rate.set(a, { sec, count }),
  };
}

/** The rule written plainly, one request at a time (the reference). */
function naive(r: ConsumeRequest, io: ReturnType<typeof memory>): ConsumeResult {
  const used = io.readUsed(r.account, r.period);
  if (r.ratePerSecond > 0) {
    const w = io.readRate(r.account);
    // A later second starts a new window; an earlier one counts in the current window.
    const fresh = w === undefined || r.second > w.sec;
    const count = fresh ? 0 : w.count;
    if (count >= r.ratePerSecond) return { outcome: 'rate_limited', used };
    io.writeRate(r.account, fresh ? r.second : w.sec, count + 1);
  }
  if (used + r.n > r.quota) return { outcome: 'quota_exceeded', used };
  if (r.n > 0) io.writeUsed(r.account, r.period, used + r.n);
  return { outcome: 'ok', used: used + r.n };
}

describe('countGroup', () => {
  it('agrees with one-at-a-time decisions on random request streams', () => {
    let seed = 42;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let run = 0; run < 200; run++) {
      const reqs: ConsumeRequest[] = Array.from({ length: 1 + rand(30) }, () => ({
        account: `a${rand(3)}`,
        period: `p${rand(2)}`,
        periodEndsAt: 0,
        quota: 5 + rand(10),
        n: rand(4),
        ratePerSecond: rand(3) === 0 ? 0 : 1 + rand(4),
        second: 100 + rand(2),
      }));
      const together = memory();
      const alone = memory();
      // Split into random groups, as event-loop turns would.
      const got: ConsumeResult[] = [];
      for (let i = 0; i < reqs.length; ) {
        const size = 1 + rand(8);
        got.push(...countGroup(reqs.slice(i, i + size), together));
        i += size;
      }
      const want = reqs.map((r) => naive(r, alone));
      expect(got).toEqual(want);
      expect(together.used).toEqual(alone.used);
    }
  });

  const request = fc.record({
    account: fc.constantFrom('a', 'b'),
    period: fc.constant('p'),
    periodEndsAt: fc.constant(0),
    quota: fc.constant(1_000_000),
    n: fc.integer({ min: 0, max: 3 }),
    ratePerSecond: fc.integer({ min: 1, max: 4 }),
    second: fc.integer({ min: 100, max: 103 }),
  });

  it('admits at most the limit while a window is current, whatever order the seconds come in', () => {
    // Requests whose second is earlier than the window's (a body read across a second's end,
    // another process ahead) must not restart the window: each would reset the count.
    fc.assert(
      fc.property(fc.array(request, { maxLength: 60 }), fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 60, maxLength: 60 }), (reqs, sizes) => {
        const limit = new Map(reqs.map((r) => [r.account, r.ratePerSecond]));
        const same = reqs.map((r) => ({ ...r, ratePerSecond: limit.get(r.account)! }));
        const io = memory();
        const got: ConsumeResult[] = [];
        for (let i = 0, g = 0; i < same.length; g++) {
          got.push(...countGroup(same.slice(i, i + sizes[g]!), io));
          i += sizes[g]!;
        }
        // Admitted requests per (account, latest second seen so far for that account).
        const latest = new Map<string, number>();
        const admitted = new Map<string, number>();
        same.forEach((r, i) => {
          const sec = Math.max(latest.get(r.account) ?? -1, r.second);
          latest.set(r.account, sec);
          if (got[i]!.outcome !== 'ok') return;
          const k = `${r.account}/${sec}`;
          admitted.set(k, (admitted.get(k) ?? 0) + 1);
          expect(admitted.get(k)).toBeLessThanOrEqual(r.ratePerSecond);
        });
      }),
    );
  });

  it('lets a late-stamped request count in the current window instead of restarting it', () => {
    const r = (second: number): ConsumeRequest => ({ account: 'a', period: 'p', periodEndsAt: 0, quota: 100, n: 1, ratePerSecond: 2, second });
    const io = memory();
    const got = countGroup([r(11), r(11), r(10), r(11)], io).map((x) => x.outcome);
    expect(got).toEqual(['ok', 'ok', 'rate_limited', 'rate_limited']);
    expect(io.rate.get('a')).toEqual({ sec: 11, count: 2 });
  });
});
