/**
 * `explain=1` on /v1/check and /v1/check/batch, over the default snapshot
 * (packages/data/world.ipintel with its sidecar, which the test command
 * builds): the native result carries `explanation` valid against the
 * OpenAPI schema and equal to core's; `0` and absent add nothing; the
 * thirdparty layout ignores it; a bad value is 400 invalid_query; a server
 * whose snapshot has no sidecar answers 503 explain_unavailable, naming
 * core's code but none of the server's files (its detail quoted core's
 * message, `no explain sidecar at /the/server's/folder/...explain`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSnapshotPath, openSync } from '@ipintel/core';
import { writeSnapshot } from './support/fixtures.js';
import { call, expectProblem, harness, tempDir, type Harness } from './support/harness.js';
import { validate } from './support/json-schema.js';

let h: Harness;
let plain: Harness;
let key: string;
let plainKey: string;
let doc: Record<string, unknown>;

beforeAll(async () => {
  h = await harness({ snapshot: defaultSnapshotPath() });
  key = await h.key('test');
  plain = await harness();
  plainKey = await plain.key('test');
  doc = (await call(h.app, '/v1/openapi.json')).json as Record<string, unknown>;
});
afterAll(async () => {
  await h.close();
  await plain.close();
});

const schema = (name: string): Record<string, unknown> => ({ $ref: `#/components/schemas/${name}` });

describe('explain=1', () => {
  it("GET /v1/check: the native result with core's explanation, valid against the OpenAPI schema", async () => {
    const res = await call(h.app, '/v1/check?ip=185.220.101.1&explain=1', { key });
    expect(res.status).toBe(200);
    expect(validate(doc, schema('CheckResult'), res.json)).toEqual([]);
    const core = openSync(defaultSnapshotPath()).check('185.220.101.1', { explain: true });
    expect(res.json.explanation).toEqual(JSON.parse(JSON.stringify(core.explanation)));
    const tor = (res.json.explanation.fields as { field: string; rule: string; sources: { source: string }[] }[]).find((f) => f.field === 'signals.is_tor')!;
    expect(tor).toMatchObject({ rule: 'listed', sources: [{ source: 'tor-exits' }] });
  });

  it('explain=0 or absent adds nothing; format=thirdparty ignores it; a bad value is 400 invalid_query', async () => {
    for (const q of ['', '&explain=0', '&explain=false']) expect((await call(h.app, `/v1/check?ip=8.8.8.8${q}`, { key })).json.explanation).toBeUndefined();
    const tp = await call(h.app, '/v1/check?ip=8.8.8.8&format=thirdparty&explain=1', { key });
    expect(tp.status).toBe(200);
    expect(tp.json.explanation).toBeUndefined();
    expect(tp.json.privacy).toBeDefined();
    expectProblem(await call(h.app, '/v1/check?ip=8.8.8.8&explain=yes', { key }), 400, 'invalid_query');
  });

  it('POST /v1/check/batch?explain=1 explains every answered element, errors stay in place', async () => {
    const res = await call(h.app, '/v1/check/batch?explain=1', { key, body: { ips: ['1.1.1.1', 'nope', '10.0.0.1'] } });
    expect(res.status).toBe(200);
    expect(validate(doc, schema('BatchResponse'), res.json)).toEqual([]);
    const [a, bad, bogon] = res.json.results as { explanation?: { fields: { field: string; rule: string }[] }; error?: unknown }[];
    expect(a!.explanation!.fields.find((f) => f.field === 'signals.is_anycast')!.rule).toBe('anycast-operator');
    expect(bad!.error).toBeDefined();
    expect(bogon!.explanation!.fields.every((f) => f.rule === 'bogon-special')).toBe(true);
  });

  it('a server whose snapshot has no explain sidecar: 503 explain_unavailable, plain lookups unchanged', async () => {
    expect((await call(plain.app, '/v1/check?ip=8.8.8.8', { key: plainKey })).status).toBe(200);
    expectProblem(await call(plain.app, '/v1/check?ip=8.8.8.8&explain=1', { key: plainKey }), 503, 'explain_unavailable');
    expectProblem(await call(plain.app, '/v1/check/batch?explain=1', { key: plainKey, body: { ips: ['8.8.8.8'] } }), 503, 'explain_unavailable');
  });

  it("a snapshot served from a file without its sidecar: the 503's detail names core's code, not the server's path", async () => {
    const tmp = tempDir();
    const fromFile = await harness({ snapshot: writeSnapshot(tmp.dir, 'a'), watch: false });
    try {
      const k = await fromFile.key('test');
      for (const res of [
        await call(fromFile.app, '/v1/check?ip=8.8.8.8&explain=1', { key: k }),
        await call(fromFile.app, '/v1/check/batch?explain=1', { key: k, body: { ips: ['8.8.8.8'] } }),
      ]) {
        expectProblem(res, 503, 'explain_unavailable');
        expect(res.json.detail).toContain('(explain_unavailable)');
        expect(res.json.detail).not.toContain(tmp.dir);
        expect(res.body).not.toContain('.explain');
      }
    } finally {
      await fromFile.close();
      tmp.cleanup();
    }
  });
});
