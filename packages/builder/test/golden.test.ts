/**
 * The fixture snapshot, built from fixtures/feeds exactly as `ipintel build
 * --feeds` builds the world one, answers every golden case with the whole
 * expected object (native and thirdparty), and meets each case's stated
 * expectations independently of the recorded output. The build is
 * deterministic: two builds are byte-identical.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSync, type IpIntel } from '@ipintel/core';
import { buildSnapshot } from '../src/build/build.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const cases = JSON.parse(readFileSync(join(root, 'fixtures/golden/cases.json'), 'utf8')) as {
  now: string;
  cases: { ip: string; what: string; expect: Record<string, unknown> }[];
};
const expected = JSON.parse(readFileSync(join(root, 'fixtures/golden/expected.json'), 'utf8')) as Record<string, { native: unknown; thirdparty: unknown }>;
const dir = mkdtempSync(join(tmpdir(), 'ipintel-golden-'));
const options = { feeds: join(root, 'fixtures/feeds'), buildDate: '2026-08-22T00:00:00.000Z', attributionUrl: 'https://example.test/attribution' };

let intel: IpIntel;
beforeAll(async () => {
  await buildSnapshot({ ...options, out: join(dir, 'a.ipintel') });
  const now = Date.parse(cases.now);
  intel = openSync(join(dir, 'a.ipintel'), { now: () => now });
});

const get = (o: unknown, path: string): unknown => path.split('.').reduce<unknown>((a, k) => (a as Record<string, unknown> | undefined)?.[k], o);

describe('golden responses of the fixture snapshot', () => {
  it('covers every case and nothing else', () => {
    expect(Object.keys(expected).sort()).toEqual(cases.cases.map((c) => c.ip).sort());
  });

  for (const c of cases.cases) {
    it(`${c.ip}: ${c.what}`, () => {
      const native = intel.check(c.ip);
      expect(native).toStrictEqual(expected[c.ip]!.native);
      expect(intel.check(c.ip, { format: 'thirdparty' })).toStrictEqual(expected[c.ip]!.thirdparty);
      for (const [path, want] of Object.entries(c.expect)) expect(get(native, path), path).toEqual(want);
    });
  }

  it('is built deterministically: the same feeds give byte-identical snapshots', async () => {
    await buildSnapshot({ ...options, out: join(dir, 'b.ipintel') });
    expect(readFileSync(join(dir, 'b.ipintel')).equals(readFileSync(join(dir, 'a.ipintel')))).toBe(true);
  });

  it('records every fixture source with its entry count', () => {
    const ids = intel.info.sources.map((s) => s.id);
    for (const id of ['tor-exits', 'aws', 'spamhaus-drop-v4', 'icloud-relay-ipv4', 'crawler-googlebot', 'rpki-vrps', 'dbip-city-lite']) expect(ids).toContain(id);
    expect(intel.info.sources.every((s) => Number.isInteger(s.entries) && s.entries >= 0)).toBe(true);
    expect(intel.info.has_rpki).toBe(true);
  });
});
