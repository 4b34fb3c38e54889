/**
 * The import scanner of the boundary test: every module specifier a source
 * file names (static import and export ... from, side-effect imports,
 * dynamic import(), require()), whether it is type-only, and the package a
 * specifier belongs to.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface ImportRef {
  readonly specifier: string;
  /** `import type` / `export type`: erased, loads nothing at run time. */
  readonly typeOnly: boolean;
  /** `import(...)`: loaded when that code runs, not when the module loads. */
  readonly dynamic: boolean;
  readonly line: number;
}

const PATTERNS: readonly { re: RegExp; dynamic: boolean }[] = [
  // import x from 'y'; import { a } from 'y'; import type { T } from 'y'; export { a } from 'y'; export * from 'y'
  { re: /^\s*(?:import|export)\s+(type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/gm, dynamic: false },
  // import 'y' (side effects only)
  { re: /^\s*import\s*()['"]([^'"]+)['"]/gm, dynamic: false },
  // import('y'), require('y')
  { re: /\b(?:import|require)\s*\(\s*()['"]([^'"]+)['"]\s*\)/g, dynamic: true },
];

/** Every specifier `text` imports, with its line number. */
export function importsOf(text: string): ImportRef[] {
  const out: ImportRef[] = [];
  for (const { re, dynamic } of PATTERNS) {
    for (const m of text.matchAll(re)) {
      const line = text.slice(0, m.index).split('\n').length;
      out.push({ specifier: m[2]!, typeOnly: m[1] !== undefined && m[1] !== '', dynamic, line });
    }
  }
  return out;
}

/** The package a bare specifier belongs to (`@ipintel/core/writer` -> `@ipintel/core`), or null for relative and `node:` ones. */
export function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/** The .ts/.mts/.js/.mjs files under `dir`, recursively (none under node_modules or dist). */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    if (name === 'node_modules' || name === 'dist') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(m?ts|m?js)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

export const read = (path: string): string => readFileSync(path, 'utf8');
