/**
 * `ipintel serve` (moved from the server package with the command): flags,
 * the README flow (keys create, serve, a lookup once the activation delay has
 * passed, both commands finding the same default store), start-up failures,
 * and a clean stop on SIGINT/SIGTERM.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_NOON, tempDir } from '@ipintel/testkit';
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

/** A serve run in-process, stopped by a fake signal; `now` stops its clock there. */
function startServe(argv: string[], now?: number) {
  const c = captureIo(now === undefined ? {} : { now });
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

  it('maps the deployment and limit flags (issue 11 rows 5 and 17)', () => {
    const argv = [
      '--no-rate-limit',
      '--cors-origin', 'https://app.example.com, http://localhost:3000',
      '--trust-proxy', 'loopback,10.0.0.0/8',
      '--headers-timeout', '5s',
      '--request-timeout', '1m',
      '--keep-alive-timeout', '2500ms',
      '--drain-timeout', '3',
      '--store-timeout', '250ms',
      '--max-connections', '64',
      '--max-header-bytes', '8192',
      '--max-headers', '40',
      '--max-body-bytes', '1000',
      '--max-body-before-auth', '0',
    ];
    expect(startOptions(parseArgs(argv, serveCommand.spec), {})).toMatchObject({
      rateLimit: false,
      corsOrigins: ['https://app.example.com', 'http://localhost:3000'],
      trustProxy: ['loopback', '10.0.0.0/8'],
      headersTimeoutMs: 5000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 2500,
      drainTimeoutMs: 3000,
      storeTimeoutMs: 250,
      maxConnections: 64,
      maxHeaderBytes: 8192,
      maxHeaders: 40,
      maxBodyBytes: 1000,
      maxBodyBeforeAuthBytes: 0,
    });
    expect(startOptions(parseArgs(['--trust-proxy', '2'], serveCommand.spec), {}).trustProxy).toBe(2);
    // Left out, a field is not set at all: the server's default applies.
    expect(Object.keys(startOptions(parseArgs([], serveCommand.spec), {})).sort()).toEqual(['host', 'port', 'snapshotPath']);
  });

  it('usage errors exit 2 before anything starts', async () => {
    for (const argv of [
      ['--bogus'],
      ['--port', 'http'],
      ['--port', '70000'],
      ['--activation-delay', 'soon'],
      ['--log-level', 'loud'],
      ['extra'],
      ['--port', '1', '--port', '2'],
      ['--demo-quota', '0'],
      ['--no-rate-limit=yes'],
      ['--headers-timeout', '0'],
      ['--request-timeout', 'later'],
      ['--max-connections', '0'],
      ['--max-headers', '-1'],
      ['--max-body-bytes', '1.5'],
      ['--max-body-before-auth', 'x'],
      ['--cors-origin', 'https://a.example,,https://b.example'],
      ['--trust-proxy', ''],
    ]) {
      const c = captureIo();
      expect(await runCli(['serve', ...argv], c.io), argv.join(' ')).toBe(2);
      expect(c.stderr()).toMatch(/^ipintel serve: .*\nRun "ipintel serve --help" for usage\.\n$/);
    }
  });

  it('a value the server refuses is a usage error naming the flag', async () => {
    const store = `sqlite:${join(dir, 'refused.sqlite')}`;
    for (const [argv, message] of [
      [['--trust-proxy', '10.0.0.0/33'], /^ipintel serve: --trust-proxy: "10\.0\.0\.0\/33" is not an address/],
      [['--cors-origin', 'app.example.com'], /^ipintel serve: --cors-origin: "app\.example\.com" is not an origin/],
      [['--headers-timeout', '40s', '--request-timeout', '30s'], /^ipintel serve: --headers-timeout \(40000\) must not be larger than --request-timeout \(30000\)/],
    ] as const) {
      const c = captureIo();
      expect(await runCli(['serve', '--port', '0', '--store', store, '--log-level', 'silent', ...argv], c.io), argv.join(' ')).toBe(2);
      expect(c.stderr()).toMatch(message);
    }
  });

  it('--help shows the endpoints, every flag and the curl example', async () => {
    const c = captureIo();
    expect(await runCli(['serve', '--help'], c.io)).toBe(0);
    const flags = serveCommand.spec.flags;
    const shown = Object.entries(flags).map(([name, f]) => `--${name}${f.type === 'string' ? ` ${f.value}` : ''}`);
    expect(shown).toContain('--no-rate-limit');
    for (const word of ['Usage: ipintel serve', '/v1/check', 'SIGHUP', 'curl -H "x-api-key:', ...shown]) {
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

  it('the deployment flags reach the running server: no per-second limit, CORS, a trusted proxy, a header limit (issue 11 row 17)', async () => {
    const store = `sqlite:${join(dir, 'deploy.sqlite')}`;
    const created = captureIo();
    expect(await runCli(['keys', 'create', '--plan', 'free', '--store', store], created.io)).toBe(0); // free: 10 per second
    const key = created.stdout().trim();
    const origin = 'https://app.example.com';
    const s = startServe([
      '--port', '0', '--store', store, '--snapshot', writeSnapshot(trickyModel()), '--log-level', 'silent', '--activation-delay', '0',
      '--no-rate-limit', '--cors-origin', origin, '--trust-proxy', 'loopback', '--max-headers', '20',
    ]);
    const url = await s.url();
    // 30 requests at once: over the free plan's 10 per second, all answered.
    const burst = await Promise.all(Array.from({ length: 30 }, () => fetch(`${url}/v1/check?ip=8.8.8.8`, { headers: { 'x-api-key': key, origin } })));
    expect(burst.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(burst[0]!.headers.get('access-control-allow-origin')).toBe(origin);
    const preflight = await fetch(`${url}/v1/check/batch`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    const forwarded = await fetch(`${url}/thirdparty/json?token=${key}`, { headers: { 'x-forwarded-for': '8.8.8.8' } });
    expect(((await forwarded.json()) as { ip: string }).ip).toBe('8.8.8.8');
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`x-extra-${i}`, '1']));
    const tooMany = await fetch(`${url}/healthz`, { headers: many });
    expect(tooMany.status).toBe(431);
    s.stop('SIGTERM');
    expect(await s.done).toBe(0);
  });

  it('--demo-quota serves keyless lookups and the page at /; --no-page turns the page off', async () => {
    expect(startOptions(parseArgs(['--demo-quota', '25', '--no-page'], serveCommand.spec), {})).toMatchObject({ demoQuota: 25, page: false });
    // A stopped clock: the demo quota is per UTC day, and on the real clock midnight between the two lookups would renew it.
    const s = startServe(['--port', '0', '--store', `sqlite:${join(dir, 'demo.sqlite')}`, '--snapshot', writeSnapshot(trickyModel()), '--log-level', 'silent', '--demo-quota', '1'], TEST_NOON);
    const url = await s.url();
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('page/page.js');
    const first = await fetch(`${url}/v1/check?ip=8.8.8.8`);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('1');
    // The server counts by the io clock: stopped at noon UTC, 12 h before its day's quota resets.
    expect(first.headers.get('ratelimit-reset')).toBe('43200');
    expect((await fetch(`${url}/v1/check?ip=8.8.8.8`)).status).toBe(429);
    s.stop('SIGTERM');
    expect(await s.done).toBe(0);
    const off = startServe(['--port', '0', '--store', `sqlite:${join(dir, 'nopage.sqlite')}`, '--snapshot', writeSnapshot(trickyModel()), '--log-level', 'silent', '--no-page']);
    const offUrl = await off.url();
    expect((await fetch(`${offUrl}/`)).status).toBe(404);
    expect((await fetch(`${offUrl}/v1/check?ip=8.8.8.8`)).status).toBe(401);
    off.stop('SIGTERM');
    expect(await off.done).toBe(0);
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

  it('exits 1 for a Redis URL ioredis would refuse or misread, saying what to write, without the password', async () => {
    for (const [store, why] of [
      ['redis://:Zq7-secret/x@127.0.0.1:6379', 'Redis store URL redis://***@127.0.0.1: the password holds an unencoded "/": percent-encode it as %2F'],
      ['redis://127.0.0.1:6379/notanumber', 'Redis store URL redis://127.0.0.1: the path is not a database number'],
    ]) {
      const c = captureIo();
      expect(await runCli(['serve', '--port', '0', '--store', store!, '--log-level', 'silent'], c.io)).toBe(1);
      expect(c.stderr()).toMatch(/^ipintel serve: could not start: /);
      expect(c.stderr()).toContain(why);
      expect(c.stderr()).not.toContain('Zq7-secret');
    }
  });
});
