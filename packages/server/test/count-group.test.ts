/**
 * The group-commit counting rule: deciding a group of requests together gives
 * exactly the answers and counters of deciding them one at a time.
 */
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
    const count = w === undefined || w.sec !== r.second ? 0 : w.count;
    if (count >= r.ratePerSecond) return { outcome: 'rate_limited', used };
    io.writeRate(r.account, r.second, count + 1);
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
});
