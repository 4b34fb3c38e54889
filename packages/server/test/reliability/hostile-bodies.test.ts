/**
 * Row 2 of issue 11, and hostile batch bodies in general: whatever JSON a
 * client sends (deeply nested, huge numbers, odd keys), the answer is a 200
 * with per-element errors or a 4xx problem: never a 500, and nothing is logged
 * as an unexpected error.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, captureLogger, expectProblem, harness, type Harness } from '../support/harness.js';

let h: Harness;
let key: string;
const log = captureLogger();
beforeAll(async () => {
  h = await harness({ logger: log.logger, plans: { big: { quota: 1_000_000_000, period: 'day', ratePerSecond: 0 } } });
  key = await h.key('big');
});
afterAll(() => h.close());

const nested = (depth: number, open = '[', close = ']', inner = ''): string => open.repeat(depth) + inner + close.repeat(depth);
const batch = (body: string) => call(h.app, '/v1/check/batch', { key, method: 'POST', body, headers: { 'content-type': 'application/json' } });

it('an ips element nested 5,000 (or 20,000) deep is an invalid element, not a 500', async () => {
  for (const depth of [4_000, 5_000, 20_000]) {
    const res = await batch(`{"ips":["8.8.8.8",${nested(depth)},${nested(depth / 8, '{"a":', '}', '1')}]}`);
    expect(res.status, `depth ${depth}`).toBe(200);
    const [ok, arr, obj] = res.json.results;
    expect(ok.ip).toBe('8.8.8.8');
    expect(arr.error).toEqual({ code: 'invalid_ip', message: 'ips[1] is an array, not a string' });
    expect(arr.ip.length).toBeLessThanOrEqual(65);
    expect(obj.error.code).toBe('invalid_ip');
  }
  expect(log.lines.filter((l) => l.includes('unexpected error'))).toEqual([]);
});

it('a body nested to the size limit is a 400 or an element error', async () => {
  expectProblem(await batch(nested(32_000)), 400, 'invalid_body');
  expectProblem(await batch(`{"ips":[],"a":${nested(32_000)}}`), 400, 'invalid_body');
  const wrapped = await batch(`{"ips":[${nested(32_000)}]}`);
  expect(wrapped.status).toBe(200);
  expect(wrapped.json.results[0].error.code).toBe('invalid_ip');
});

it('any JSON value as an element or as the body answers 200 or 4xx, never 5xx', async () => {
  const deep = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'large', withCrossShrink: true }, fc.jsonValue({ maxDepth: 3 }), fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(fc.string(), tie('value'), { maxKeys: 3 })),
  })).value;
  await fc.assert(
    fc.asyncProperty(fc.array(deep, { maxLength: 8 }), fc.nat({ max: 3 }), async (elements, wrap) => {
      const body = wrap === 0 ? JSON.stringify({ ips: elements }) : wrap === 1 ? JSON.stringify(elements) : wrap === 2 ? JSON.stringify({ ips: elements, format: elements[0] }) : JSON.stringify({ ips: elements.map((e) => JSON.stringify(e) ?? 'null') });
      const res = await batch(body);
      expect(res.status).toBeLessThan(500);
      if (res.status === 200) expect(res.json.results).toHaveLength(elements.length);
      else expect(res.headers['content-type']).toBe('application/problem+json');
    }),
    { numRuns: 300, seed: 2 },
  );
  expect(log.lines.filter((l) => l.includes('unexpected error'))).toEqual([]);
});
