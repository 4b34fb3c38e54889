/**
 * A self-contained build of the CLI for process-level tests: main.js and
 * batch-worker.js with @ipintel/core bundled in from its sources (the real
 * dist keeps it external and needs core's own dist). Built once per source
 * state into the temp dir and shared by test files (atomic rename).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cliDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const coreSrc = join(cliDir, '..', 'core', 'src');

function hashTree(dir: string, h: ReturnType<typeof createHash>): void {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) hashTree(p, h);
    else h.update(p).update(readFileSync(p));
  }
}

export interface TestBundle {
  readonly dir: string;
  readonly main: string;
  readonly worker: string;
}

export async function ensureBundle(): Promise<TestBundle> {
  const h = createHash('sha256');
  hashTree(join(cliDir, 'src'), h);
  hashTree(coreSrc, h);
  // This file too: a change to the bundle's options (what stays external) makes a new bundle.
  h.update(readFileSync(fileURLToPath(import.meta.url)));
  const dir = join(tmpdir(), `ipintel-cli-bundle-${h.digest('hex').slice(0, 16)}`);
  const bundle = { dir, main: join(dir, 'main.js'), worker: join(dir, 'batch-worker.js') };
  if (existsSync(bundle.main) && existsSync(bundle.worker)) return bundle;
  const tmp = mkdtempSync(join(tmpdir(), 'ipintel-cli-build-'));
  const { build } = await import('tsup');
  await build({
    config: false,
    entry: { main: join(cliDir, 'src/main.ts'), 'batch-worker': join(cliDir, 'src/batch/worker.ts') },
    outDir: tmp,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    tsconfig: join(cliDir, 'tsconfig.json'),
    noExternal: [/^@ipintel\/core/, /^fflate/],
    external: ['@ipintel/builder', '@ipintel/server', '@ipintel/export'],
    banner: { js: '#!/usr/bin/env node' },
    outExtension: () => ({ js: '.js' }),
    silent: true,
    dts: false,
    clean: false,
  });
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another test file won the race
  }
  return bundle;
}
