/**
 * Each package imports only what it is meant to (docs/architecture.md,
 * "Allowed imports"); a forbidden import, in a source file or in a
 * package.json, fails here with the file and line:
 *
 * - core imports none of our packages, and no Node built-in from the
 *   portable entry (packages/core/test/package.test.ts checks the built file too);
 * - builder, server and export import core only, never each other;
 * - the CLI may import core, builder, server, export (and the data package),
 *   but builder, server and export only as types or by dynamic import, so
 *   check, batch and info never load them;
 * - testkit is dev-only: no package's src imports it, and it is only ever a
 *   devDependency;
 * - no file reaches into another package by a relative path;
 * - every third-party import of a src file is a dependency of its package.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@ipintel/testkit';
import { importsOf, packageOf, read, sourceFiles } from './imports.js';

/** Our packages each may import from its src/ (tests may add @ipintel/testkit). */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  '@ipintel/core': [],
  '@ipintel/builder': ['@ipintel/core'],
  '@ipintel/server': ['@ipintel/core'],
  '@ipintel/export': ['@ipintel/core'],
  ipintel: ['@ipintel/core', '@ipintel/builder', '@ipintel/server', '@ipintel/export', '@ipintel/data'],
  '@ipintel/testkit': ['@ipintel/core'],
  '@ipintel/data': [],
};
/**
 * Packages (and entries) the CLI must load lazily (type-only or dynamic
 * imports): `@ipintel/core/writer` loads the snapshot writer and fflate,
 * which check, batch and info never need (importing it took 11-13 ms of every start).
 */
const LAZY_IN_CLI = ['@ipintel/builder', '@ipintel/server', '@ipintel/export', '@ipintel/core/writer'];
const DEV_ONLY = '@ipintel/testkit';
/**
 * Packages a package may list in package.json without importing them: core
 * finds the data package's snapshot file by path (an optional peer, so that
 * open() works without a path once @ipintel/data is installed), but never
 * imports it.
 */
const LOCATES: Readonly<Record<string, readonly string[]>> = { '@ipintel/core': ['@ipintel/data'] };

interface Pkg {
  readonly name: string;
  readonly dir: string;
  readonly deps: Readonly<Record<string, string>>;
  readonly devDeps: Readonly<Record<string, string>>;
}

function packages(root: string): Pkg[] {
  return ['core', 'builder', 'server', 'export', 'cli', 'testkit', 'data'].map((d) => {
    const dir = join(root, 'packages', d);
    const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
    return { name: json.name, dir, deps: json.dependencies ?? {}, devDeps: json.devDependencies ?? {} };
  });
}

const ours = (name: string | null): boolean => name !== null && (name === 'ipintel' || name.startsWith('@ipintel/'));
const BUILTIN = /^node:/;

/** Every violation in the given packages, as `file:line: message`. */
export function violations(root: string, pkgs: readonly Pkg[], readFile: (p: string) => string = read, list: (d: string) => string[] = sourceFiles): string[] {
  const out: string[] = [];
  for (const pkg of pkgs) {
    const allowed = ALLOWED[pkg.name] ?? [];
    const listable = [...allowed, ...(LOCATES[pkg.name] ?? [])];
    // 1. package.json: our packages only as allowed; the test kit only as a devDependency.
    for (const dep of Object.keys(pkg.deps)) {
      if (dep === DEV_ONLY) out.push(`${pkg.name}/package.json: ${DEV_ONLY} is dev-only (devDependencies)`);
      else if (ours(dep) && !listable.includes(dep)) out.push(`${pkg.name}/package.json: may not depend on ${dep}`);
    }
    for (const dep of Object.keys(pkg.devDeps)) if (ours(dep) && dep !== DEV_ONLY && !listable.includes(dep)) out.push(`${pkg.name}/package.json: may not depend on ${dep}`);
    // 2. Source and test files.
    for (const kind of ['src', 'test', 'bench'] as const) {
      for (const file of list(join(pkg.dir, kind))) {
        const where = (line: number): string => `${relative(root, file).split(sep).join('/')}:${line}`;
        for (const ref of importsOf(readFile(file))) {
          const name = packageOf(ref.specifier);
          if (name === null) {
            if (ref.specifier.startsWith('.')) {
              const target = resolve(dirname(file), ref.specifier);
              const inside = target.startsWith(pkg.dir + sep) || (kind === 'bench' && target.startsWith(join(root, 'tools') + sep));
              if (!inside) out.push(`${where(ref.line)}: ${ref.specifier} reaches outside ${pkg.name} (import the package, or @ipintel/testkit)`);
            }
            continue;
          }
          if (name === pkg.name) continue;
          if (name === DEV_ONLY) {
            if (kind === 'src') out.push(`${where(ref.line)}: ${DEV_ONLY} is dev-only; src may not import it`);
            continue;
          }
          if (ours(name)) {
            const lazy = LAZY_IN_CLI.includes(name) || LAZY_IN_CLI.includes(ref.specifier);
            if (!allowed.includes(name)) out.push(`${where(ref.line)}: ${pkg.name} may not import ${name}`);
            else if (kind === 'src' && pkg.name === 'ipintel' && lazy && !ref.typeOnly && !ref.dynamic) {
              out.push(`${where(ref.line)}: the CLI loads ${ref.specifier} only when its command runs: import type, or import() (commands/load.ts)`);
            }
            continue;
          }
          if (kind === 'src' && !BUILTIN.test(ref.specifier) && !Object.hasOwn(pkg.deps, name)) {
            out.push(`${where(ref.line)}: ${name} is not a dependency of ${pkg.name}`);
          }
        }
      }
    }
  }
  return out;
}

/** The files the portable core entry loads (relative imports, followed), and the Node built-ins among their imports. */
function portableBuiltins(root: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const ref of importsOf(read(file))) {
      if (ref.typeOnly) continue;
      if (BUILTIN.test(ref.specifier)) out.push(`${relative(root, file)}:${ref.line}: ${ref.specifier}`);
      if (ref.specifier.startsWith('.')) {
        const ts = resolve(dirname(file), ref.specifier.replace(/\.js$/, '.ts'));
        if (existsSync(ts)) visit(ts);
      }
    }
  };
  visit(join(root, 'packages/core/src/portable.ts'));
  expect(seen.size).toBeGreaterThan(5);
  return out;
}

describe('import boundaries', () => {
  it('every package imports only what it is meant to', () => {
    expect(violations(REPO_ROOT, packages(REPO_ROOT))).toEqual([]);
  });

  it('the portable core entry loads no Node built-in', () => {
    expect(portableBuiltins(REPO_ROOT)).toEqual([]);
  });

  it('finds forbidden imports (the checker itself)', () => {
    const root = '/repo';
    const files: Record<string, string> = {
      '/repo/packages/server/src/a.ts': "import { buildSnapshot } from '@ipintel/builder';\nimport pino from 'pino';",
      '/repo/packages/core/src/b.ts': "export { x } from '../../server/src/x.js';\nconst k = await import('@ipintel/testkit');",
      '/repo/packages/cli/src/c.ts':
        "import type { StartOptions } from '@ipintel/server';\nimport { startServer } from '@ipintel/server';\nconst b = await import('@ipintel/builder');\nimport { bigIntToText } from '@ipintel/core/writer';\nimport type { EncodeOptions } from '@ipintel/core/writer';",
      '/repo/packages/cli/test/d.ts': "import { prng } from '@ipintel/testkit';\nimport { EMPTY } from '../../core/test/helpers.js';",
    };
    const fake: Pkg[] = [
      { name: '@ipintel/server', dir: '/repo/packages/server', deps: { '@ipintel/testkit': '*' }, devDeps: {} },
      { name: '@ipintel/core', dir: '/repo/packages/core', deps: { '@ipintel/server': '*' }, devDeps: {} },
      { name: 'ipintel', dir: '/repo/packages/cli', deps: {}, devDeps: { '@ipintel/testkit': '*' } },
    ];
    const list = (d: string): string[] => Object.keys(files).filter((f) => f.startsWith(`${d}/`));
    expect(violations(root, fake, (p) => files[p]!, list)).toEqual([
      '@ipintel/server/package.json: @ipintel/testkit is dev-only (devDependencies)',
      'packages/server/src/a.ts:1: @ipintel/server may not import @ipintel/builder',
      'packages/server/src/a.ts:2: pino is not a dependency of @ipintel/server',
      '@ipintel/core/package.json: may not depend on @ipintel/server',
      'packages/core/src/b.ts:1: ../../server/src/x.js reaches outside @ipintel/core (import the package, or @ipintel/testkit)',
      'packages/core/src/b.ts:2: @ipintel/testkit is dev-only; src may not import it',
      'packages/cli/src/c.ts:2: the CLI loads @ipintel/server only when its command runs: import type, or import() (commands/load.ts)',
      'packages/cli/src/c.ts:4: the CLI loads @ipintel/core/writer only when its command runs: import type, or import() (commands/load.ts)',
      'packages/cli/test/d.ts:2: ../../core/test/helpers.js reaches outside ipintel (import the package, or @ipintel/testkit)',
    ]);
  });
});
