// Module hooks for child processes the tests start that must run the
// packages' TypeScript sources, not a build (the server's children, the CLI
// run from its sources): transpiled with TypeScript's transpileModule
// (type-only constructs erased), `.js` import suffixes mapped to the `.ts`
// files beside them, and the @ipintel packages resolved to their sources,
// as vitest does. Registered by packages/server/test/support/register-ts.mjs
// and packages/cli/test/support/register-source.mjs.
//
// Transpiled output is cached on disk by a hash of the path and source, so a
// child whose sources are unchanged starts without loading TypeScript at all
// (about 1 s of a 3 s start otherwise; the tests start a dozen children).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGES = new URL('../../', import.meta.url);
const src = (pkg, file) => new URL(`${pkg}/src/${file}`, PACKAGES).href;
const ALIASES = {
  '@ipintel/core': src('core', 'index.ts'),
  '@ipintel/core/internal': src('core', 'internal.ts'),
  '@ipintel/core/writer': src('core', 'writer.ts'),
  '@ipintel/core/portable': src('core', 'portable.ts'),
  '@ipintel/export': src('export', 'index.ts'),
  '@ipintel/builder': src('builder', 'index.ts'),
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
