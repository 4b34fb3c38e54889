import { beforeAll, describe, expect, it, vi } from 'vitest';
import { VERSION } from '../src/version.js';
import { runCaptured } from './io.js';
import { trickyModel, writeSnapshot } from './snapshots.js';

// Both packages fail to load in this file: check, batch and info must not need them.
vi.mock('@ipintel/server', () => {
  throw new Error('server is broken today');
});
vi.mock('@ipintel/builder', () => {
  throw new Error('builder is broken today');
});

let snap: string;
beforeAll(() => {
  snap = writeSnapshot(trickyModel());
});

const run = runCaptured;

describe('ipintel (dispatch, help, version)', () => {
  it('--version prints the package version', async () => {
    const r = await run(['--version']);
    expect(r).toMatchObject({ code: 0, out: `${VERSION}\n` });
  });

  it('no command prints the help on stderr with exit 2; help lists every command', async () => {
    const none = await run([]);
    expect(none.code).toBe(2);
    expect(none.err).toContain('Usage: ipintel <command>');
    const help = await run(['help']);
    expect(help.code).toBe(0);
    for (const c of ['check', 'batch', 'info', 'build', 'serve', 'keys', 'help']) expect(help.out).toMatch(new RegExp(`^  ${c} `, 'm'));
  });

  it.each(['check', 'batch', 'info', 'build', 'serve', 'keys'])('%s --help shows usage, flags and an example', async (cmd) => {
    for (const argv of [[cmd, '--help'], [cmd, '-h'], ['help', cmd]]) {
      const r = await run(argv);
      expect(r.code).toBe(0);
      expect(r.out).toContain(`Usage: ipintel ${cmd}`);
      expect(r.out).toContain('Flags:');
      expect(r.out).toMatch(/Examples:\n {2}ipintel /);
      expect(r.err).toBe('');
    }
  });

  it.each(['check', 'batch', 'info', 'build', 'serve', 'keys'])('%s rejects an unknown flag with exit 2', async (cmd) => {
    const r = await run([cmd, '--frobnicate']);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`ipintel ${cmd}: unknown flag --frobnicate\nRun "ipintel ${cmd} --help" for usage.\n`);
  });

  // One rule set: a flag given twice is an error for every command (serve --port A --port B took B).
  it.each([
    ['check', '1.1.1.1', '--format', 'native', '--format', 'native'],
    ['batch', '--output', 'csv', '--output', 'json'],
    ['info', '--json', '--json'],
    ['build', '--out', 'a', '--out', 'b'],
    ['serve', '--port', '8080', '--port', '8081'],
    ['keys', 'list', '--json', '--json'],
  ])('%s: a flag given twice is a usage error', async (...argv) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^ipintel ${argv[0]}: --\\S+ given more than once\nRun "ipintel ${argv[0]} --help" for usage\\.\n$`));
  });

  it('rejects an unknown command and a bad flag value', async () => {
    expect((await run(['frob'])).code).toBe(2);
    expect((await run(['toString'])).code).toBe(2);
    expect((await run(['help', 'constructor'])).code).toBe(2);
    expect((await run(['--frob'])).err).toContain('unknown flag --frob');
    const bad = await run(['check', '1.1.1.1', '--format', 'xml', '--snapshot', snap]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--format must be one of native, thirdparty');
  });

  it('reports a package that fails to load (exit 5), after checking the flags', async () => {
    const b = await run(['build', '--out', 'x']);
    expect(b.code).toBe(5);
    expect(b.err).toMatch(/^ipintel build: "ipintel build" is unavailable: @ipintel\/builder could not be loaded \(/);
    expect((await run(['serve', '--port', '0'])).err).toMatch(/^ipintel serve: "ipintel serve" is unavailable: @ipintel\/server could not be loaded/);
    expect((await run(['keys', 'list'])).code).toBe(5);
    // Usage errors are found before anything loads.
    expect((await run(['serve', '--port', 'http'])).code).toBe(2);
    expect((await run(['build', '--mirror', 'http://x'])).code).toBe(2);
  });
});

describe('ipintel check', () => {
  it('prints compact JSON when piped, one line per address, in order', async () => {
    const r = await run(['check', '8.8.8.8', '2001:db8::1', '--snapshot', snap]);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toMatchObject({ ip: '8.8.8.8', version: 4, risk: { reasons: ['is_datacenter'] } });
    expect(JSON.parse(lines[1]!)).toMatchObject({ ip: '2001:db8::1', version: 6 });
  });

  it('pretty-prints on a TTY: an object for one address, an array for several', async () => {
    const one = await run(['check', '1.1.1.1', '--snapshot', snap], { stdoutTTY: true });
    expect(one.out.startsWith('{\n  "ip": "1.1.1.1"')).toBe(true);
    const two = await run(['check', '1.1.1.1', '1.2.3.4', '--snapshot', snap], { stdoutTTY: true });
    expect(JSON.parse(two.out)).toHaveLength(2);
    expect(two.out.startsWith('[\n  {')).toBe(true);
    const compact = await run(['check', '1.1.1.1', '--compact', '--snapshot', snap], { stdoutTTY: true });
    expect(compact.out.split('\n')).toHaveLength(2);
  });

  it('answers the thirdparty shape', async () => {
    const r = await run(['check', '8.8.8.8', '--format', 'thirdparty', '--snapshot', snap]);
    expect(JSON.parse(r.out)).toMatchObject({ ip: '8.8.8.8', country: 'RE', org: 'AS64501 Acme "Cloud", Inc.', privacy: { hosting: true } });
  });

  it('exits 1 with a clear message for input that is not an address, keeping its place', async () => {
    const r = await run(['check', '8.8.8.8', '01.2.3.4', '1.1.1.1', '--snapshot', snap]);
    expect(r.code).toBe(1);
    expect(r.err).toBe('ipintel check: "01.2.3.4" is not a valid IP address: ' + JSON.parse(r.out.split('\n')[1]!).error.message.split(': ').slice(1).join(': ') + '\n');
    const rows = r.out.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(rows.map((x) => x.ip)).toEqual(['8.8.8.8', '01.2.3.4', '1.1.1.1']);
    expect(rows[1]).toEqual({ ip: '01.2.3.4', error: { code: 'invalid_ip', message: expect.any(String) } });
  });

  it('needs an address (exit 2) and a snapshot (exit 3)', async () => {
    expect((await run(['check', '--snapshot', snap])).code).toBe(2);
    const r = await run(['check', '1.1.1.1', '--snapshot', '/nonexistent/x.ipintel']);
    expect(r.code).toBe(3);
    expect(r.err).toContain('no snapshot at /nonexistent/x.ipintel');
  });
});

describe('a snapshot without a source for some signals', () => {
  let partial: string;
  beforeAll(() => {
    partial = writeSnapshot({ ...trickyModel(), unavailable: ['tor', 'proxy'] });
  });

  it('check says "unavailable" for those signals and warns once on stderr, whatever the count of addresses', async () => {
    const r = await run(['check', '1.2.3.4', '8.8.8.8', '--compact', '--snapshot', partial]);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n').map((l) => JSON.parse(l) as { evidence: Record<string, string> });
    for (const l of lines) expect(l.evidence).toMatchObject({ tor: 'unavailable', proxy: 'unavailable', vpn: 'inferred' });
    expect(r.err.match(/warning/g)).toHaveLength(1);
    expect(r.err).toContain('no source for tor, proxy');
    expect((await run(['check', '1.2.3.4', '--compact', '--snapshot', snap])).err).toBe('');
  });

  it('info lists them; --json carries them', async () => {
    expect((await run(['info', '--no-counts', '--snapshot', partial])).out).toMatch(/^Missing +no source for tor, proxy/m);
    expect((await run(['info', '--no-counts', '--snapshot', snap])).out).toMatch(/^Missing +none/m);
    expect(JSON.parse((await run(['info', '--json', '--no-counts', '--snapshot', partial])).out).unavailable).toEqual(['tor', 'proxy']);
  });

  it('info --quality prints the shares of public IPv4 per label', async () => {
    const r = await run(['info', '--no-counts', '--quality', '--snapshot', snap]);
    expect(r.code).toBe(0);
    // Public IPv4 is 1/8 and 8/8; 1.2.3.0/24 is tor.
    expect(r.out).toContain(`Quality (public IPv4, address-weighted): ${(2 * 2 ** 24).toLocaleString('en-US')} public addresses`);
    expect(r.out).toMatch(/^ +is_tor +0\.00% +0\.10% +0\.00M +AS15169 Google LLC 0\.00M/m);
    expect(r.out).toContain('below world scale: limits not applied');
  });
});

describe('ipintel info', () => {
  it('shows build date, sources and address counts per signal', async () => {
    const r = await run(['info', '--snapshot', snap]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Built        2026-01-02T00:00:00.000Z');
    expect(r.out).toMatch(/test-geo +Test Geo Ltd +2026-01-01 +- +4 +CC BY 4\.0/);
    expect(r.out).toMatch(/is_tor +256 /);
  });

  it('--json gives the same data, with exact counts from the snapshot', async () => {
    const r = await run(['info', '--json', '--snapshot', snap]);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({ build_date: '2026-01-02T00:00:00.000Z', has_rpki: true, snapshot: { path: snap } });
    expect(j.sources.map((s: { id: string }) => s.id)).toEqual(['test-geo', 'test-tor']);
    const s = j.address_counts.signals;
    // 1.2.3.0/24 is tor+vpn; 8.8.8.0/24 + 1.1.1.1 are datacenter; 1.1.1.1 is a resolver.
    expect(s.is_tor).toEqual({ ipv4_addresses: 256, ipv6_64s: 0 });
    expect(s.is_vpn.ipv4_addresses).toBe(256);
    expect(s.is_public_resolver.ipv4_addresses).toBe(1);
    expect(s.is_datacenter.ipv4_addresses).toBe(257);
    // 2001:db8::/32 is datacenter: 2^32 /64s.
    expect(s.is_datacenter.ipv6_64s).toBe(2 ** 32);
    // Everything outside 1/8 and 8/8 is bogon.
    expect(s['network.is_announced'].ipv4_addresses).toBe(2 * 2 ** 24);
    expect(s['network.is_bogon'].ipv4_addresses).toBe(2 ** 32 - 2 * 2 ** 24);
  });

  it('takes no arguments', async () => {
    expect((await run(['info', 'extra'])).code).toBe(2);
  });
});
