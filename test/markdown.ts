/**
 * Reading the tables of the docs: the first Markdown table under a heading,
 * as rows of trimmed cells (the header and the `|---|` line dropped), and a
 * readable diff between what the docs say and what the code holds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@ipintel/testkit';

/** Splits one table line into cells; `\|` inside a cell is kept as `|`. */
function cells(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).map((c) => c.trim().replaceAll('\\|', '|'));
}

/** The first table after the heading `heading` (exact text after the #s) in docs/<file>. */
export function tableUnder(file: string, heading: string): string[][] {
  const lines = readFileSync(join(REPO_ROOT, 'docs', file), 'utf8').split('\n');
  const at = lines.findIndex((l) => /^#{1,6} /.test(l) && l.replace(/^#+ /, '').trim() === heading);
  if (at < 0) throw new Error(`docs/${file}: no heading "${heading}"`);
  let i = at + 1;
  while (i < lines.length && !lines[i]!.startsWith('|')) {
    if (/^#{1,6} /.test(lines[i]!)) throw new Error(`docs/${file}: no table under "${heading}"`);
    i++;
  }
  const rows: string[][] = [];
  for (; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(cells(lines[i]!));
  if (rows.length < 2 || !/^:?-+:?$/.test(rows[1]![0]!)) throw new Error(`docs/${file}: the table under "${heading}" has no header line`);
  return rows.slice(2);
}

/** Text between the first pair of backticks, or the cell itself. */
export function code(cell: string): string {
  const m = /`([^`]+)`/.exec(cell);
  return m === null ? cell : m[1]!;
}

/**
 * Compares two maps (docs vs code) and returns a diff to print, or '' when
 * they agree: what only the docs have, what only the code has, and what
 * differs.
 */
export function diff(what: string, docs: ReadonlyMap<string, string>, source: ReadonlyMap<string, string>): string {
  const out: string[] = [];
  for (const [k, v] of source) if (!docs.has(k)) out.push(`  + ${k} = ${v}   (in the code, missing from the docs)`);
  for (const [k, v] of docs) if (!source.has(k)) out.push(`  - ${k} = ${v}   (in the docs, not in the code)`);
  for (const [k, v] of docs) if (source.has(k) && source.get(k) !== v) out.push(`  ~ ${k}: docs say ${v}, the code says ${source.get(k)}`);
  return out.length === 0 ? '' : `${what} disagree:\n${out.join('\n')}`;
}

/** A ```sh or ```bash block of a Markdown file. */
export interface ShellSnippet {
  /** `README.md` or `docs/<file>`, relative to the repository. */
  readonly file: string;
  /** 1-based line of the block's first command line. */
  readonly line: number;
  readonly text: string;
}

/** Every ```sh and ```bash block of a Markdown file (path relative to the repository), in order. */
export function shellSnippets(file: string): ShellSnippet[] {
  const text = readFileSync(join(REPO_ROOT, file), 'utf8');
  const out: ShellSnippet[] = [];
  for (const m of text.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```/gm)) {
    out.push({ file, line: text.slice(0, m.index).split('\n').length + 1, text: m[1]! });
  }
  return out;
}
