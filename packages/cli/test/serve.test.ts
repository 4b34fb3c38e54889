/**
 * `ipintel serve` (moved from the server package with the command): flags,
 * the README flow (keys create, serve, a lookup once the activation delay has
 * passed, both commands finding the same default store), start-up failures,
 * and a clean stop on SIGINT/SIGTERM.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '@ipintel/testkit';
import { parseArgs } from '../src/args.js';
import { runCli } from '../src/cli.js';
import { serveCommand, startOptions } from '../src/commands/serve.js';
import type { StopSignal } from '../src/io.js';
import { captureIo } from './io.js';
import { trickyModel, writeSnapshot } from './snapshots.js';

const { dir, cleanup } = tempDir('ipintel-cli-serve-');
const saved = { xdg: process.env['XDG_DATA_HOME'], store: process.env['IPINTEL_STORE'] };
afterAll(() => {
  for (const [k, v] of [['XDG_DATA_HOME', saved.xdg], ['IPINTEL_STORE', saved.store]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  cleanup();
});

/** A serve run in-process, stopped by a fake signal. */
function startServe(argv: string[]) {
  const c = captureIo();
  let stop: ((s: StopSignal) => void) | undefined;
  const io = { ...c.io, onInterrupt: (h: (s: StopSignal) => void) => ((stop = h), () => undefined) };
  const done = runCli(['serve', ...argv], io);
  const url = async (): Promise<string> => {
    const end = Date.now() + 20_000;
    for (;;) {
      const m = /serving on (http:\S+)/.exec(c.stderr());
      if (m !== null) return m[1]!;
      if (Date.now() > end) throw new Error(`serve did not start: ${c.stderr()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { done, url, stderr: c.stderr, stop: (s: StopSignal = 'SIGINT') => stop!(s) };
}

describe('ipintel serve: flags', () => {
  it('maps every flag to its StartOptions field through one table', () => {
    const args = parseArgs(
      ['--port', '0', '--host', '::1', '--snapshot', 'x.ipintel', '--store', 'sqlite:s', '--activation-delay', '2m', '--base-url', 'https://b', '--log-level', 'warn'],
      serveCommand.spec,
    );
    expect(startOptions(args, {})).toEqual({
      port: 0,
      host: '::1',
      snapshotPath: join(process.cwd(), 'x.ipintel'),
      store: 'sqlite:s',
      activationDelayMs: 120_000,
      baseUrl: 'https://b',
      logLevel: 'warn',
    });
    const defaults = startOptions(parseArgs([], serveCommand.spec), { PORT: '9000' });
    expect(defaults).toMatchObject({ port: 9000, host: '127.0.0.1' });
    expect(defaults.snapshotPath).toMatch(/\.ipintel$/);
  });

  it('usage errors exit 2 before anything starts', async () => {
    for (const argv of [['--bogus'], ['--port', 'http'], ['--port', '70000'], ['--activation-delay', 'soon'], ['--log-level', 'loud'], ['extra'], ['--port', '1', '--port', '2']]) {
      const c = captureIo();
      expect(await runCli(['serve', ...argv], c.io), argv.join(' ')).toBe(2);
      expect(c.stderr()).toMatch(/^ipintel serve: .*\nRun "ipintel serve --help" for usage\.\n$/);
    }
  });

  it('--help shows the endpoints, every flag and the curl example', async () => {
    const c = captureIo();
    expect(await runCli(['serve', '--help'], c.io)).toBe(0);
    for (const word of ['Usage: ipintel serve', '/v1/check', 'SIGHUP', '--port N', '--host ADDR', '--snapshot PATH', '--store SPEC', '--activation-delay D', '--base-url URL', '--log-level LEVEL', 'curl -H "x-api-key:']) {
      expect(c.stdout()).toContain(word);
    }
  });
});

describe('ipintel serve: running', () => {
  it('README flow: keys create, serve, curl after the activation delay; SIGINT stops it with exit 0', async () => {
    process.env['XDG_DATA_HOME'] = join(dir, 'xdg');
    delete process.env['IPINTEL_STORE'];
    const created = captureIo();
    expect(await runCli(['keys', 'create', '--plan', 'free'], created.io)).toBe(0);
    const key = created.stdout().trim();

    const snapshot = writeSnapshot(trickyModel());
    const s = startServe(['--port', '0', '--snapshot', snapshot, '--activation-delay', '400ms', '--log-level', 'silent']);
    const url = await s.url();
    expect(s.stderr()).toContain(join(dir, 'xdg', 'ipintel', 'store.sqlite'));
    const check = () => fetch(`${url}/v1/check?ip=8.8.8.8`, { headers: { 'x-api-key': key } });
    const early = await check();
    if (early.status !== 200) expect(((await early.json()) as { code: string }).code).toBe('key_not_active');
    await new Promise((r) => setTimeout(r, 450));
    const res = await check();
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('1000');
    expect(((await res.json()) as { attribution: string }).attribution).toBe(`${url}/attribution`);

    s.stop('SIGINT');
    expect(await s.done).toBe(0);
    expect(s.stderr()).toContain('ipintel serve: stopping\n');
    await expect(fetch(`${url}/healthz`)).rejects.toThrow(); // closed
  });

  it('SIGTERM stops it too, with exit 0', async () => {
    const s = startServe(['--port', '0', '--store', `sqlite:${join(dir, 't.sqlite')}`, '--snapshot', writeSnapshot(trickyModel()), '--log-level', 'silent']);
    await s.url();
    s.stop('SIGTERM');
    expect(await s.done).toBe(0);
  });

  it('exits 1 when the port is taken, and for an unknown store kind', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const taken = captureIo();
    expect(await runCli(['serve', '--port', String(port), '--store', `sqlite:${join(dir, 'x.sqlite')}`, '--log-level', 'silent'], taken.io)).toBe(1);
    expect(taken.stderr()).toMatch(/^ipintel serve: could not start: /);
    blocker.close();
    const bad = captureIo();
    expect(await runCli(['serve', '--port', '0', '--store', 'mongodb://x', '--log-level', 'silent'], bad.io)).toBe(1);
    expect(bad.stderr()).toContain('unknown store');
  });
});
