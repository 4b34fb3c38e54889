/**
 * `ipintel serve` and the README flow: `keys create --plan free`, then
 * `serve`, then a lookup with the key once the activation delay has passed,
 * both commands finding the same default store.
 */
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { keysCommand } from '../src/cli/keys.js';
import { serveCommand } from '../src/cli/serve.js';
import { defaultStoreSpec } from '../src/store/open.js';
import { writeSnapshot } from './support/fixtures.js';
import { tempDir } from './support/harness.js';

function io(signal?: AbortSignal) {
  const out = new PassThrough();
  const err = new PassThrough();
  const text = { out: '', err: '' };
  out.on('data', (d) => (text.out += d));
  err.on('data', (d) => (text.err += d));
  return { io: { stdout: out, stderr: err, ...(signal ? { signal } : {}) }, text };
}

describe('default store location', () => {
  it('is $IPINTEL_STORE, else sqlite under $XDG_DATA_HOME, else ~/.local/share', () => {
    expect(defaultStoreSpec({ IPINTEL_STORE: 'redis://h:1' })).toBe('redis://h:1');
    expect(defaultStoreSpec({ XDG_DATA_HOME: '/data' })).toBe('sqlite:/data/ipintel/store.sqlite');
    expect(defaultStoreSpec({})).toMatch(/^sqlite:.*\/\.local\/share\/ipintel\/store\.sqlite$/);
  });
});

describe('ipintel serve', () => {
  const tmp = tempDir();
  const saved = { xdg: process.env['XDG_DATA_HOME'], store: process.env['IPINTEL_STORE'] };
  afterAll(() => {
    for (const [k, v] of [['XDG_DATA_HOME', saved.xdg], ['IPINTEL_STORE', saved.store]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    tmp.cleanup();
  });

  it('--help prints usage with an example; bad flags exit 2', async () => {
    const h = io();
    expect(await serveCommand(['--help'], h.io)).toBe(0);
    expect(h.text.out).toContain('Usage: ipintel serve');
    expect(h.text.out).toContain('curl -H "x-api-key:');
    for (const argv of [['--bogus'], ['--port', 'http'], ['--port', '70000'], ['--activation-delay', 'soon'], ['--log-level', 'loud'], ['extra']]) {
      const e = io();
      expect(await serveCommand(argv, e.io), argv.join(' ')).toBe(2);
      expect(e.text.err).toContain('ipintel serve:');
    }
  });

  it('README flow: keys create, serve, curl after the activation delay', async () => {
    process.env['XDG_DATA_HOME'] = join(tmp.dir, 'xdg');
    delete process.env['IPINTEL_STORE'];
    const created = io();
    expect(await keysCommand(['create', '--plan', 'free'], created.io)).toBe(0);
    const key = created.text.out.trim();

    const stop = new AbortController();
    const s = io(stop.signal);
    const snapshot = writeSnapshot(tmp.dir, 'a');
    const done = serveCommand(['--port', '0', '--snapshot', snapshot, '--activation-delay', '400ms', '--log-level', 'silent'], s.io);
    const end = Date.now() + 10_000;
    while (!/serving on (http:\S+)/.test(s.text.err) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    const url = /serving on (http:\S+)/.exec(s.text.err)![1]!;
    expect(s.text.err).toContain(join(tmp.dir, 'xdg', 'ipintel', 'store.sqlite'));

    const check = () => fetch(`${url}/v1/check?ip=8.8.8.8`, { headers: { 'x-api-key': key } });
    const early = await check();
    if (early.status !== 200) expect(((await early.json()) as { code: string }).code).toBe('key_not_active');
    await new Promise((r) => setTimeout(r, 450));
    const res = await check();
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('1000');
    expect(((await res.json()) as { attribution: string }).attribution).toBe(`${url}/attribution`);

    stop.abort();
    expect(await done).toBe(0);
  });

  it('exits 1 when the port is taken', async () => {
    const { createServer } = await import('node:net');
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const e = io();
    expect(await serveCommand(['--port', String(port), '--store', `sqlite:${join(tmp.dir, 'x.sqlite')}`, '--log-level', 'silent'], e.io)).toBe(1);
    expect(e.text.err).toContain('could not start');
    blocker.close();
  });

  it('exits 1 for an unknown store kind, releasing the port', async () => {
    const e = io();
    expect(await serveCommand(['--port', '0', '--store', 'mongodb://x', '--log-level', 'silent'], e.io)).toBe(1);
    expect(e.text.err).toContain('unknown store');
  });
});
