// Module hooks for child processes started by the tests: run the server's
// TypeScript sources directly (TypeScript's transpileModule, type-only
// constructs erased), map `.js` import suffixes to the `.ts` files beside
// them, and resolve @ipintel/core to core's sources as vitest does.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const CORE = new URL('../../../core/src/', import.meta.url);
const ALIASES = {
  '@ipintel/core': new URL('index.ts', CORE).href,
  '@ipintel/core/writer': new URL('writer.ts', CORE).href,
  '@ipintel/core/portable': new URL('portable.ts', CORE).href,
};

export async function resolve(specifier, context, next) {
  if (Object.hasOwn(ALIASES, specifier)) return { url: ALIASES[specifier], shortCircuit: true };
  if (specifier.endsWith('.js') && (specifier.startsWith('./') || specifier.startsWith('../')) && context.parentURL?.endsWith('.ts')) {
    const tsUrl = new URL(specifier.slice(0, -3) + '.ts', context.parentURL);
    if (existsSync(fileURLToPath(tsUrl))) return { url: tsUrl.href, shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const source = await readFile(fileURLToPath(url), 'utf8');
  const out = ts.transpileModule(source, {
    fileName: fileURLToPath(url),
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true, sourceMap: false },
  });
  return { format: 'module', source: out.outputText, shortCircuit: true };
}

