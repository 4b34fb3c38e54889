// The run's table (markdown), and its place in README.md between
// <!-- reliability:start --> and <!-- reliability:end --> (rows.mjs's table
// goes between <!-- reliability-rows:start --> and its end marker).
import { readFileSync, writeFileSync } from 'node:fs';

const COLUMNS = [
  ['phase', (r) => r.phase],
  ['requests', (r) => r.requests],
  ['problem+json', (r) => r.problem],
  ['5xx', (r) => r.status5xx],
  ['503 store down', (r) => r.storeDown ?? 0],
  ['crashes', (r) => r.crashes],
  ['lost', (r) => r.lost ?? '-'],
  ['double counted', (r) => r.double ?? '-'],
  ['failed in swaps', (r) => r.swapFailures ?? '-'],
  ['RSS MiB before → after', (r) => (r.rssBefore === undefined ? '-' : `${r.rssBefore} → ${r.rssAfter}`)],
  ['notes', (r) => r.notes],
];

const num = (v) => (typeof v === 'number' ? v.toLocaleString('en-US') : String(v));

export function table(rows) {
  const head = `| ${COLUMNS.map(([h]) => h).join(' | ')} |`;
  const rule = `|${COLUMNS.map(([h]) => (h === 'phase' || h === 'notes' ? '---' : '---:')).join('|')}|`;
  return [head, rule, ...rows.map((r) => `| ${COLUMNS.map(([, f]) => num(f(r))).join(' | ')} |`)].join('\n');
}

/** Replaces the text between `<!-- NAME:start -->` and `<!-- NAME:end -->` in the file `readme`; throws when they are missing. */
export function replaceBetween(readme, name, text) {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const s = readFileSync(readme, 'utf8');
  const a = s.indexOf(start);
  const b = s.indexOf(end);
  if (a < 0 || b < a) throw new Error(`${readme} has no ${start} ... ${end} section`);
  writeFileSync(readme, `${s.slice(0, a + start.length)}\n${text}\n${s.slice(b)}`);
}

/** Replaces the run's table in `readme` (between <!-- reliability:start --> and <!-- reliability:end -->). */
export const updateReadme = (readme, text) => replaceBetween(readme, 'reliability', text);
