/**
 * Row 4 of issue 11: no full API key reaches the access log, however the URL
 * spells it. `?%74oken=<key>` authenticates (query names are percent-decoded),
 * so redaction works on decoded names and values too. Properties over random
 * percent-encodings of the parameter name and of the key, in the query and in
 * the path.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateKey } from '../../src/keys/secret.js';
import { loggableUrl } from '../../src/log.js';
import { call, captureLogger, harness } from '../support/harness.js';

const hex = (c: string, upper: boolean): string => {
  const h = c.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${upper ? h.toUpperCase() : h}`;
};

/** `text` with each character kept or percent-encoded as `mask` says. */
const encodeSome = (text: string, mask: readonly boolean[], upper: boolean): string =>
  [...text].map((c, i) => (mask[i % mask.length] === true ? hex(c, upper) : c)).join('');

/** Every percent-escape decoded, leniently (what a reader of the log could recover). */
const decoded = (s: string): string => s.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

const masks = fc.array(fc.boolean(), { minLength: 1, maxLength: 48 });

describe('loggableUrl', () => {
  it('never keeps the secret part of a key, whatever is percent-encoded and wherever it is', () => {
    fc.assert(
      fc.property(masks, masks, fc.boolean(), fc.constantFrom('query-token', 'query-other', 'path', 'name'), fc.string({ maxLength: 20 }), (nameMask, keyMask, upper, where, noise) => {
        const { key } = generateKey();
        const secret = key.slice(-22);
        const enc = encodeSome(key, keyMask, upper);
        const noiseParam = `n=${encodeURIComponent(noise)}`;
        const url =
          where === 'query-token'
            ? `/thirdparty/8.8.8.8/json?${noiseParam}&${encodeSome('token', nameMask, upper)}=${enc}`
            : where === 'query-other'
              ? `/v1/check?ip=${enc}&${noiseParam}`
              : where === 'path'
                ? `/thirdparty/${enc}/json?${noiseParam}`
                : `/v1/check?${enc}=1`;
        const logged = loggableUrl(url);
        expect(logged).not.toContain(secret);
        expect(decoded(logged)).not.toContain(secret);
        expect(decoded(decoded(logged))).not.toContain(secret);
      }),
      { numRuns: 2000, seed: 11 },
    );
  });

  it('masks a token parameter by its decoded name and leaves other URLs as they are', () => {
    expect(loggableUrl('/thirdparty/1.1.1.1?%74oken=abc')).toBe('/thirdparty/1.1.1.1?%74oken=[redacted]');
    expect(loggableUrl('/thirdparty/1.1.1.1?%54OKEN=abc&x=1')).toBe('/thirdparty/1.1.1.1?%54OKEN=[redacted]&x=1');
    expect(loggableUrl('/v1/check?ip=8.8.8.8&format=native')).toBe('/v1/check?ip=8.8.8.8&format=native');
    expect(loggableUrl('/v1/check?ip=2001%3Adb8%3A%3A1')).toBe('/v1/check?ip=2001%3Adb8%3A%3A1');
    expect(loggableUrl('/v1/check?ip=%E0%A4%A')).toBe('/v1/check?ip=%E0%A4%A');
  });
});

it('the access log of a request authenticated by ?%74oken= holds the key id, not the key', async () => {
  const { logger, lines } = captureLogger();
  const h = await harness({ logger });
  const key = await h.key('test');
  const res = await call(h.app, `/thirdparty/8.8.8.8/json?%74oken=${encodeSome(key, [false, true, false], true)}`);
  expect(res.status).toBe(200);
  await h.close();
  expect(lines).toHaveLength(1);
  expect(decoded(lines[0]!)).not.toContain(key.slice(-22));
  expect(JSON.parse(lines[0]!)).toMatchObject({ url: '/thirdparty/8.8.8.8/json?%74oken=[redacted]', key_id: key.slice(9, 19) });
});
