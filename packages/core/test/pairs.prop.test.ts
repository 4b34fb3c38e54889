/**
 * The pair rows (snapshot/pairs.ts) replace three column reads of a check
 * (`pair.net`, `pair.sig`, the network's `net.flags`) by one row. Whatever
 * the columns hold, a row must give back the pair's network row, its signal
 * set and its network's routing flag; the whole-snapshot tests reach only
 * the pairs their fixtures have.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NET_ROUTING_INFERRED } from '../src/snapshot/format.js';
import { evidenceKey, pairRowsOf } from '../src/snapshot/pairs.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 200) });

/** Network flags (any bits, the routing flag among them) and pairs pointing into them; signal sets up to 2^23 - 1 (3-byte ids). */
const columnsArb = fc
  .array(fc.nat({ max: 255 }), { minLength: 1, maxLength: 300 })
  .chain((flags) =>
    fc.record({
      flags: fc.constant(Uint8Array.from(flags)),
      pairs: fc.array(fc.tuple(fc.nat({ max: flags.length - 1 }), fc.nat({ max: 0x7fffff })), { maxLength: 400, size: 'max' }),
    }),
  );

describe('pair rows', () => {
  it('evidenceKey keeps the signal set (key >>> 1) and the routing flag (key & 1)', () => {
    fc.assert(
      fc.property(fc.nat({ max: 0x7fffff }), fc.boolean(), (sig, inferred) => {
        const k = evidenceKey(sig, inferred);
        expect(k >>> 1).toBe(sig);
        expect((k & 1) === 1).toBe(inferred);
      }),
    );
  });

  it("hold each pair's network row and the key of its signal set and its network's routing flag", () => {
    fc.assert(
      fc.property(columnsArb, ({ flags, pairs }) => {
        const net = Uint32Array.from(pairs.map(([n]) => n));
        const sig = Uint32Array.from(pairs.map(([, s]) => s));
        const rows = pairRowsOf(net, sig, flags);
        expect(rows.length).toBe(2 * pairs.length);
        pairs.forEach(([n, s], p) => {
          expect(rows[2 * p]).toBe(n);
          expect(rows[2 * p + 1]! >>> 1).toBe(s);
          expect(rows[2 * p + 1]! & 1).toBe((flags[n]! & NET_ROUTING_INFERRED) !== 0 ? 1 : 0);
        });
      }),
    );
  });
});
