/**
 * An evidence object is cached by one key made of its signal set and its
 * network's routing flag (snapshot/tables.ts, `evidenceKey`); the CLI's
 * batch keys its evidence runs the same way. Both inputs must come back out
 * of the key, whatever they are, or two evidence objects would share a slot.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evidenceKey } from '../src/snapshot/tables.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 200) });

describe('evidence key', () => {
  it('keeps the signal set (key >>> 1) and the routing flag (key & 1) of any signal set id (3-byte ids)', () => {
    fc.assert(
      fc.property(fc.nat({ max: 0x7fffff }), fc.boolean(), (sig, inferred) => {
        const k = evidenceKey(sig, inferred);
        expect(k >>> 1).toBe(sig);
        expect((k & 1) === 1).toBe(inferred);
      }),
    );
  });
});
