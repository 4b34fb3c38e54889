/**
 * load-options.ts: every load option of a wrong type is `invalid_input` at
 * the load, naming the option, from each entry that loads (the Node and
 * portable ones); options of the documented types load; an explain reader
 * that gives no bytes is `invalid_input` on the first explanation.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IpIntelError, fromShared, loadSnapshot, open, openSync, type LoadOptions } from '../src/index.js';
import { fromShared as portableFromShared, loadSnapshot as portableLoadSnapshot } from '../src/portable.js';
import { encodeSnapshot } from '../src/writer.js';
import { modelFromPrefixes } from '@ipintel/testkit';

const bytes = encodeSnapshot(modelFromPrefixes([{ start: 1n << 24n, length: 8, value: 1 }], [], 2));
const shared = loadSnapshot(bytes).share();

/** Each way to load, with these options; a promise's rejection becomes a throw. */
const loaders: Record<string, (options: unknown) => Promise<unknown>> = {
  open: (o) => open(bytes, o as LoadOptions),
  openSync: async (o) => openSync(bytes, o as LoadOptions),
  loadSnapshot: async (o) => loadSnapshot(bytes, o as LoadOptions),
  fromShared: async (o) => fromShared(shared, o as LoadOptions),
  'portable loadSnapshot': async (o) => portableLoadSnapshot(bytes, o as LoadOptions),
  'portable fromShared': async (o) => portableFromShared(shared, o as LoadOptions),
};

/** Whether a value has the type the option documents. */
const documented: Record<keyof LoadOptions, (v: unknown) => boolean> = {
  inflate: (v) => typeof v === 'function',
  now: (v) => typeof v === 'function',
  attributionUrl: (v) => typeof v === 'string',
  explain: (v) => v instanceof Uint8Array || typeof v === 'function',
  preload: (v) => typeof v === 'boolean',
};

const outcome = async (load: (o: unknown) => Promise<unknown>, options: unknown): Promise<string> => {
  try {
    await load(options);
    return 'loaded';
  } catch (e) {
    return e instanceof IpIntelError ? `${e.code}: ${e.message}` : `raw ${String(e)}`;
  }
};

describe('load options', () => {
  it('any value of any option: loads when it has the documented type, else invalid_input naming the option, from every loader', async () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(() => Date.now()), fc.constant(new Uint8Array(2)), fc.constant({}), fc.constant([]));
    const option = fc.constantFrom(...(Object.keys(documented) as (keyof LoadOptions)[]));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(loaders)), option, value, async (loader, key, v) => {
        // The function drawn is a clock; as `inflate` it would inflate nothing, so a function there is left out (undefined).
        const given = key === 'inflate' && typeof v === 'function' ? undefined : v;
        const got = await outcome(loaders[loader]!, { [key]: given });
        if (documented[key](v)) expect(got).toBe('loaded');
        else expect(got).toMatch(new RegExp(`^invalid_input: options\\.${key} of \\w+ must be of type`));
      }),
      { numRuns: 200 },
    );
  });

  it('options that are not an object are invalid_input; null and undefined mean none; unknown keys are left alone', async () => {
    for (const [name, load] of Object.entries(loaders)) {
      for (const bad of ['preload', 5, true]) expect(await outcome(load, bad), name).toMatch(/^invalid_input: \w+'s options must be an object/);
      for (const none of [null, undefined, {}, { someFutureOption: 1 }]) expect(await outcome(load, none), name).toBe('loaded');
    }
  });

  it('a number as attributionUrl no longer reaches the results', async () => {
    expect(await outcome(loaders['openSync']!, { attributionUrl: 42 })).toMatch(/^invalid_input: options\.attributionUrl/);
    expect(openSync(bytes, { attributionUrl: 'https://example.test/a' }).check('1.2.3.4').attribution).toBe('https://example.test/a');
  });

  it('an explain reader that gives no bytes is invalid_input on the first explanation, not a raw error', () => {
    const intel = openSync(bytes, { explain: () => 'not bytes' as unknown as Uint8Array });
    expect(() => intel.check('1.2.3.4', { explain: true })).toThrow(expect.objectContaining({ code: 'invalid_input', message: expect.stringMatching(/explain load option's reader returned "not bytes"/) as string }) as Error);
  });
});
