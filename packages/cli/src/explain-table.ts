/**
 * `ipintel check --explain` for people: one table per address with a row
 * per field and per source the deciding rule read (field, value, source,
 * matched prefix, data date, rule id). The rule ids are explained in
 * docs/data.md ("Precedence rules"); JSON output carries their text too.
 *
 * @module
 */
import type { CheckResult, Explanation } from '@ipintel/core';
import { table } from './text-table.js';

/** A field's value as one short cell. */
function cell(value: unknown): string {
  if (value !== null && typeof value === 'object') {
    const g = value as { country_code?: string | null; region?: string | null; city?: string | null };
    return [g.country_code, g.region, g.city].filter((x) => x !== null && x !== undefined && x !== '').join(', ') || '-';
  }
  return value === null ? 'null' : typeof value === 'string' ? value : JSON.stringify(value);
}

/** The rows of one explanation: a field's first row carries field and value, its further sources get their own rows. */
export function explanationRows(e: Explanation): string[][] {
  const rows: string[][] = [];
  for (const f of e.fields) {
    if (f.sources.length === 0) rows.push([f.field, cell(f.value), '-', '-', '-', f.rule]);
    f.sources.forEach((s, i) => {
      rows.push(i === 0 ? [f.field, cell(f.value), s.source, s.matched, s.data_date ?? '-', f.rule] : ['', '', s.source, s.matched, s.data_date ?? '-', '']);
    });
  }
  return rows;
}

/** The text printed for one explained result. */
export function explanationTable(r: CheckResult): string {
  const head = `${r.ip}: risk ${r.risk.score} (${r.risk.level}); snapshot of ${r.explanation?.build_date ?? '-'}`;
  if (r.explanation === undefined) return `${head}\n`;
  return `${head}\n${table(['field', 'value', 'source', 'prefix', 'date', 'rule'], explanationRows(r.explanation), [])}\n`;
}
