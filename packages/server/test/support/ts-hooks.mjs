// Module hooks for child processes started by the tests: run the server's
// TypeScript sources directly (TypeScript's transpileModule, type-only
// constructs erased), map `.js` import suffixes to the `.ts` files beside
// them, and resolve @ipintel/core to core's sources as vitest does.
//
// Transpiled output is cached on disk by a hash of the source, so a child
// whose sources are unchanged starts without loading TypeScript at all
// (about 1 s of a 3 s start otherwise; the tests start a dozen children).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CORE = new URL('../../../core/src/', import.meta.url);
const ALIASES = {
  '@ipintel/core': new URL('index.ts', CORE).href,
  '@ipintel/core/writer': new URL('writer.ts', CORE).href,
  '@ipintel/core/portable': new URL('portable.ts', CORE).href,
};
const CACHE = join(tmpdir(), 'ipintel-ts-hooks-cache-v1');

export async function resolve(specifier, context, next) {
  if (Object.hasOwn(ALIASES, specifier)) return { url: ALIASES[specifier], shortCircuit: true };
  if (specifier.endsWith('.js') && (specifier.startsWith('./') || specifier.startsWith('../')) && context.parentURL?.endsWith('.ts')) {
    const tsUrl = new URL(specifier.slice(0, -3) + '.ts', context.parentURL);
    if (existsSync(fileURLToPath(tsUrl))) return { url: tsUrl.href, shortCircuit: true };
  }
  return next(specifier, context);
}

let ts;

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const path = fileURLToPath(url);
  const source = await readFile(path, 'utf8');
  const cached = join(CACHE, `${createHash('sha256').update(path).update('\0').update(source).digest('hex')}.js`);
  if (existsSync(cached)) return { format: 'module', source: readFileSync(cached, 'utf8'), shortCircuit: true };
  ts ??= (await import('typescript')).default;
  const out = ts.transpileModule(source, {
    fileName: path,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true, sourceMap: false },
  });
  try {
    mkdirSync(CACHE, { recursive: true });
    const tmp = `${cached}.${process.pid}.tmp`;
    writeFileSync(tmp, out.outputText);
    renameSync(tmp, cached);
  } catch {
    // no cache: the next child transpiles again
  }
  return { format: 'module', source: out.outputText, shortCircuit: true };
}
