/**
 * Every shell snippet of README.md and docs/*.md runs as written.
 *
 * Each ```sh / ```bash block runs with bash (`-e -o pipefail`) in a fresh
 * temporary folder laid out like the repository's root for reading (its
 * node_modules, data and fixtures linked, nothing else), with a clean
 * environment (PATH to node and the system tools, HOME in the folder, npm
 * offline so `npx` can only run what the set-up installed), and must exit 0.
 * A block whose first line is `# needs: ...` names what the test cannot
 * give it, from a closed list (NEEDS below, the rule in docs/architecture.md);
 * it is not run, but it is still parsed by bash and held to the rules every
 * snippet keeps: no bare `pnpm` or `ipintel` (neither is on PATH after the
 * set-up: `npx ipintel`, `npx -y pnpm@9.15.9`), and no `$VAR` that the file
 * has not set by then.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@ipintel/testkit';
import { shellSnippets, type ShellSnippet } from './markdown.js';

/** What a snippet may need that this test does not give it. */
const NEEDS = ['a fresh clone', 'network', 'a running server', 'a Redis server', 'minutes'] as const;

const FILES = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const SNIPPETS = FILES.flatMap(shellSnippets);
const name = (s: ShellSnippet): string => `${s.file}:${s.line}`;

/** The needs a snippet declares on its first line, or null. */
function needs(s: ShellSnippet): string[] | null {
  const m = /^# needs: (.+)$/.exec(s.text.split('\n')[0]!);
  // A need may say more in brackets: `# needs: a running server (started here), network`.
  return m === null ? null : m[1]!.replace(/\s*\([^)]*\)/g, '').split(/,\s*/).map((x) => x.trim());
}

/** Command lines without comments: the text after an unquoted `#` is dropped (good enough for these snippets). */
const commands = (s: ShellSnippet): string[] => s.text.split('\n').map((l) => l.replace(/(^|\s)#.*$/, '')).filter((l) => l.trim() !== '');

const base = mkdtempSync(join(tmpdir(), 'ipintel-snippets-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A fresh folder with what the repository root holds for reading, and a clean environment. */
function sandbox(): { cwd: string; env: NodeJS.ProcessEnv } {
  const cwd = mkdtempSync(join(base, 'run-'));
  for (const entry of ['node_modules', 'data', 'fixtures']) symlinkSync(join(REPO_ROOT, entry), join(cwd, entry));
  const home = join(cwd, '.home');
  mkdirSync(home);
  return {
    cwd,
    env: { PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`, HOME: home, LANG: 'C.UTF-8', npm_config_offline: 'true', npm_config_update_notifier: 'false', npm_config_fund: 'false' },
  };
}

describe('the docs have shell snippets to check', () => {
  it('finds them in README.md and docs/', () => {
    expect(SNIPPETS.filter((s) => s.file === 'README.md').length).toBeGreaterThanOrEqual(4);
    expect(new Set(SNIPPETS.map((s) => s.file)).size).toBeGreaterThanOrEqual(3);
  });

  it('the README set-up is two commands: install and run, then the tests (what .ci/run runs)', () => {
    const setup = SNIPPETS.find((s) => s.file === 'README.md')!;
    expect(commands(setup).map((c) => c.trim())).toEqual(['npx -y pnpm@9.15.9 install && npx -y pnpm@9.15.9 start', 'npx -y pnpm@9.15.9 test']);
    const ci = readFileSync(join(REPO_ROOT, '.ci/run'), 'utf8');
    expect(ci).toContain('PNPM="npx -y pnpm@9.15.9"');
    expect(ci).toMatch(/^\$PNPM test$/m);
  });
});

describe.each(SNIPPETS.map((s) => [name(s), s] as const))('snippet %s', (_, s) => {
  it('is valid bash and names only what it may need', () => {
    const r = spawnSync('bash', ['-n'], { input: s.text, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    for (const n of needs(s) ?? []) expect(NEEDS, `"# needs: ${n}" is not one of the documented needs`).toContain(n);
  });

  it('calls ipintel and pnpm through npx (neither is on PATH after the set-up)', () => {
    const bare = commands(s).filter((c) => /(^|[;&|(]|\$\()\s*(pnpm|ipintel)\s/.test(c));
    expect(bare).toEqual([]);
  });

  it('uses no variable its file has not set by then', () => {
    const before = SNIPPETS.filter((x) => x.file === s.file && x.line <= s.line);
    const set = new Set(['HOME', 'PATH', 'PWD']);
    for (const x of before.slice(0, -1)) for (const m of x.text.matchAll(/(?:^|[\s;(])([A-Z_][A-Z0-9_]*)=/g)) set.add(m[1]!);
    const unset: string[] = [];
    for (const line of commands(s)) {
      for (const m of line.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)) if (!set.has(m[1]!)) unset.push(m[1]!);
      for (const m of line.matchAll(/(?:^|[\s;(])([A-Z_][A-Z0-9_]*)=/g)) set.add(m[1]!);
    }
    expect(unset).toEqual([]);
  });

  if (needs(s) === null) {
    it('runs as written in a fresh folder with a clean environment, exit 0', () => {
      const { cwd, env } = sandbox();
      const r = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', s.text], { cwd, env, encoding: 'utf8', timeout: 180_000 });
      expect({ status: r.status, stderr: r.status === 0 ? '' : r.stderr.slice(-2000) }).toEqual({ status: 0, stderr: '' });
    }, 200_000); // beyond the spawn's own 180 s, so a slow snippet fails with its stderr, not vitest's timeout
  }
});
