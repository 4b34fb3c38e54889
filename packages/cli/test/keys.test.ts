/**
 * `ipintel keys`: create prints the key once, list never shows it, rotate and
 * revoke by id, and the usage rules (moved from the server package with the
 * command).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '@ipintel/testkit';
import { keyId } from '@ipintel/server';
import { runCli } from '../src/cli.js';
import { captureIo } from './io.js';

const { dir, cleanup } = tempDir('ipintel-cli-keys-');
const spec = `sqlite:${join(dir, 'keys.sqlite')}`;
afterAll(cleanup);

async function keys(...argv: string[]) {
  const c = captureIo();
  const code = await runCli(['keys', ...argv], c.io);
  return { code, out: c.stdout(), err: c.stderr() };
}

describe('ipintel keys', () => {
  it('create prints the key once on stdout; list shows it without the secret', async () => {
    const a = await keys('create', '--plan', 'free', '--name', 'my app', '--store', spec);
    expect(a.code).toBe(0);
    const key = a.out.trim();
    expect(key).toMatch(/^ipi_live_[0-9A-Za-z]{32}$/);
    expect(a.err).toContain('not stored');
    const l = await keys('list', '--store', spec);
    expect(l.code).toBe(0);
    expect(l.out).toContain(keyId(key)!);
    expect(l.out).toContain('my app');
    expect(l.out).toContain('0/1000 per day');
    expect(l.out).not.toContain(key);
    const j = await keys('list', '--json', '--store', spec);
    expect(JSON.parse(j.out)[0]).toMatchObject({ id: keyId(key), plan: 'free', state: 'pending', used: 0, quota: 1000 });
    const active = await keys('list', '--json', '--activation-delay', '0', '--store', spec);
    expect(JSON.parse(active.out)[0].state).toBe('active');
  });

  it('a name holding control characters is shown escaped in the table and after create, and kept as it is in --json', async () => {
    const own = `sqlite:${join(dir, 'names.sqlite')}`;
    const name = 'evil\x1b[2J\nsecond line\tcol';
    const a = await keys('create', '--plan', 'free', '--name', name, '--store', own);
    expect(a.code).toBe(0);
    expect(a.err).toContain('(evil\\u001b[2J\\u000asecond line\\u0009col)');
    const l = await keys('list', '--store', own);
    expect(l.out).not.toContain('\x1b');
    expect(l.out).not.toContain('\t');
    expect(l.out.trimEnd().split('\n')).toHaveLength(2);
    expect(l.out).toContain('evil\\u001b[2J\\u000asecond line\\u0009col  free');
    expect(JSON.parse((await keys('list', '--json', '--store', own)).out)[0].name).toBe(name);
  });

  it('rotate and revoke by id; an unknown id fails with exit 1', async () => {
    const c = await keys('create', '--plan', 'pro', '--json', '--store', spec);
    const { id } = JSON.parse(c.out) as { id: string };
    const r = await keys('rotate', id, '--grace', '2h', '--json', '--store', spec);
    expect(r.code).toBe(0);
    const rotated = JSON.parse(r.out) as { id: string; key: string; plan: string };
    expect(rotated.plan).toBe('pro');
    expect(rotated.key).toMatch(/^ipi_live_/);
    const v = await keys('revoke', rotated.id, '--store', spec);
    expect(v.code).toBe(0);
    expect(v.out).toContain(`Revoked key ${rotated.id}`);
    const rows = JSON.parse((await keys('list', '--json', '--store', spec)).out) as { id: string; state: string; replaced_by: string | null }[];
    expect(rows.find((x) => x.id === id)).toMatchObject({ state: 'rotating', replaced_by: rotated.id });
    expect(rows.find((x) => x.id === rotated.id)?.state).toBe('revoked');
    const missing = await keys('revoke', 'nope', '--store', spec);
    expect(missing).toMatchObject({ code: 1, out: '' });
    expect(missing.err).toBe('ipintel keys: no key with id "nope"\n');
  });

  it('usage errors exit 2 with the same message shape as every command', async () => {
    const cases: [string[], RegExp][] = [
      [['create'], /keys create needs --plan/],
      [['create', '--plan', 'gold'], /unknown plan "gold"; plans: free, starter, pro, scale/],
      [['list', '--bogus'], /unknown flag --bogus/],
      [['frobnicate'], /unknown action "frobnicate"/],
      [['revoke'], /keys revoke takes one key id/],
      [['list', 'x'], /keys list takes no arguments/],
      [['rotate', 'a', '--grace', 'soon'], /--grace takes a duration/],
      [['list', '--plan', 'free'], /--plan does not apply to keys list/],
      [['create', '--plan', 'free', '--plan', 'pro'], /--plan given more than once/],
      [[], /missing action/],
    ];
    for (const [argv, message] of cases) {
      const e = await keys(...argv, '--store', spec);
      expect(e.code, argv.join(' ')).toBe(2);
      expect(e.err).toMatch(message);
      expect(e.err).toMatch(/^ipintel keys: .*\nRun "ipintel keys --help" for usage\.\n$/);
    }
  });

  it('--help lists the actions and the flags', async () => {
    const h = await keys('--help');
    expect(h.code).toBe(0);
    expect(h.out).toContain('Usage: ipintel keys');
    for (const word of ['create --plan PLAN', 'list', 'revoke ID', 'rotate ID [--grace D]', '--store SPEC', '--json', 'Examples:']) expect(h.out).toContain(word);
  });
});

describe('ipintel keys rotate: a grace period shorter than the activation delay', () => {
  it('warns that neither key will work in between, with the gap and the way out', async () => {
    const c = await keys('create', '--plan', 'free', '--json', '--store', spec);
    const { id } = JSON.parse(c.out) as { id: string };
    const r = await keys('rotate', id, '--grace', '20s', '--store', spec);
    expect(r.code).toBe(0);
    // The new key works 60 s after its creation, the old one stops 20 s after it: 40 s without a key.
    expect(r.err).toMatch(/warning: .*40 s.* neither/i);
    expect(r.err).toContain('--grace 60s');
    const quiet = await keys('rotate', JSON.parse((await keys('create', '--plan', 'free', '--json', '--store', spec)).out).id, '--grace', '20s', '--activation-delay', '10s', '--store', spec);
    expect(quiet.code).toBe(0);
    expect(quiet.err).not.toContain('warning');
    const cut = await keys('rotate', JSON.parse((await keys('create', '--plan', 'free', '--json', '--store', spec)).out).id, '--grace', '0', '--store', spec);
    expect(cut.err).toMatch(/warning: .*60 s.* neither/i);
  });
});
