/**
 * The benchmark harness's rounds: every contender sees every input of the
 * warm-up order and then of the timed orders, in a loop of its own, and
 * gets a rate; odd contender names do not break the loop's source.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { flatText, loopRates, rates, v4Text } from './common.mjs';

it('rates() calls each contender on every input of order 0, then of orders 1.. in turn, and rates each', () => {
  const n = 40;
  const seen: Record<string, string[]> = { plain: [], 'odd */ name\n\u2028"x"': [] };
  const fns = Object.fromEntries(
    Object.keys(seen).map((name) => [
      name,
      (i: number, o: number): boolean => {
        seen[name]!.push(`${o}:${i}`);
        return i % 2 === 0;
      },
    ]),
  );
  const best = rates(fns, n, { rounds: 4, orders: 3 });
  for (const [name, calls] of Object.entries(seen)) {
    const want = [0, 1, 2, 1, 2].flatMap((o) => Array.from({ length: n }, (_, i) => `${o}:${i}`));
    expect(calls, name).toEqual(want);
    expect(best[name], name).toBeGreaterThan(0);
    expect(Number.isFinite(best[name]), name).toBe(true);
  }
});

it('loopRates() runs each loop once for the warm-up and once per round, orders alternating', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1, max: 4 }), fc.boolean(), (rounds, orders, rotate) => {
      const runs: Record<string, number[]> = { a: [], b: [], c: [] };
      const loops = Object.fromEntries(Object.keys(runs).map((name) => [name, (o: number): number => runs[name]!.push(o)]));
      const best = loopRates(loops, 10, { rounds, orders, rotate });
      const want = [0, ...Array.from({ length: rounds }, (_, r) => (orders > 1 ? 1 + (r % (orders - 1)) : 0))];
      for (const name of Object.keys(runs)) {
        expect(runs[name]).toEqual(want);
        expect(best[name]).toBeGreaterThan(0);
      }
    }),
    { numRuns: 50 },
  );
});

it('flatText() keeps the text (the inputs stay the same addresses, only their strings are made flat)', () => {
  fc.assert(
    fc.property(fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)) }), (s) => {
      expect(flatText(s)).toBe(s);
    }),
  );
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n) => {
      expect(flatText(v4Text(n))).toBe(v4Text(n));
    }),
  );
});
