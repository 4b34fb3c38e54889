/**
 * The writer's text fields: a string or null, nothing else. A missing field
 * (undefined, as a hand-written JavaScript row can have) used to be stored
 * as "" and answered as an empty string; now it is refused, naming the column.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadSnapshot } from '../src/portable.js';
import { encodeSnapshot } from '../src/writer.js';
import { EMPTY_SIGNALS, modelFromPrefixes } from '@ipintel/testkit';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 100) });

const base = modelFromPrefixes([{ start: 0x08080800n, length: 24, value: 0 }], [], 1);
const model = { ...base, signals: [{ ...EMPTY_SIGNALS, vpn_operator: 'Example VPN', is_vpn: true }] };

/** Text fields per table, with the column each is stored in. */
const FIELDS = [
  ['geo', 'country_code'], ['geo', 'timezone'], ['geo', 'region'], ['geo', 'city'],
  ['networks', 'as_org'], ['networks', 'registration_country'],
  ['signals', 'datacenter_provider'], ['signals', 'relay_provider'], ['signals', 'verified_bot_name'], ['signals', 'vpn_operator'],
] as const;
const COLUMN = { geo: 'geo', networks: 'net', signals: 'sig' } as const;

/** The model with one field of the first row of `table` replaced by `value` (or removed). */
function withField(table: (typeof FIELDS)[number][0], field: string, value: unknown, remove: boolean): unknown {
  const row: Record<string, unknown> = { ...(model[table][0] as object) };
  if (remove) delete row[field];
  else row[field] = value;
  return { ...model, [table]: [row, ...model[table].slice(1)] };
}

describe('encodeSnapshot text fields', () => {
  it('refuses a missing or non-string field with a RangeError naming its column', () => {
    const notText = fc.oneof(fc.integer(), fc.boolean(), fc.constant(undefined), fc.array(fc.string(), { maxLength: 2 }), fc.object({ maxDepth: 1 }));
    fc.assert(
      fc.property(fc.constantFrom(...FIELDS), notText, fc.boolean(), ([table, field], value, remove) => {
        const bad = withField(table, field, value, remove);
        expect(() => encodeSnapshot(bad as typeof model)).toThrow(RangeError);
        expect(() => encodeSnapshot(bad as typeof model)).toThrow(`${COLUMN[table]}.${field}`);
      }),
    );
  });

  it('stores strings and nulls as given', () => {
    fc.assert(
      fc.property(fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: null }), (name) => {
        const m = { ...model, signals: [{ ...model.signals[0]!, vpn_operator: name }] };
        expect(loadSnapshot(encodeSnapshot(m)).check('8.8.8.8').signals.vpn_operator).toBe(name);
      }),
    );
  });
});
