/**
 * SIGINT and SIGTERM while `export` and `build` write their file, sent to a
 * real process (the CLI run from its sources, packages/testkit/hooks/ts-source-hooks.mjs) at
 * a known point of the write: support/signal-at-write.mjs sends it once the
 * temporary file holds its first bytes (export) or is opened (build).
 * Before, the write was not listened to: the signal's default action ended
 * the process and left `PATH.tmp-<pid>` (for the world snapshot, 160 MB of
 * MMDB, 6 GB of CSV) beside the file. Now the temporary file is removed,
 * the file is as it was, and the exit is 130 / 143, as batch's.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folderWithFile, tempDir } from '@ipintel/testkit';
import { trickyModel, writeSnapshot } from './snapshots.js';

const support = (file: string): string => fileURLToPath(new URL(`./support/${file}`, import.meta.url));
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const FEEDS = fileURLToPath(new URL('../../../fixtures/feeds', import.meta.url));

const { dir, cleanup } = tempDir('ipintel-cli-interrupt-');
afterAll(cleanup);
let snap: string;
beforeAll(() => {
  snap = writeSnapshot(trickyModel());
});

/** Runs `ipintel ...args` from the sources, the signal sent mid-write: exit code, the signal that ended it, stderr. */
function runSignalled(signal: 'SIGINT' | 'SIGTERM', args: string[]): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', support('register-source.mjs'), '--import', support('signal-at-write.mjs'), MAIN, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, IPINTEL_TEST_SIGNAL: signal },
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, sig) => resolve({ code, signal: sig, stderr }));
  });
}

const names = (d: string): string[] => readdirSync(d).sort();

describe('a signal while the file is written', () => {
  it.each([
    { signal: 'SIGINT', format: 'mmdb', code: 130 },
    { signal: 'SIGTERM', format: 'csv', code: 143 },
  ] as const)('export --format $format on $signal: no temporary file, the old file byte-identical, exit $code', async ({ signal, format, code }) => {
    const { dir: d, path: out } = folderWithFile(dir, `export-${format}`, `out.${format}`);
    const old = Buffer.from(`the old ${format} file\n`);
    writeFileSync(out, old);
    const r = await runSignalled(signal, ['export', '--snapshot', snap, '--out', out]);
    expect(r.stderr).toBe(`ipintel export: stopped by ${signal} before ${out} was replaced: it was left as it was\n`);
    expect([r.code, r.signal]).toEqual([code, null]);
    expect(names(d)).toEqual([`out.${format}`]);
    expect(readFileSync(out)).toEqual(old);
  }, 60_000);

  it.each([
    { signal: 'SIGINT', code: 130 },
    { signal: 'SIGTERM', code: 143 },
  ] as const)('build on $signal: no temporary file, the last snapshot byte-identical, no sidecar written, exit $code', async ({ signal, code }) => {
    const { dir: d, path: out } = folderWithFile(dir, `build-${signal}`, 'world.ipintel');
    const old = Buffer.from('the last snapshot\n');
    writeFileSync(out, old);
    writeFileSync(`${out}.explain`, 'its sidecar\n');
    const r = await runSignalled(signal, ['build', '--feeds', FEEDS, '--out', out, '--quiet']);
    expect(r.stderr).toBe(`ipintel build: stopped by ${signal} before ${out} was replaced: it was left as it was\n`);
    expect([r.code, r.signal]).toEqual([code, null]);
    expect(names(d)).toEqual(['world.ipintel', 'world.ipintel.explain']);
    expect(readFileSync(out)).toEqual(old);
    expect(readFileSync(`${out}.explain`, 'utf8')).toBe('its sidecar\n');
  }, 120_000);
});
