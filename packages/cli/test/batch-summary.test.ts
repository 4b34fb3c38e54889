/**
 * `batch --summary`: counts per country, ASN, connection type, signal and
 * risk level, as tables or JSON. The counts are checked against tallies
 * made from check() itself; a property: for any input (addresses, bad
 * lines, comments, CIDR blocks), every dimension sums to the answered rows
 * and answered + invalid = rows. The same with worker threads.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IpIntel } from '@ipintel/core';
import { runCli } from '../src/cli.js';
import { batchHooks } from '../src/commands/batch.js';
import { ensureBundle } from './bundle.js';
import { captureIo, runBatch } from './io.js';
import { prng } from './snapshots.js';
import { withTrickySnapshot } from './batch-fixture.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 40) });

let snap: string;
let intel: IpIntel;
withTrickySnapshot((path, opened) => {
  snap = path;
  intel = opened;
});

const batch = (input: string, args: string[] = []) => runBatch(snap, input, args);

interface Summary {
  rows: number;
  answered: number;
  invalid: number;
  countries: { country_code: string | null; country: string | null; count: number }[];
  asns: { asn: number; as_org: string; count: number }[];
  connection_types: { connection_type: string; count: number }[];
  signals: { signal: string; count: number }[];
  risk_levels: { level: string; count: number }[];
}

const SAMPLE = ['8.8.8.8', '8.8.4.4', '1.1.1.1', '1.2.3.4', '1.9.9.9', '10.0.0.1', '2001:db8::1', '2a00::1', '::ffff:1.2.3.4', 'fe80::1'];

/** The tallies check() gives for the addresses (the oracle). */
function oracle(ips: readonly string[]): Map<string, number> {
  const t = new Map<string, number>();
  const add = (k: string): void => void t.set(k, (t.get(k) ?? 0) + 1);
  for (const ip of ips) {
    const r = intel.check(ip);
    add(`country ${r.geo.country_code}`);
    add(`asn ${r.network.asn}`);
    add(`connection ${r.signals.connection_type}`);
    add(`level ${r.risk.level}`);
    for (const [k, v] of Object.entries(r.signals)) if (v === true) add(`signal ${k}`);
  }
  return t;
}

function tallies(s: Summary): Map<string, number> {
  const t = new Map<string, number>();
  for (const c of s.countries) t.set(`country ${c.country_code}`, c.count);
  for (const a of s.asns) t.set(`asn ${a.asn}`, a.count);
  for (const c of s.connection_types) t.set(`connection ${c.connection_type}`, c.count);
  for (const l of s.risk_levels) t.set(`level ${l.level}`, l.count);
  for (const x of s.signals) if (x.count > 0) t.set(`signal ${x.signal}`, x.count);
  return t;
}

const sum = (xs: readonly { count: number }[]): number => xs.reduce((a, x) => a + x.count, 0);

describe('batch --summary', () => {
  it('--output json: the counts check() gives, sorted by count, every boolean signal listed', async () => {
    const ips = [...SAMPLE, '8.8.8.8', '8.8.8.9', '1.2.3.5'];
    const r = await batch(`${ips.join('\n')}\nnope\n# comment\n`, ['--summary', '--output', 'json']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/1 of 14 rows were not IP addresses/);
    const s = JSON.parse(r.out) as Summary;
    expect(s).toMatchObject({ rows: 14, answered: 13, invalid: 1 });
    expect(tallies(s)).toEqual(oracle(ips));
    expect(s.signals.map((x) => x.signal)).toEqual(Object.entries(intel.check('8.8.8.8').signals).filter(([, v]) => typeof v === 'boolean').map(([k]) => k));
    for (const list of [s.countries, s.asns, s.connection_types, s.risk_levels]) {
      expect(list.map((x) => x.count)).toEqual([...list.map((x) => x.count)].sort((a, b) => b - a));
    }
    expect(s.asns.find((a) => a.asn === 15169)).toMatchObject({ as_org: 'Google LLC' });
    expect(s.countries.find((c) => c.country_code === 'DE')).toMatchObject({ country: 'Germany' });
  });

  it('prints tables by default: a header line, the top entries with shares, "(N more)"', async () => {
    const r = await batch(`${SAMPLE.join('\n')}\n`, ['--summary', '--top', '2']);
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toBe('10 rows: 10 answered, 0 not IP addresses');
    expect(r.out).toMatch(/^country +addresses +share$/m);
    expect(r.out).toMatch(/^\(\d+ more\) +\d+ +\d+\.\d%$/m);
    expect(r.out).toMatch(/^ASN +addresses +share$/m);
    expect(r.out).toMatch(/^AS15169 Google LLC +\d+ +\d+\.\d%$/m);
    expect(r.out).toMatch(/^is_tor +2 +20\.0%$/m); // 1.2.3.4 and ::ffff:1.2.3.4
    expect(r.out).toMatch(/^risk level +addresses +share$/m);
  });

  it('counts CIDR blocks and --grep results like any other rows', async () => {
    const r = await batch('1.2.3.0/30\n', ['--summary', '--output', 'json']);
    const s = JSON.parse(r.out) as Summary;
    expect(s.rows).toBe(4);
    expect(s.signals.find((x) => x.signal === 'is_tor')!.count).toBe(4);
    const g = JSON.parse((await batch('from 8.8.8.8 port 22\nGET / 1.1.1.1 "x"\n', ['--summary', '--grep', '--output', 'json'])).out) as Summary;
    expect(g).toMatchObject({ rows: 2, answered: 2, invalid: 0 });
  });

  it('property: every dimension sums to the answered rows; answered + invalid = rows', async () => {
    const line = fc.oneof(
      fc.constantFrom(...SAMPLE),
      fc.ipV4(),
      fc.constantFrom('nope', '1.2.3', '# comment', '', '1.2.3.0/30', '8.8.8.0/31', '2001:db8::/127'),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 60 }), async (lines) => {
        const r = await batch(`${lines.join('\n')}\n`, ['--summary', '--output', 'json']);
        const s = JSON.parse(r.out) as Summary;
        expect(s.answered + s.invalid).toBe(s.rows);
        for (const list of [s.countries, s.asns, s.connection_types, s.risk_levels]) expect(sum(list)).toBe(s.answered);
        for (const x of s.signals) expect(x.count).toBeLessThanOrEqual(s.answered);
        const counted = lines.filter((l) => l !== '' && !l.startsWith('#'));
        const expanded = counted.reduce((n, l) => n + (l.endsWith('/30') ? 4 : l.endsWith('/31') || l.endsWith('/127') ? 2 : 1), 0);
        expect(s.rows).toBe(expanded);
        expect(r.code).toBe(s.invalid > 0 ? 1 : 0);
      }),
    );
  });

  it('gives the same summary with worker threads', async () => {
    batchHooks.workerUrl = new URL(`file://${(await ensureBundle()).worker}`);
    batchHooks.awaitWorkers = true; // blocks reach the worker however small the input
    batchHooks.blockBytes = 1024;
    const rnd = prng(3);
    const ips = Array.from({ length: 20_000 }, () => SAMPLE[Math.floor(rnd() * SAMPLE.length)]!);
    const file = join(mkdtempSync(join(tmpdir(), 'ipintel-summary-')), 'ips.txt');
    writeFileSync(file, ips.join('\n'));
    const run = async (jobs: string) => {
      const c = captureIo();
      const code = await runCli(['batch', file, '--snapshot', snap, '--summary', '--output', 'json', '--jobs', jobs], c.io);
      return { code, out: c.stdout() };
    };
    const one = await run('1');
    const two = await run('2');
    expect(two.code).toBe(0);
    expect(two.out).toBe(one.out);
    expect(tallies(JSON.parse(one.out) as Summary)).toEqual(oracle(ips));
  });

  it('on SIGINT: prints the counts of the lines read (a cut last line is dropped, not expanded), exit 130', async () => {
    const stdin = new PassThrough();
    let fire: ((s: 'SIGINT' | 'SIGTERM') => void) | undefined;
    const c = captureIo();
    const io = { ...c.io, stdin, onInterrupt: (h: (s: 'SIGINT' | 'SIGTERM') => void) => ((fire = h), () => undefined) };
    const done = runCli(['batch', '-', '--snapshot', snap, '--summary', '--output', 'json'], io);
    // A cut "10.0.0.0/3" would be a usage error if expanded, an error row if answered.
    stdin.write(`${'8.8.8.8\n'.repeat(400)}10.0.0.0/3`);
    await new Promise((r) => setImmediate(r));
    fire!('SIGINT');
    expect(await done).toBe(130);
    const s = JSON.parse(c.stdout()) as Summary;
    expect(s.invalid).toBe(0);
    expect(s.rows).toBeLessThanOrEqual(400);
    expect(sum(s.countries)).toBe(s.rows);
    expect(c.stderr()).toBe(`ipintel batch: stopped by SIGINT after ${s.rows} rows; the output is complete up to there\n`);
  });

  it.each([
    [['--summary', '--output', 'csv'], /--summary prints a table, or JSON with --output json/],
    [['--summary', '--output', 'ndjson'], /--summary prints a table, or JSON with --output json/],
    [['--summary', '--fields', 'ip'], /--fields does not go with it/],
    [['--summary', '--format', 'thirdparty'], /--format does not go with it/],
    [['--top', '3'], /--top goes with --summary/],
    [['--summary', '--top', '0'], /--top must be a whole number 1\.\.1,000,000/],
  ])('usage error: %j', async (args, message) => {
    const r = await batch('8.8.8.8\n', args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.out).toBe('');
  });
});
