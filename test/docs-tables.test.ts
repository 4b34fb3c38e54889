/**
 * The tables in docs/ say what the code does: each is parsed and compared
 * with the constant it documents, and a mismatch fails with a diff (what is
 * missing on either side, what differs). Fix the docs or the code, never
 * this test.
 */
import { describe, expect, it } from 'vitest';
import { SERVE_FLAGS } from '../packages/cli/src/commands/serve.js';
import * as exitCodes from '../packages/cli/src/errors.js';
import { ERROR_CODES } from '../packages/core/src/errors.js';
import { RISK_WEIGHTS } from '../packages/core/src/result/score.js';
import { QUALITY_LIMITS } from '../packages/core/src/quality.js';
import { COLUMNS } from '../packages/core/src/snapshot/format.js';
import { RULES } from '../packages/core/src/rules/ids.js';
import { EVIDENCE_ROLES } from '../packages/builder/src/build/roles.js';
import { PROBLEMS } from '../packages/server/src/http/problem.js';
import { DEFAULT_LIMITS } from '../packages/server/src/http/server-limits.js';
import { DEFAULT_PLANS } from '../packages/server/src/plans.js';
import { exportableFields, NUMBER_TYPES, sampleResult } from '../packages/export/src/index.js';
import { loadSnapshot } from '../packages/core/src/index.js';
import { encodeSnapshot } from '../packages/core/src/writer.js';
import { modelFromPrefixes } from '@ipintel/testkit';
import { code, diff, tableUnder } from './markdown.js';

describe('docs tables match the code', () => {
  it('docs/api.md "Errors": every HTTP problem code with its status (server PROBLEMS)', () => {
    const docs = new Map(tableUnder('api.md', 'Errors').map(([status, c]) => [code(c!), status!]));
    const source = new Map(Object.entries(PROBLEMS).map(([c, [status]]) => [c, String(status)]));
    expect(diff('HTTP problem codes (docs/api.md vs server/src/http/problem.ts)', docs, source)).toBe('');
  });

  it('docs/data.md "Rule ids (explanations)": every precedence rule id with its text (core RULES)', () => {
    const docs = new Map(tableUnder('data.md', 'Rule ids (explanations)').map(([id, text]) => [code(id!), text!]));
    const source = new Map(Object.entries(RULES).map(([id, text]) => [id, text as string]));
    expect(diff('rule ids (docs/data.md vs core/src/rules/ids.ts)', docs, source)).toBe('');
  });

  it("docs/api.md: every IpIntelError code of core (ERROR_CODES)", () => {
    const docs = new Map(tableUnder('api.md', 'Errors of the library (`IpIntelError` of `@ipintel/core`)').map(([c]) => [code(c!), 'documented']));
    const source = new Map(Object.keys(ERROR_CODES).map((c) => [c, 'documented']));
    expect(diff('IpIntelError codes (docs/api.md vs core/src/errors.ts)', docs, source)).toBe('');
  });

  it('docs/cli.md "Exit codes": every EXIT_* constant of the CLI', () => {
    const docs = new Map(tableUnder('cli.md', 'Exit codes').map(([c]) => [c!, 'documented']));
    const values = Object.entries(exitCodes).filter(([k, v]) => k.startsWith('EXIT_') && typeof v === 'number');
    expect(values.length).toBeGreaterThan(5);
    const source = new Map(values.map(([, v]) => [String(v), 'documented']));
    expect(diff('exit codes (docs/cli.md vs cli/src/errors.ts)', docs, source)).toBe('');
  });

  it('docs/cli.md "`ipintel serve`": every serve flag with the StartOptions field it sets (SERVE_FLAGS)', () => {
    const docs = new Map(tableUnder('cli.md', '`ipintel serve`').map(([flag, field]) => [code(flag!).split(' ')[0]!, code(field!)]));
    const source = new Map(SERVE_FLAGS.map((r) => [`--${r.flag}`, r.field as string]));
    expect(diff('serve flags (docs/cli.md vs cli/src/commands/serve.ts)', docs, source)).toBe('');
  });

  it('docs/api.md "Limits": every limit of the standalone server with its default (DEFAULT_LIMITS)', () => {
    const docs = new Map(tableUnder('api.md', 'Limits').map(([option, , def]) => [code(option!), def!]));
    const source = new Map(Object.entries(DEFAULT_LIMITS).map(([option, def]) => [option, String(def)]));
    expect(diff('server limits (docs/api.md vs server/src/http/server-limits.ts)', new Map([...docs].filter(([o]) => source.has(o))), source)).toBe('');
  });

  it('docs/api.md "Plans, quotas and rate limits": every default plan with its quota, period and per-second limit (DEFAULT_PLANS)', () => {
    const period = (cell: string): string => (cell.startsWith('UTC day') ? 'day' : cell.startsWith('calendar month') ? 'month' : cell);
    const docs = new Map(tableUnder('api.md', 'Plans, quotas and rate limits').map(([plan, quota, per, rate]) => [code(plan!), `${quota!.replaceAll(',', '')} per ${period(per!)}, ${rate}/s`]));
    const source = new Map(Object.entries(DEFAULT_PLANS).map(([plan, p]) => [plan, `${p.quota} per ${p.period}, ${p.ratePerSecond}/s`]));
    expect(diff('plans (docs/api.md vs server/src/plans.ts)', docs, source)).toBe('');
  });

  it('docs/scoring.md "Score": the risk weights, in order (RISK_WEIGHTS)', () => {
    const rows = tableUnder('scoring.md', 'Score');
    const docs = new Map(rows.map(([reason, weight], i) => [code(reason!), `${Number(weight!.replace('+', ''))} at #${i + 1}`]));
    const source = new Map(RISK_WEIGHTS.map((w, i) => [w.reason, `${w.weight} at #${i + 1}`]));
    expect(diff('risk weights (docs/scoring.md vs core/src/result/score.ts)', docs, source)).toBe('');
  });

  it('docs/snapshot-format.md "Columns": every column with its element type (COLUMNS)', () => {
    const docs = new Map<string, string>();
    for (const [names, type] of tableUnder('snapshot-format.md', 'Columns')) {
      // A row may document several columns: `geo.region`, `geo.city`.
      for (const m of names!.matchAll(/`([^`]+)`/g)) docs.set(m[1]!, /^(u8|u16|u32|f32)\b/.exec(type!)?.[1] ?? type!);
    }
    const source = new Map<string, string>(Object.entries(COLUMNS));
    expect(diff('snapshot columns (docs/snapshot-format.md vs core/src/snapshot/format.ts)', docs, source)).toBe('');
  });

  it('docs/data.md "Quality limits": every limit of a world-scale build (QUALITY_LIMITS)', () => {
    const docs = new Map(tableUnder('data.md', 'Quality limits').map(([label, limit]) => [code(label!), `${Number(limit!.replace('%', '')) / 100}`]));
    const source = new Map(Object.entries(QUALITY_LIMITS).map(([l, v]) => [l, String(v)]));
    expect(diff('quality limits (docs/data.md vs core/src/quality.ts)', docs, source)).toBe('');
  });

  it('docs/scoring.md: the roles that back each evidence key (EVIDENCE_ROLES)', () => {
    const docs = new Map(tableUnder('scoring.md', 'When a snapshot has no source for a signal: `unavailable`').map(([k, roles]) => [code(k!), roles!]));
    const source = new Map(Object.entries(EVIDENCE_ROLES).map(([k, roles]) => [k, roles.join(', ')]));
    expect(diff('evidence roles (docs/scoring.md vs builder/src/build/roles.ts)', docs, source)).toBe('');
  });

  it('docs/export.md "Keys": every exported field with its MMDB type (exportableFields, NUMBER_TYPES)', () => {
    const sample = sampleResult(loadSnapshot(encodeSnapshot(modelFromPrefixes([], [], 1))));
    const numbers = NUMBER_TYPES as Readonly<Record<string, string>>;
    // Nullable fields are text unless NUMBER_TYPES says they are numbers.
    const typeOf = (name: string, v: unknown): string =>
      numbers[name] ?? (typeof v === 'boolean' ? 'boolean' : Array.isArray(v) ? 'array of utf8_string' : 'utf8_string');
    const source = new Map(exportableFields(sample).map((f) => [f.name, typeOf(f.name, (sample as unknown as Record<string, Record<string, unknown>>)[f.group]![f.key])]));
    expect(source.size).toBeGreaterThan(30);
    const docs = new Map(tableUnder('export.md', 'Keys').map(([name, type]) => [code(name!), type!]));
    expect(diff('exported fields (docs/export.md vs export/src/fields.ts)', docs, source)).toBe('');
  });

  it('reports a disagreement as a readable diff', () => {
    const d = diff('demo', new Map([['a', '1'], ['b', '2']]), new Map([['a', '1'], ['b', '3'], ['c', '4']]));
    expect(d).toBe('demo disagree:\n  + c = 4   (in the code, missing from the docs)\n  ~ b: docs say 2, the code says 3');
  });
});
