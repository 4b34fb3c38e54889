#!/usr/bin/env node
// Rebuilds the fixture snapshot from fixtures/feeds and rewrites
// fixtures/golden/expected.json (native and thirdparty result per case).
// Run after a deliberate change of behaviour, then review the diff:
//   pnpm build && node tools/regen-golden.mjs
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSnapshot } from '../packages/builder/dist/index.js';
import { openSync } from '../packages/core/dist/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const cases = JSON.parse(readFileSync(join(root, 'fixtures/golden/cases.json'), 'utf8'));
const out = join(mkdtempSync(join(tmpdir(), 'ipintel-golden-')), 'fixture.ipintel');
await buildSnapshot({ feeds: join(root, 'fixtures/feeds'), out, buildDate: '2026-08-22T00:00:00.000Z', attributionUrl: 'https://example.test/attribution' });
const now = Date.parse(cases.now);
const intel = openSync(out, { now: () => now });
const expected = {};
for (const c of cases.cases) {
  expected[c.ip] = { native: intel.check(c.ip), thirdparty: intel.check(c.ip, { format: 'thirdparty' }) };
}
writeFileSync(join(root, 'fixtures/golden/expected.json'), `${JSON.stringify(expected, null, 2)}\n`);
console.log(`wrote ${Object.keys(expected).length} cases to fixtures/golden/expected.json`);
