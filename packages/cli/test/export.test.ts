/**
 * `ipintel export` in-process: the format from --format or the file's
 * extension, --fields with batch's rule (group names), --signals, the
 * summary, and every way of calling it wrong (usage errors, exit 2; a
 * missing snapshot, exit 3; an unwritable path, exit 4).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Reader } from 'maxmind';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSync, type IpIntel } from '@ipintel/core';
import { tempDir } from '@ipintel/testkit';
import { runCli } from '../src/cli.js';
import { captureIo } from './io.js';
import { trickyModel, writeSnapshot } from './snapshots.js';

const { dir, cleanup } = tempDir('ipintel-cli-export-');
let snap: string;
let intel: IpIntel;
beforeAll(() => {
  snap = writeSnapshot(trickyModel());
  intel = openSync(snap);
});
afterAll(cleanup);

async function exportCmd(...args: string[]) {
  const c = captureIo();
  const code = await runCli(['export', '--snapshot', snap, ...args], c.io);
  return { code, out: c.stdout(), err: c.stderr() };
}

describe('ipintel export', () => {
  it('writes an MMDB file (format from the extension) and says what it wrote', async () => {
    const out = join(dir, 'all.mmdb');
    const r = await exportCmd('--out', out);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^wrote .*all\.mmdb: \d+\.\d MB \(MMDB, 24-bit records, [\d,]+ tree nodes\)\n {2}[\d,]+ distinct records over [\d,]+ IPv4 \+ [\d,]+ IPv6 ranges, in \d+\.\d s\n$/);
    const reader = new Reader<Record<string, Record<string, unknown>>>(readFileSync(out));
    expect(reader.get('8.8.4.4')!['network']).toMatchObject({ asn: 15169, as_org: 'Google LLC' });
    // 8.8.8.0/24: the city with a newline, the provider with quotes and a comma.
    const got = reader.get('8.8.8.8')!;
    expect(got['geo']!['city']).toBe(intel.check('8.8.8.8').geo.city);
    expect(got['signals']!['datacenter_provider']).toBe('Acme, "the" cloud');
  });

  it('--fields takes groups and names (the batch rule); --signals keeps only those addresses', async () => {
    const out = join(dir, 'tor.mmdb');
    const r = await exportCmd('--out', out, '--fields', 'geo,signals.is_tor', '--signals', 'is_tor, is_vpn', '--quiet');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe('');
    const reader = new Reader<Record<string, Record<string, unknown>>>(readFileSync(out));
    expect(reader.get('1.2.3.4')).toEqual({ geo: { ...intel.check('1.2.3.4').geo }, signals: { is_tor: true } });
    expect(reader.get('8.8.8.8')).toBeNull();
  });

  it('--format csv (or a .csv name) writes CSV ranges', async () => {
    const out = join(dir, 'ranges.txt');
    const r = await exportCmd('--out', out, '--format', 'csv', '--fields', 'network.asn');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/\(CSV, [\d,]+ rows \(CIDR blocks\)\)/);
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
    expect(lines[0]).toBe('cidr,version,first_ip,last_ip,first_int,last_int,network.asn');
    expect(lines).toContain('8.8.8.0/24,4,8.8.8.0,8.8.8.255,134744064,134744319,64501');
    expect((await exportCmd('--out', join(dir, 'b.csv'), '--quiet')).code).toBe(0);
    expect(readFileSync(join(dir, 'b.csv'), 'utf8')).toMatch(/^cidr,version,/);
  });

  it.each([
    [[], /give --out PATH/],
    [['--out', join(dir, 'x.bin')], /give --format mmdb or --format csv/],
    [['--out', join(dir, 'x.mmdb'), '--format', 'xml'], /--format must be one of mmdb, csv/],
    [['--out', join(dir, 'x.mmdb'), '--fields', 'geo.planet'], /unknown field "geo.planet"; fields: geo.country, .*; groups: geo, network, signals, evidence, risk/],
    [['--out', join(dir, 'x.mmdb'), '--fields', ' , '], /--fields lists no field/],
    [['--out', join(dir, 'x.mmdb'), '--fields', 'network.allocation_age_days'], /unknown field "network.allocation_age_days"/],
    [['--out', join(dir, 'x.mmdb'), '--signals', 'is_evil'], /unknown signal "is_evil"; signals: .*is_tor/],
    [['--out', join(dir, 'x.mmdb'), '--signals', 'connection_type'], /unknown signal "connection_type"/],
    [['--out', join(dir, 'x.mmdb'), 'extra'], /unexpected argument "extra"/],
  ])('usage error (exit 2, nothing written): %j', async (args, message) => {
    const r = await exportCmd(...args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).toMatch(/Run "ipintel export --help" for usage\./);
    expect(existsSync(join(dir, 'x.mmdb'))).toBe(false);
  });

  it('a missing snapshot is exit 3; an unwritable path is exit 4', async () => {
    const c = captureIo();
    expect(await runCli(['export', '--out', join(dir, 'y.mmdb'), '--snapshot', join(dir, 'missing.ipintel')], c.io)).toBe(3);
    const r = await exportCmd('--out', join(dir, 'no', 'such', 'dir', 'y.mmdb'));
    expect(r.code).toBe(4);
    expect(r.err).toBe(`ipintel export: cannot write ${join(dir, 'no', 'such', 'dir', 'y.mmdb')}: ENOENT: no such file or directory\n`);
  });

  it('--out is used as given: a relative path is named as given, and a trailing slash (a folder) on a file is refused, the file kept', async () => {
    // Was resolve()d: the message named the absolute path, and `old.mmdb/` replaced the file old.mmdb.
    const missing = join('no-such-folder-of-ipintel-tests', 'y.mmdb');
    const r = await exportCmd('--out', missing);
    expect(r.code).toBe(4);
    expect(r.err).toBe(`ipintel export: cannot write ${missing}: ENOENT: no such file or directory\n`);
    expect(existsSync('no-such-folder-of-ipintel-tests')).toBe(false);
    const d = join(dir, 'trailing-slash');
    mkdirSync(d);
    const file = join(d, 'old.mmdb');
    writeFileSync(file, 'old');
    const slash = await exportCmd('--out', `${file}/`);
    expect(slash.code).toBe(4);
    expect(slash.err).toBe(`ipintel export: cannot write ${file}/: ENOTDIR: not a directory\n`);
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(readdirSync(d)).toEqual(['old.mmdb']);
  });

  it('an --out that is a directory is exit 4, and leaves the directory as it was and no partial file beside it', async () => {
    const d = join(dir, 'onto-dir');
    const target = join(d, 'a.mmdb');
    mkdirSync(target, { recursive: true });
    const r = await exportCmd('--out', target);
    expect(r.code).toBe(4);
    expect(r.err).toMatch(/^ipintel export: cannot write .*a\.mmdb: (EISDIR|ENOTEMPTY|EEXIST): /);
    expect(readdirSync(d)).toEqual(['a.mmdb']);
    expect(readdirSync(target)).toEqual([]);
  });
});
