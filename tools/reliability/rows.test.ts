/**
 * The map from issue 11's rows to their tests (rows.mjs) stays true: every
 * row has tests, every test it names exists under that title, and the README
 * shows the table it renders.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@ipintel/testkit';
import { expect, it } from 'vitest';
import { GUARANTEES, ROWS, rowsTable } from './rows.mjs';

it('names tests for each of the 17 rows, once each', () => {
  expect(ROWS.map((r) => r.row)).toEqual(Array.from({ length: 17 }, (_, i) => i + 1));
  for (const r of ROWS) expect(r.tests.length, `row ${r.row}`).toBeGreaterThan(0);
});

it('every test it names exists in its file under that title', () => {
  const missing: string[] = [];
  for (const { tests } of [...ROWS, ...GUARANTEES]) {
    for (const [file, title] of tests) {
      const path = join(REPO_ROOT, file);
      const text = existsSync(path) ? readFileSync(path, 'utf8').replaceAll("\\'", "'") : ''; // 'node\'s' as written
      if (!["'", '"', '`'].some((q) => text.includes(`${q}${title}${q}`))) missing.push(`${file}: ${title}`);
    }
  }
  expect(missing).toEqual([]);
});

it('README.md shows the table (regenerate: node tools/reliability/rows.mjs --update-readme)', () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  expect(readme).toContain(`<!-- reliability-rows:start -->\n${rowsTable()}\n<!-- reliability-rows:end -->`);
});
