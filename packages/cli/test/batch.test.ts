import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { openSync, type IpIntel } from '@ipintel/core';
import { leafOfIPv4 } from '@ipintel/core/internal';
import { onOneUtcDay } from '@ipintel/testkit';
import { allColumns } from '../src/batch/columns.js';
import { WorkerPool } from '../src/batch/pool.js';
import { runCli } from '../src/cli.js';
import { batchHooks } from '../src/commands/batch.js';
import { ensureBundle } from './bundle.js';
import { parseCsv } from './csv.js';
import { captureIo, runBatch } from './io.js';
import { prng, trickyModel, writeDamagedV4Snapshot, writeDamagedV6Snapshot, writeSnapshot } from './snapshots.js';
import { withTrickySnapshot } from './batch-fixture.js';

let snap: string;
let intel: IpIntel;
withTrickySnapshot((path, opened) => {
  snap = path;
  intel = opened;
});

const batch = (input: string | Buffer, args: string[] = [], opts: Omit<Parameters<typeof captureIo>[0], 'stdin'> = {}) => runBatch(snap, input, args, opts);

// Rows carry network.allocation_age_days, which moves at 00:00 UTC, and the batch has no clock option (its worker
// threads read their own clock): a test that compares rows written at two moments (two runs, or a run and check())
// runs that comparison inside onOneUtcDay, which repeats it once if it failed while the UTC day changed.

/** Addresses covering every leaf of the tricky snapshot, both families, the v4 fast path and the general path. */
const SAMPLE = ['8.8.8.8', '8.8.4.4', '1.1.1.1', '1.2.3.4', '1.9.9.9', '10.0.0.1', '0.0.0.0', '255.255.255.255', '2001:db8::1', '2001:DB8:0:0::2', '::ffff:1.2.3.4', '2a00::1', 'fe80::1', '::'];

/** n random lines over a few prefixes (so results vary), deterministic. */
function randomIps(n: number, seed = 7): string[] {
  const rnd = prng(seed);
  const heads = [1, 8, 10, 100, 200];
  return Array.from({ length: n }, () => {
    const h = heads[Math.floor(rnd() * heads.length)]!;
    const b = rnd() < 0.5 ? (h === 8 ? 8 : 2) : Math.floor(rnd() * 256);
    return `${h}.${b}.${Math.floor(rnd() * 4) + (h === 8 ? 7 : 2)}.${Math.floor(rnd() * 256)}`;
  });
}

/** Lines as the batch reads them. */
function encodeLines(ips: readonly string[]): Uint8Array {
  return new TextEncoder().encode(ips.join('\n'));
}

/** A UTC day number (2026-11-20) for tests that pass the day to each block. */
const DAY = Math.floor(Date.parse('2026-11-20T12:00:00.000Z') / 86_400_000);

/** What onTwoThreadsOfOneSpace hands a test, for one output format. */
interface TwoThreads {
  readonly output: 'csv' | 'ndjson';
  readonly space: import('../src/batch/space.js').KernelSpace;
  /** Threads 0 (the main thread: it empties the store, as run.ts does) and 1 of the space. */
  readonly main: import('../src/batch/block.js').BlockProcessor;
  readonly other: import('../src/batch/block.js').BlockProcessor;
  /** A processor's rows of `input` on `day`, as text. */
  readonly rows: (p: import('../src/batch/block.js').BlockProcessor, input: Uint8Array, day: number) => string;
  /** The same from a processor of its own, made now: what the rows must be. */
  readonly fresh: (input: Uint8Array, day: number) => string;
}

/**
 * Runs `test` for CSV and NDJSON on two threads' processors sharing one
 * space, with 512-byte store chunks: small, so that a thread's chunk of one
 * day lies inside what another thread writes the next.
 */
async function onTwoThreadsOfOneSpace(test: (t: TwoThreads) => void): Promise<void> {
  const { BlockProcessor } = await import('../src/batch/block.js');
  const { RowTemplate } = await import('../src/batch/template.js');
  const { rowsSpace } = await import('../src/batch/records.js');
  const { kernelSizing, CHUNK_BYTES } = await import('../src/batch/space.js');
  for (const output of ['csv', 'ndjson'] as const) {
    const template = new RowTemplate({ format: 'native', output });
    const rows = (p: InstanceType<typeof BlockProcessor>, input: Uint8Array, day: number): string => Buffer.from(p.process(input, undefined, day).bytes).toString();
    kernelSizing.chunk = 512;
    try {
      const space = rowsSpace(intel, template, 2);
      const main = new BlockProcessor(intel, template, space, 0);
      const other = new BlockProcessor(intel, template, space, 1);
      test({ output, space, main, other, rows, fresh: (input, day) => rows(new BlockProcessor(intel, template), input, day) });
    } finally {
      kernelSizing.chunk = CHUNK_BYTES;
    }
  }
}

describe('ipintel batch: rows', () => {
  it.each(['native', 'thirdparty'] as const)('writes exactly JSON.stringify(check(ip)) per line, in input order (%s)', async (format) => {
    const ips = [...SAMPLE, ...randomIps(2000)];
    await onOneUtcDay(async () => {
      const r = await batch(`${ips.join('\n')}\n`, ['--format', format]);
      expect(r.code).toBe(0);
      expect(r.err).toBe('');
      expect(r.out).toBe(ips.map((ip) => `${JSON.stringify(intel.check(ip, { format }))}\n`).join(''));
    });
  });

  it('keeps order across many small blocks', async () => {
    const ips = randomIps(5000, 9);
    await onOneUtcDay(async () => {
      delete batchHooks.blockBytes;
      const whole = await batch(ips.join('\n'));
      batchHooks.blockBytes = 37;
      const small = await batch(ips.join('\n'));
      expect(small.out).toBe(whole.out);
      expect(small.out.split('\n').slice(0, -1).map((l) => JSON.parse(l).ip)).toEqual(ips);
    });
  });

  it('skips blank lines and # comments, trims spaces and tabs, accepts CRLF and a leading BOM', async () => {
    const input = '\uFEFF8.8.8.8\r\n\r\n# a comment\n   \t\n  1.1.1.1  \r\n#1.2.3.4\n\t2001:db8::1\t\r\n1.2.3.4';
    const r = await batch(input);
    expect(r.code).toBe(0);
    expect(r.out.trimEnd().split('\n').map((l) => JSON.parse(l).ip)).toEqual(['8.8.8.8', '1.1.1.1', '2001:db8::1', '1.2.3.4']);
  });

  // Issue 11 row 7: lines padded with NUL, ESC, VT (and other characters check() rejects) were answered.
  it('answers a line exactly when `ipintel check` answers it: only space, tab and CR are padding', async () => {
    const pads = ['', ' ', '\t', '\r', '\0', '\x1b', '\v', '\f', '\u00a0', '\ufeff', '\u2028', '\x7f'];
    const cores = ['8.8.8.8', '1.2.3.4', '2001:db8::1', '::ffff:1.1.1.1', '01.2.3.4', 'nope', '1.2.3.4/24'];
    const fc = await import('fast-check');
    const lines = fc.sample(
      fc.tuple(fc.constantFrom(...cores), fc.array(fc.constantFrom(...pads), { maxLength: 2 }), fc.array(fc.constantFrom(...pads), { maxLength: 2 })).map(([c, a, b]) => a.join('') + c + b.join('')),
      { numRuns: 300, seed: 42 },
    );
    for (const bad of ['\x008.8.8.8', '8.8.8.8\x1b', '\v1.2.3.4', '8.8.8.8\u00a0']) lines.push(bad);
    await onOneUtcDay(async () => {
      const viaBatch = (await batch(lines.join('\n'))).out.trimEnd().split('\n').map((l) => JSON.parse(l));
      const c = captureIo();
      await runCli(['check', '--snapshot', snap, '--', ...lines], c.io);
      const viaCheck = c.stdout().trimEnd().split('\n').map((l) => JSON.parse(l));
      expect(viaBatch).toHaveLength(lines.length);
      expect(viaCheck).toHaveLength(lines.length);
      lines.forEach((line, i) => {
        const b = viaBatch[i];
        const k = viaCheck[i];
        expect('error' in b, JSON.stringify(line)).toBe('error' in k);
        if ('error' in b) expect(b.error.code).toBe(k.error.code);
        else expect(b).toEqual(k);
      });
      // The four hand-written lines are padded with characters check() rejects: error rows.
      expect(viaBatch.slice(-4).every((r: { error?: unknown }) => r.error !== undefined)).toBe(true);
    });
  });

  it('reports bad lines as error rows in place, counts them on stderr and exits 1', async () => {
    const input = ['8.8.8.8', '# skip', 'not-an-ip', '', '01.02.03.04', '1.1.1.1', '1.2.3.4/24'].join('\n');
    const r = await batch(input);
    expect(r.code).toBe(1);
    const rows = r.out.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(rows.map((x) => x.ip)).toEqual(['8.8.8.8', 'not-an-ip', '01.02.03.04', '1.1.1.1', '1.2.3.4/24']);
    expect(rows[1]).toEqual({ ip: 'not-an-ip', error: { code: 'invalid_ip', message: expect.stringContaining('"not-an-ip" is not a valid IP address') } });
    expect(rows[3].geo.city).toBe('Mountain View');
    expect(r.err).toMatch(/^ipintel batch: 3 of 5 rows were not IP addresses \(first: line 3: "not-an-ip" is not a valid IP address/);
  });

  it('survives an overlong line: one error row, echo cut short, the run goes on', async () => {
    const r = await batch(`1.1.1.1\n${'9'.repeat(200_000)}\n8.8.8.8\n`);
    expect(r.code).toBe(1);
    const rows = r.out.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(rows).toHaveLength(3);
    expect(rows[1].error.code).toBe('invalid_ip');
    expect(rows[1].ip.length).toBeLessThan(300);
    expect(rows[2].ip).toBe('8.8.8.8');
  });

  it('fails cleanly on a missing file (exit 4) and on a terminal with no input (exit 2)', async () => {
    const c = captureIo();
    expect(await runCli(['batch', '/nonexistent/ips.txt', '--snapshot', snap], c.io)).toBe(4);
    expect(c.stderr()).toBe('ipintel batch: cannot read /nonexistent/ips.txt: no such file\n');
    const t = captureIo({ stdinTTY: true });
    expect(await runCli(['batch', '--snapshot', snap], t.io)).toBe(2);
    expect(t.stderr()).toContain('no input');
  });

  it('rejects a bad --jobs and an unknown --fields name', async () => {
    expect((await batch('1.1.1.1', ['--jobs', '0'])).code).toBe(2);
    const f = await batch('1.1.1.1', ['--fields', 'ip,geo.planet']);
    expect(f.code).toBe(2);
    expect(f.err).toContain('unknown field "geo.planet"');
  });
});

describe('ipintel batch: CSV', () => {
  it('has a header of flattened columns and quotes commas, quotes and newlines', async () => {
    const ips = [...SAMPLE, 'bad,"line"'];
    await onOneUtcDay(async () => {
      const r = await batch(ips.join('\n'), ['--output', 'csv']);
      const rows = parseCsv(r.out);
      expect(rows[0]).toEqual([...allColumns('native')]);
      expect(rows).toHaveLength(ips.length + 1);
      const col = (name: string): number => rows[0]!.indexOf(name);
      const dc = rows[1]!; // 8.8.8.8: the tricky leaf
      expect(dc[col('geo.region')]).toBe('Saint-Denis, "Nord"');
      expect(dc[col('geo.city')]).toBe('Line one\nLine two');
      expect(dc[col('network.as_org')]).toBe('Acme "Cloud", Inc.');
      expect(dc[col('signals.datacenter_provider')]).toBe('Acme, "the" cloud');
      expect(dc[col('signals.relay_provider')]).toBe('');
      expect(dc[col('risk.reasons')]).toBe('is_datacenter');
      expect(rows[3]![col('risk.reasons')]).toBe('is_datacenter;benign_network_kind');
      const bad = rows[ips.length]!;
      expect([bad[col('ip')], bad[col('error.code')], bad[col('geo.city')]]).toEqual(['bad,"line"', 'invalid_ip', '']);
      // Every cell of a good row equals the flattened result.
      for (let i = 0; i < SAMPLE.length; i++) {
        const res = intel.check(SAMPLE[i]!) as unknown as Record<string, Record<string, unknown>>;
        for (const [j, name] of rows[0]!.entries()) {
          const [g, k] = name.split('.');
          const v = k === undefined ? res[g!] : g === 'error' ? undefined : res[g!]![k];
          const want = v === null || v === undefined ? '' : Array.isArray(v) ? v.join(';') : typeof v === 'string' ? v : JSON.stringify(v);
          expect(rows[i + 1]![j], `${SAMPLE[i]} ${name}`).toBe(want);
        }
      }
    });
  });

  it('--fields selects columns (groups expand) and keeps the error columns', async () => {
    const r = await batch('8.8.8.8\nnope\n', ['--output', 'csv', '--fields', 'risk.score,ip,geo']);
    const rows = parseCsv(r.out);
    expect(rows[0]).toEqual(['risk.score', 'ip', 'geo.country', 'geo.country_code', 'geo.region', 'geo.city', 'geo.latitude', 'geo.longitude', 'geo.timezone', 'error.code', 'error.message']);
    expect(rows[1]!.slice(0, 4)).toEqual(['35', '8.8.8.8', 'Réunion', 'RE']);
    expect(rows[2]!.slice(0, 2)).toEqual(['', 'nope']);
    expect(rows[2]![9]).toBe('invalid_ip');
  });

  it('thirdparty CSV has its own columns', async () => {
    const rows = parseCsv((await batch('8.8.8.8\n', ['--output', 'csv', '--format', 'thirdparty'])).out);
    expect(rows[0]).toEqual([...allColumns('thirdparty')]);
    expect(rows[1]!.slice(0, 6)).toEqual(['8.8.8.8', 'Line one\nLine two', 'Saint-Denis, "Nord"', 'RE', '-20.8823,55.4504', 'AS64501 Acme "Cloud", Inc.']);
  });
});

describe('ipintel batch: JSON outputs', () => {
  it('json is one valid array, in order, errors in place', async () => {
    const ips = [...SAMPLE, 'x', ...randomIps(3000, 3)];
    batchHooks.blockBytes = 100;
    await onOneUtcDay(async () => {
      const r = await batch(ips.join('\n'), ['--output', 'json']);
      const arr = JSON.parse(r.out);
      const canonical = (ip: string): string => {
        try {
          return intel.check(ip).ip;
        } catch {
          return ip;
        }
      };
      expect(arr.map((x: { ip: string }) => x.ip)).toEqual(ips.map(canonical));
      expect(arr[0]).toEqual(JSON.parse(JSON.stringify(intel.check('8.8.8.8'))));
      // An input that never goes quiet keeps the plain layout: the NDJSON rows joined by `,\n`, one a line.
      const nd = await batch(ips.join('\n'));
      expect(r.out).toBe(`[\n${nd.out.trimEnd().split('\n').join(',\n')}\n]\n`);
    });
  });

  it('keeps order across staged groups: IPv4 runs longer than a group, broken by IPv6, bad and skipped lines', async () => {
    const rnd = prng(11);
    const v4 = randomIps(3000, 5);
    const lines: string[] = [];
    for (let i = 0; i < v4.length; i++) {
      lines.push(v4[i]!);
      const x = rnd();
      if (x < 0.004) lines.push('2001:db8::7');
      else if (x < 0.008) lines.push('not-an-ip');
      else if (x < 0.012) lines.push('# comment', '');
    }
    const answer = (ip: string): unknown => {
      try {
        return JSON.parse(JSON.stringify(intel.check(ip)));
      } catch (e) {
        return { ip, error: { code: 'invalid_ip', message: (e as Error).message } };
      }
    };
    const rows = lines.filter((l) => l !== '' && !l.startsWith('#'));
    await onOneUtcDay(async () => {
      const json = await batch(lines.join('\n'), ['--output', 'json']);
      expect(JSON.parse(json.out)).toEqual(rows.map(answer));
    });
    await onOneUtcDay(async () => {
      const nd = await batch(lines.join('\n'));
      expect(nd.out.trimEnd().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual(rows.map(answer));
    });
  });

  it('json of no rows is []', async () => {
    expect((await batch('# nothing\n\n', ['--output', 'json'])).out).toBe('[]\n');
    expect((await batch('', ['--output', 'ndjson'])).out).toBe('');
    expect((await batch('', ['--output', 'csv'])).out.split('\n')).toHaveLength(2);
  });

  it('--fields gives flat objects keyed by column name; error rows keep their shape', async () => {
    const r = await batch('1.1.1.1\n2001:db8::1\nbad\n', ['--fields', 'ip,version,risk,signals.is_datacenter,attribution']);
    const rows = r.out.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(rows[0]).toEqual({
      ip: '1.1.1.1', version: 4, 'risk.score': 20, 'risk.level': 'low', 'risk.reasons': ['is_datacenter', 'benign_network_kind'],
      'signals.is_datacenter': true, attribution: 'https://example.test/attribution',
    });
    expect(rows[1]).toMatchObject({ ip: '2001:db8::1', version: 6 });
    expect(rows[2]).toEqual({ ip: 'bad', error: { code: 'invalid_ip', message: expect.any(String) } });
    const tp = await batch('8.8.8.8\n', ['--format', 'thirdparty', '--fields', 'privacy,org,loc']);
    expect(JSON.parse(tp.out)).toEqual({
      'privacy.vpn': false, 'privacy.proxy': false, 'privacy.tor': false, 'privacy.relay': false, 'privacy.hosting': true,
      'privacy.service': 'Acme, "the" cloud', org: 'AS64501 Acme "Cloud", Inc.', loc: '-20.8823,55.4504',
    });
  });
});

describe('ipintel batch: workers and progress', () => {
  it('worker threads give byte-identical output to one thread, in order (tiny blocks, jobs 2 and 3)', async () => {
    batchHooks.workerUrl = new URL(`file://${(await ensureBundle()).worker}`);
    batchHooks.awaitWorkers = true; // blocks reach the workers however small the input
    const lines = [...SAMPLE, ...randomIps(30_000, 11)];
    lines.splice(777, 0, 'garbage', '# c', '');
    const input = lines.join('\r\n');
    for (const output of ['ndjson', 'csv', 'json']) {
      await onOneUtcDay(async () => {
        delete batchHooks.blockBytes;
        const one = await batch(input, ['--output', output, '--jobs', '1']);
        batchHooks.blockBytes = 2048;
        for (const jobs of ['2', '3']) {
          const many = await batch(input, ['--output', output, '--jobs', jobs]);
          expect(many.code).toBe(1);
          expect(many.out === one.out, `${output} jobs ${jobs}`).toBe(true);
          expect(many.err).toBe(one.err);
        }
      });
      delete batchHooks.blockBytes;
    }
  });

  it('IPv6 lines: two jobs (the IPv6 index shared as stored, decoded by each thread) write what one job and a preloaded check() write', async () => {
    batchHooks.workerUrl = new URL(`file://${(await ensureBundle()).worker}`);
    batchHooks.awaitWorkers = true; // blocks reach the workers however small the input
    const preloaded = openSync(snap, { preload: true });
    const rnd = prng(17);
    const hex = (): string => Math.floor(rnd() * 0x10000).toString(16);
    // Inside 2001:db8::/32, elsewhere in 2000::/3, and outside it; the first line is IPv6, so the lazy index is decoded by it.
    const heads = ['2001:db8', '2a00', 'fe80'];
    const lines = Array.from({ length: 20_000 }, () => `${heads[Math.floor(rnd() * 3)]}:${hex()}::${hex()}:${hex()}`);
    const input = lines.join('\n');
    await onOneUtcDay(async () => {
      delete batchHooks.blockBytes;
      const want = lines.map((ip) => `${JSON.stringify(preloaded.check(ip))}\n`).join('');
      const one = await batch(input, ['--jobs', '1']);
      expect(one.code).toBe(0);
      expect(one.out === want).toBe(true);
      batchHooks.blockBytes = 2048;
      const two = await batch(input, ['--jobs', '2']);
      expect(two.code).toBe(0);
      expect(two.out === want).toBe(true);
    });
  });

  it('a snapshot whose IPv6 index is found damaged on the first IPv6 line stops the batch with exit 3, one job or two', async () => {
    batchHooks.workerUrl = new URL(`file://${(await ensureBundle()).worker}`);
    batchHooks.awaitWorkers = true; // blocks reach the workers however small the input
    const badPath = writeDamagedV6Snapshot();
    const input = [...randomIps(3000, 21), '2001:db8::1', ...randomIps(3000, 22)].join('\n');
    for (const jobs of ['1', '2']) {
      batchHooks.blockBytes = 2048;
      const r = await runBatch(badPath, input, ['--jobs', jobs]);
      expect([jobs, r.code]).toEqual([jobs, 3]);
      expect(r.err).toMatch(/snapshot is corrupt: an IPv6 leaf id is out of range/);
    }
    const c = captureIo();
    expect(await runCli(['check', '8.8.8.8', '2001:db8::1', '--snapshot', badPath], c.io)).toBe(3);
    expect(c.stderr()).toMatch(/snapshot is corrupt/);
  });

  it('a snapshot whose IPv4 index breaks an invariant is refused before any row, one job or two (the check may run on the worker)', async () => {
    batchHooks.workerUrl = new URL(`file://${(await ensureBundle()).worker}`);
    const badPath = writeDamagedV4Snapshot();
    const input = randomIps(3000, 23).join('\n');
    const errs: string[] = [];
    // One job; two (on a snapshot this small the main thread takes the check back); two with the check left to the worker.
    for (const [jobs, onWorker] of [['1', false], ['2', false], ['2', true]] as const) {
      batchHooks.indexOnWorker = onWorker;
      const r = await runBatch(badPath, input, ['--jobs', jobs]);
      expect([jobs, onWorker, r.code]).toEqual([jobs, onWorker, 3]);
      expect(r.out).toBe('');
      errs.push(r.err);
    }
    expect(errs[0]).toMatch(/^ipintel batch: snapshot is corrupt: .*v4\.dir[^\n]*\n$/);
    expect(errs[1]).toBe(errs[0]);
    expect(errs[2]).toBe(errs[0]);
    // And a sound snapshot through the worker's check answers as one job does.
    batchHooks.indexOnWorker = true;
    const sound = await runBatch(snap, input, ['--jobs', '2', '--output', 'csv']);
    delete batchHooks.indexOnWorker;
    const one = await runBatch(snap, input, ['--jobs', '1', '--output', 'csv']);
    expect(sound.code).toBe(0);
    expect(sound.out === one.out && sound.out.length > 0).toBe(true);
    expect(() => openSync(badPath)).toThrow(/v4\.dir/);
  });

  it('auto mode switches to workers mid-stream once the input is large (on two cores and more), keeping order', async () => {
    batchHooks.workerUrl = new URL(`file://${(await ensureBundle()).worker}`);
    batchHooks.awaitWorkers = true; // blocks reach the workers however small the input
    const input = randomIps(20_000, 5).join('\n');
    const setups = vi.spyOn(WorkerPool.prototype, 'setup');
    try {
      await onOneUtcDay(async () => {
        delete batchHooks.blockBytes;
        delete batchHooks.autoParallelBytes;
        delete batchHooks.cores;
        const one = await batch(input, ['--jobs', '1', '--output', 'csv']);
        batchHooks.blockBytes = 1024;
        batchHooks.autoParallelBytes = 8192;
        // Auto plans for the machine's cores: on four and on two it goes parallel, on one it stays on one thread.
        for (const [cores, pools] of [[4, 1], [2, 1], [1, 0]] as const) {
          setups.mockClear();
          batchHooks.cores = cores;
          const auto = await batch(input, ['--output', 'csv']);
          expect(auto.out === one.out, `${cores} cores`).toBe(true);
          expect(setups, `${cores} cores`).toHaveBeenCalledTimes(pools);
        }
      });
    } finally {
      setups.mockRestore();
    }
  });

  // Issue 11 row 16: blocks done by workers were counted as 0 bytes (their buffer was transferred first).
  it('adds its error listener to an output that already has as many as its limit (worker threads pipe into process.stdout) without a warning, and restores the limit', async () => {
    const out = new PassThrough();
    out.resume();
    // As node's workers do it: each pipe adds an 'error' listener with the limit lifted, then restores it.
    out.setMaxListeners(Infinity);
    for (let i = 0; i < 12; i++) out.on('error', () => undefined);
    out.setMaxListeners(10);
    const warned = vi.spyOn(process, 'emitWarning');
    try {
      const c = captureIo({ stdin: '1.1.1.1\n8.8.8.8\n' });
      expect(await runCli(['batch', '-', '--snapshot', snap, '--jobs', '1'], { ...c.io, stdout: out })).toBe(0);
      expect(warned.mock.calls.filter((args) => String(args[0]).includes('MaxListeners') || (args[0] as Error).name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      warned.mockRestore();
    }
    expect(out.getMaxListeners()).toBe(10);
    expect(out.listenerCount('error')).toBe(12);
  });

  it('counts the bytes of every block in the progress bar, those done by workers too', async () => {
    batchHooks.workerUrl = new URL(`file://${(await ensureBundle()).worker}`);
    batchHooks.awaitWorkers = true; // blocks reach the workers however small the input
    batchHooks.blockBytes = 2048;
    const dir = mkdtempSync(join(tmpdir(), 'ipintel-progress-'));
    const file = join(dir, 'ips.txt');
    writeFileSync(file, randomIps(20_000, 13).join('\n'));
    const c = captureIo({ stderrTTY: true });
    expect(await runCli(['batch', file, '--snapshot', snap, '--jobs', '2'], c.io)).toBe(0);
    const bars = c.stderr().split('\r').filter((x) => /%/.test(x));
    expect(bars.length).toBeGreaterThan(0);
    // The final bar is drawn after the last block: every input byte counted.
    expect(bars.at(-1)).toMatch(/\[#{24}\] 100\.0% {2}20,000 rows/);
  });

  it('draws a progress bar with rate on a TTY stderr, nothing when piped', async () => {
    const input = randomIps(3000).join('\n');
    const tty = await batch(input, [], { stderrTTY: true });
    expect(tty.err).toMatch(/rows in [0-9.]+ s \([0-9,]+\/s\)\n$/);
    const quiet = await batch(input, ['--no-progress'], { stderrTTY: true });
    expect(quiet.err).toBe('');
    expect((await batch(input)).err).toBe('');
  });
});

describe('ipintel batch: interrupted', () => {
  // Issue 11 row 14 (in-process; process.test.ts sends a real SIGINT through a pipe).
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('on %s: finishes the complete lines read, drops a cut one, closes the JSON array, exits %i', async (signal, exit) => {
    const stdin = new PassThrough();
    let fire: ((s: 'SIGINT' | 'SIGTERM') => void) | undefined;
    let unsubscribed = false;
    const c = captureIo();
    const io = {
      ...c.io,
      stdin,
      onInterrupt: (h: (s: 'SIGINT' | 'SIGTERM') => void) => {
        fire = h;
        return () => void (unsubscribed = true);
      },
    };
    batchHooks.blockBytes = 64;
    const ips = randomIps(400, 17);
    const done = runCli(['batch', '-', '--snapshot', snap, '--output', 'json'], io);
    stdin.write(`${ips.join('\n')}\n8.8.`); // the last line is cut by the interruption
    while (!c.stdout().includes('},')) await new Promise((r) => setTimeout(r, 5));
    fire!(signal);
    expect(await done).toBe(exit);
    const rows = JSON.parse(c.stdout()) as { ip: string }[];
    expect(rows.map((r) => r.ip)).toEqual(ips);
    expect(c.stderr()).toBe(`ipintel batch: stopped by ${signal} after 400 rows; the output is complete up to there\n`);
    expect(unsubscribed).toBe(true);
    expect(stdin.destroyed).toBe(true);
  });

  // A signal latched while the CLI loaded (main.ts) is handed over as the run listens (io.ts processInterrupts).
  it.each([
    { args: ['--output', 'json'], out: '[]\n' },
    { args: ['--output', 'csv', '--fields', 'ip'], out: 'ip,error.code,error.message\n' },
    { args: [], out: '' },
    { args: ['--summary', '--output', 'json'], out: null },
  ])('a signal heard as the run starts to listen: no line is read, the output is whole and empty ($args), exit 143', async ({ args, out }) => {
    const c = captureIo({ stdin: '8.8.8.8\n1.1.1.1\n' });
    const io = { ...c.io, onInterrupt: (h: (s: 'SIGINT' | 'SIGTERM') => void) => (h('SIGTERM'), () => undefined) };
    expect(await runCli(['batch', '-', '--snapshot', snap, ...args], io)).toBe(143);
    if (out !== null) expect(c.stdout()).toBe(out);
    else expect(JSON.parse(c.stdout())).toMatchObject({ rows: 0, answered: 0, invalid: 0, countries: [] });
    expect(c.stderr()).toBe('ipintel batch: stopped by SIGTERM after 0 rows; the output is complete up to there\n');
  });
});

describe('the IPv4 fast path', () => {
  it('accepts exactly the dotted-decimal strings core accepts, and finds the same leaf', async () => {
    const fc = await import('fast-check');
    const { parseIPv4Bytes } = await import('@ipintel/core');
    const enc = new TextEncoder();
    const texts = fc.oneof(
      fc.string({ unit: fc.constantFrom('0', '1', '2', '5', '9', '.', '00', '25', '255', '256'), maxLength: 12 }),
      fc.ipV4(),
      fc.ipV4Extended(),
    );
    fc.assert(
      fc.property(texts, (s) => {
        const a = parseIPv4Bytes(enc.encode(s), 0, s.length);
        let core: ReturnType<IpIntel['check']> | undefined;
        try {
          core = intel.check(s);
        } catch {
          core = undefined;
        }
        if (a < 0) return core === undefined || core.version === 6 || core.ip !== s;
        return core !== undefined && core.version === 4 && core.ip === s && leafOfIPv4(intel, a) === leafOfIPv4(intel, Number(s.split('.').reduce((x, p) => x * 256 + Number(p), 0)));
      }),
      { seed: 42, numRuns: Number(process.env['FC_RUNS'] ?? 5000) },
    );
  });
});

describe('the record-id path of IPv4 lines', () => {
  it('writes the same bytes as check() does for the same addresses written as IPv4-mapped IPv6, for every layout', async () => {
    const { BlockProcessor } = await import('../src/batch/block.js');
    const { RowTemplate } = await import('../src/batch/template.js');
    // `::ffff:a.b.c.d` takes the general path (check()) and answers with the same row as `a.b.c.d`,
    // which takes the record-id path: the two paths must agree byte for byte.
    const ips = [...SAMPLE.filter((ip) => !ip.includes(':')), ...randomIps(5000, 21)];
    const direct = new TextEncoder().encode(ips.join('\n'));
    const mapped = new TextEncoder().encode(ips.map((ip) => `::ffff:${ip}`).join('\n'));
    const layouts = [
      { format: 'native', output: 'ndjson' },
      { format: 'native', output: 'csv' },
      // Geo and network cells written from the records' columns, in another order, between other groups.
      { format: 'native', output: 'csv', fields: ['network.as_org', 'ip', 'geo.city', 'geo.latitude', 'risk.score', 'geo.country', 'network.allocation_age_days', 'network.allocation_date', 'geo.timezone'] },
      { format: 'thirdparty', output: 'json' },
      { format: 'thirdparty', output: 'csv', fields: ['org', 'ip', 'timezone', 'privacy.service'] },
      { format: 'native', output: 'ndjson', fields: ['risk.score', 'geo.city', 'version', 'network.asn', 'ip'] },
    ] as const;
    // The record-id path reads the day from Date.now(), check() from core's clock: one comparison spans both.
    await onOneUtcDay(() => {
      for (const layout of layouts) {
        const fast = new BlockProcessor(intel, new RowTemplate(layout)).process(direct);
        const general = new BlockProcessor(intel, new RowTemplate(layout)).process(mapped);
        expect(Buffer.from(fast.bytes).toString(), JSON.stringify(layout)).toBe(Buffer.from(general.bytes).toString());
        expect(fast.rows).toBe(ips.length);
      }
    });
  });

  it('writes the same bytes when the rendered runs outgrow the store reserved for them (the store grows past it)', async () => {
    const { BlockProcessor } = await import('../src/batch/block.js');
    const { RowTemplate } = await import('../src/batch/template.js');
    const { kernelSizing, STORE_BYTES } = await import('../src/batch/space.js');
    const input = new TextEncoder().encode(randomIps(5000, 23).join('\n'));
    await onOneUtcDay(() => {
      for (const layout of [{ format: 'native', output: 'ndjson' }, { format: 'native', output: 'csv' }] as const) {
        const reserved = new BlockProcessor(intel, new RowTemplate(layout)).process(input);
        kernelSizing.store = 256; // a few runs: the rest of the block grows the kernel's memory again and again
        try {
          const small = new BlockProcessor(intel, new RowTemplate(layout)).process(input);
          expect(Buffer.from(small.bytes).toString(), layout.output).toBe(Buffer.from(reserved.bytes).toString());
        } finally {
          kernelSizing.store = STORE_BYTES;
        }
      }
    });
  });

  it('writes the same bytes whatever room the kernel has (pieces of a block, rows over several calls, a row longer than the room, small store chunks, output regions outgrown)', async () => {
    const { BlockProcessor } = await import('../src/batch/block.js');
    const { RowTemplate } = await import('../src/batch/template.js');
    const { kernelSizing } = await import('../src/batch/space.js');
    // Short lines, padded ones, comments, IPv6, a bad line and one longer than any small piece.
    const lines = [...randomIps(3000, 31), ' 8.8.8.8 ', '# x', '2001:db8::1', 'nope', `${' '.repeat(300)}1.2.3.4`, 'x'.repeat(500), '1.1.1.1'];
    const input = new TextEncoder().encode(lines.join('\n'));
    const sizes = { ...kernelSizing };
    await onOneUtcDay(() => {
      for (const layout of [{ format: 'native', output: 'csv' }, { format: 'native', output: 'json' }] as const) {
        const roomy = new BlockProcessor(intel, new RowTemplate(layout)).process(input);
        const tight = [
          { input: 64 },
          { sink: 1000 },
          { sink: 64 },
          { input: 100, sink: 200 },
          { chunk: 64 },
          { chunk: 300, store: 1000 },
          { out: 100_000 },
          { out: 64, chunk: 128, sink: 100 },
        ];
        for (const t of tight) {
          Object.assign(kernelSizing, t);
          try {
            const p = new BlockProcessor(intel, new RowTemplate(layout));
            // Into an output region of the kernel's memory (which small ones outgrow), and into a buffer of its own.
            for (const region of [0, -1]) {
              const out = p.process(input, undefined, undefined, region);
              const label = `${layout.output} ${JSON.stringify(t)} region ${region}`;
              expect(Buffer.from(out.bytes).toString(), label).toBe(Buffer.from(roomy.bytes).toString());
              expect({ ...out, bytes: 0, region: 0 }, label).toEqual({ ...roomy, bytes: 0, region: 0 });
              if (region >= 0) expect(out.region === region, label).toBe(out.bytes.length <= kernelSizing.out);
            }
          } finally {
            Object.assign(kernelSizing, sizes);
          }
        }
      }
    });
  });

  it('drops the cached rows that hold a network when the UTC day changes (allocation_age_days), and only then', async () => {
    const { BlockProcessor } = await import('../src/batch/block.js');
    const { RowTemplate } = await import('../src/batch/template.js');
    const ips = new TextEncoder().encode([...SAMPLE.filter((ip) => !ip.includes(':')), ...randomIps(3000, 29)].join('\n'));
    const layouts = [
      { format: 'native', output: 'csv' },
      { format: 'native', output: 'ndjson' },
      { format: 'native', output: 'csv', fields: ['ip', 'network.allocation_age_days', 'geo.city', 'signals.is_tor'] },
    ] as const;
    const day = Date.parse('2026-11-23T23:59:00.000Z');
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      for (const layout of layouts) {
        vi.setSystemTime(day);
        const kept = new BlockProcessor(intel, new RowTemplate(layout));
        const first = Buffer.from(kept.process(ips).bytes).toString();
        const again = Buffer.from(kept.process(ips).bytes).toString();
        expect(again).toBe(first);
        vi.setSystemTime(day + 120_000);
        const next = Buffer.from(kept.process(ips).bytes).toString();
        const fresh = Buffer.from(new BlockProcessor(intel, new RowTemplate(layout)).process(ips).bytes).toString();
        expect(next, JSON.stringify(layout)).toBe(fresh);
        // The network cells and values of IPv4 rows take the day from the batch's own clock (faked here).
        expect(next).not.toBe(first);
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('empties the store of rendered runs when the UTC day changes: a stream over many days writes its bytes anew, and each thread leaves the chunk it had', async () => {
    const small = encodeLines(randomIps(300, 51));
    const large = encodeLines([...SAMPLE.filter((ip) => !ip.includes(':')), ...randomIps(6000, 53)]);
    await onTwoThreadsOfOneSpace(({ output, space, main, other, rows, fresh }) => {
      const top = (): number => Atomics.load(new Int32Array(space.memory.buffer, space.layout.storeTopAt, 1), 0);
      const tops: number[] = [];
      for (let day = DAY; day < DAY + 6; day++) {
        // As the run does: the main thread empties the store while no block is in hand, then the threads write.
        main.resetDay(day);
        other.process(small, undefined, day);
        main.process(large, undefined, day);
        other.process(small, undefined, day);
        // Read from the store again (every run now cached): what a thread still writing into a chunk it had
        // the day before would have overwritten shows here.
        expect(rows(main, large, day), `${output} day ${day}`).toBe(fresh(large, day));
        expect(rows(other, small, day), `${output} day ${day}`).toBe(fresh(small, day));
        tops.push(top());
      }
      // The same rows each day fill the store to about the same place (chunks are claimed in another order), not further each day.
      const base = space.layout.storeBase;
      const used = tops.map((t) => t - base);
      expect(Math.max(...used), `${output}: ${used.join(', ')}`).toBeLessThan(1.5 * used[0]!);
    });
  });

  it('empties the store again when the clock steps back across midnight (days D, D+1, D, D+1): no thread keeps a chunk of a store emptied since', async () => {
    const few = encodeLines(['1.1.1.1', '10.0.0.1', '1.2.3.4']);
    const many = encodeLines([...SAMPLE.filter((ip) => !ip.includes(':')), ...randomIps(6000, 57)]);
    const d = DAY;
    await onTwoThreadsOfOneSpace(({ output, main, other, rows, fresh }) => {
      main.resetDay(d);
      other.process(encodeLines(['8.8.8.8']), undefined, d); // thread 1 claims a chunk on day D
      main.process(many, undefined, d);
      main.resetDay(d + 1);
      main.process(many, undefined, d + 1); // thread 1 has no block on D+1
      main.resetDay(d); // the clock went back: day D again
      other.process(few, undefined, d);
      main.process(many, undefined, d);
      expect(rows(other, few, d), output).toBe(fresh(few, d));
      expect(rows(main, many, d), output).toBe(fresh(many, d));
      main.resetDay(d + 1);
      expect(rows(main, many, d + 1), output).toBe(fresh(many, d + 1));
      expect(rows(other, few, d + 1), output).toBe(fresh(few, d + 1));
    });
  });

  it('on two threads, rows of blocks handed out after midnight UTC carry the new day, and no row after them the old one', async () => {
    const { BlockProcessor } = await import('../src/batch/block.js');
    const { RowTemplate } = await import('../src/batch/template.js');
    const { rowsSpace } = await import('../src/batch/records.js');
    const { runBatch: run } = await import('../src/batch/run.js');
    const render = { format: 'native', output: 'csv', fields: ['ip', 'network.allocation_age_days', 'network.as_org', 'geo.country'] } as const;
    const template = new RowTemplate(render);
    const space = rowsSpace(intel, template, 2);
    const day = Date.parse('2026-11-23T23:59:58.000Z');
    const ips = [...randomIps(4000, 41), ...randomIps(4000, 43)];
    // Each address's row on the day before midnight and on the day after, from a processor of its own.
    const rowsOn = (d: number): string[] => {
      const text = Buffer.from(new BlockProcessor(intel, template).process(new TextEncoder().encode(ips.join('\n')), undefined, Math.floor(d / 86_400_000)).bytes).toString();
      return text.split('\n').slice(0, -1);
    };
    const [old, next] = [rowsOn(day), rowsOn(day + 4000)];
    expect(old).not.toEqual(next);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(day);
      async function* input(): AsyncGenerator<string> {
        yield `${ips.slice(0, 4000).join('\n')}\n`;
        // Midnight passes while the first half is in hand.
        vi.setSystemTime(day + 4000);
        yield `${ips.slice(4000).join('\n')}\n`;
      }
      const out = new PassThrough();
      const chunks: Buffer[] = [];
      out.on('data', (c: Buffer) => chunks.push(c));
      // A worker that takes its time over each block, so that blocks of the old day are still in its hands when
      // midnight passes: the run must wait for them before it drops the shared places (else they would fill them
      // again with rows of the old day).
      const slow = join(mkdtempSync(join(tmpdir(), 'ipintel-slow-worker-')), 'slow-worker.mjs');
      writeFileSync(
        slow,
        [
          "import { parentPort } from 'node:worker_threads';",
          'const on = parentPort.on.bind(parentPort);',
          "parentPort.on = (ev, h) => on(ev, ev === 'message' ? (m) => (m.type === 'work' ? setTimeout(() => h(m), 25) : h(m)) : h);",
          `await import(${JSON.stringify(`file://${(await ensureBundle()).worker}`)});`,
        ].join('\n'),
      );
      const summary = await run({
        input: input(),
        totalBytes: null,
        out,
        err: new PassThrough(),
        output: 'csv',
        header: template.header(),
        processor: new BlockProcessor(intel, template, space, 0),
        config: { snapshotPath: snap, render },
        space,
        jobs: 2,
        awaitWorkers: true,
        progress: false,
        workerUrl: new URL(`file://${slow}`),
        blockBytes: 2048,
      });
      expect(summary.jobs).toBe(2);
      const rows = Buffer.concat(chunks).toString().split('\n').slice(1, -1);
      expect(rows.length).toBe(ips.length);
      // Every row is the old day's or the new day's; once one is the new day's (and differs), none after it is the old day's.
      let switched = -1;
      rows.forEach((row, i) => {
        expect([old[i], next[i]]).toContain(row);
        if (row !== old[i] && switched < 0) switched = i;
        if (switched >= 0 && old[i] !== next[i]) expect(row, `row ${i} after the switch at ${switched}`).toBe(next[i]);
      });
      expect(switched).toBeGreaterThan(0);
      expect(switched).toBeLessThan(4100);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keys the evidence by signal set and network routing: leaves sharing a signal set, one network routing-inferred, get their own routing label', async () => {
    const { BlockProcessor } = await import('../src/batch/block.js');
    const { RowTemplate } = await import('../src/batch/template.js');
    // Leaf 4 (1.1.1.1) now shares leaf 2's signal set (8.8.8.0/24), under a routing-inferred copy of leaf 2's network.
    const model = trickyModel();
    const inferredNet = model.networks.length;
    const model2 = { ...model, networks: [...model.networks, { ...model.networks[2]!, routing_inferred: true }], leaves: model.leaves.map((l, i) => (i === 4 ? { ...l, net: inferredNet, sig: 2 } : l)) };
    const other = openSync(writeSnapshot(model2));
    const ips = ['8.8.8.8', '1.1.1.1', ...randomIps(5000, 23), '8.8.8.9', '1.1.1.1'];
    const seen = new Set(ips.map((ip) => other.check(ip).evidence.routing));
    expect(seen).toEqual(new Set(['inferred', 'authoritative']));
    await onOneUtcDay(() => {
      for (const output of ['ndjson', 'csv'] as const) {
        const layout = { format: 'native', output } as const;
        // Both orders: whichever routing label a signal set meets first must not be reused for the other.
        for (const order of [ips, [...ips].reverse()]) {
          const direct = new TextEncoder().encode(order.join('\n'));
          const mapped = new TextEncoder().encode(order.map((ip) => `::ffff:${ip}`).join('\n'));
          const fast = new BlockProcessor(other, new RowTemplate(layout)).process(direct);
          const general = new BlockProcessor(other, new RowTemplate(layout)).process(mapped);
          expect(Buffer.from(fast.bytes).toString(), output).toBe(Buffer.from(general.bytes).toString());
        }
      }
    });
  });
});
