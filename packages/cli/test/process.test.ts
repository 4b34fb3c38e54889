/**
 * Process-level tests: the CLI run as a real process (a self-contained build
 * of it, see bundle.ts), for what only a process shows: exit codes, worker
 * threads over large inputs, a closed stdout, and memory that stays flat
 * whatever the input size.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync as openFd, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onOneUtcDay } from '@ipintel/testkit';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ensureBundle, type TestBundle } from './bundle.js';
import { prng, syntheticModel, trickyModel, writeSnapshot } from './snapshots.js';

let bundle: TestBundle;
let tricky: string;
let synth: string;
let dir: string;

beforeAll(async () => {
  bundle = await ensureBundle();
  tricky = writeSnapshot(trickyModel());
  synth = writeSnapshot(syntheticModel(50_000, 5_000));
  dir = mkdtempSync(join(tmpdir(), 'ipintel-cli-proc-'));
});

interface Run {
  code: number | null;
  stdout: string;
  sha256: string;
  bytes: number;
  stderr: string;
}

/** Runs `node <args>`; stdout is hashed (kept as text only when small). `stdin` may be a generator of chunks. */
function runNode(args: string[], stdin?: string | (() => Iterable<string>), stdoutFd?: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['pipe', stdoutFd ?? 'pipe', 'pipe'] });
    const stdinPipe = child.stdin!;
    const hash = createHash('sha256');
    let text = '';
    let bytes = 0;
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => {
      hash.update(d);
      bytes += d.length;
      if (text.length < 1 << 20) text += d.toString();
    });
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: text, sha256: hash.digest('hex'), bytes, stderr }));
    stdinPipe.on('error', () => undefined);
    if (stdin === undefined) stdinPipe.end();
    else if (typeof stdin === 'string') stdinPipe.end(stdin);
    else {
      const it = stdin()[Symbol.iterator]();
      const pump = (): void => {
        for (;;) {
          const n = it.next();
          if (n.done === true) {
            stdinPipe.end();
            return;
          }
          if (!stdinPipe.write(n.value)) {
            stdinPipe.once('drain', pump);
            return;
          }
        }
      };
      pump();
    }
  });
}

/** `lines` random IPv4 lines (with a few comments, blanks, CRLF and bad lines), in chunks. */
function* generated(lines: number, seed: number): Iterable<string> {
  const rnd = prng(seed);
  const CHUNK = 10_000;
  for (let done = 0; done < lines; done += CHUNK) {
    const out: string[] = [];
    for (let i = 0; i < Math.min(CHUNK, lines - done); i++) {
      const x = Math.floor(rnd() * 2 ** 32);
      const k = done + i;
      if (k % 99_991 === 5) out.push('not an address');
      else if (k % 50_021 === 7) out.push('# comment');
      else out.push(`${x >>> 24}.${(x >>> 16) & 255}.${(x >>> 8) & 255}.${x & 255}${k % 7 === 0 ? '\r' : ''}`);
    }
    yield `${out.join('\n')}\n`;
  }
}

describe('ipintel as a process', () => {
  it('exit codes: 0 answered, 1 bad address, 2 usage, 3 no snapshot', async () => {
    const ok = await runNode([bundle.main, 'check', '8.8.8.8', '--snapshot', tricky]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).ip).toBe('8.8.8.8');
    expect((await runNode([bundle.main, 'check', '8.8.8', '--snapshot', tricky])).code).toBe(1);
    expect((await runNode([bundle.main, 'check', '8.8.8.8', '--bogus'])).code).toBe(2);
    const none = await runNode([bundle.main, 'check', '8.8.8.8', '--snapshot', join(dir, 'missing.ipintel')]);
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/^ipintel check: no snapshot at /);
  });

  // The bundle lives in the temp dir, where neither @ipintel/builder, @ipintel/server nor @ipintel/export
  // resolves: exactly an install without them.
  it('without @ipintel/builder, @ipintel/server and @ipintel/export installed: check works, build/serve/keys/export exit 5, their help works', async () => {
    expect((await runNode([bundle.main, 'check', '1.1.1.1', '--snapshot', tricky])).code).toBe(0);
    // Explicit paths: with no data package here either, the default snapshot path would be a usage error first.
    for (const argv of [
      ['build', '--quiet', '--out', join(dir, 'never.ipintel')],
      ['serve', '--port', '0', '--snapshot', tricky],
      ['keys', 'list'],
      ['export', '--out', join(dir, 'never.mmdb'), '--snapshot', tricky],
    ]) {
      const r = await runNode([bundle.main, ...argv]);
      expect(r.code, argv.join(' ')).toBe(5);
      expect(r.stderr).toMatch(new RegExp(`^ipintel ${argv[0]}: "ipintel ${argv[0]}" is unavailable: @ipintel/(builder|server|export) could not be loaded \\(`));
      const h = await runNode([bundle.main, argv[0]!, '--help']);
      expect(h.code).toBe(0);
      expect(h.stdout).toContain(`Usage: ipintel ${argv[0]}`);
    }
  });

  it('--jobs 2 is byte-identical to --jobs 1 on 300,000 lines (ndjson, csv, json)', async () => {
    const file = join(dir, 'in-300k.txt');
    writeFileSync(file, [...generated(300_000, 1)].join(''));
    for (const output of ['ndjson', 'csv', 'json']) {
      const base = [bundle.main, 'batch', file, '--snapshot', synth, '--output', output];
      // Rows carry allocation_age_days (00:00 UTC moves it) and a process has no clock to inject: the two
      // runs are compared again if the UTC day changed while they ran (testkit).
      await onOneUtcDay(async () => {
        const one = await runNode([...base, '--jobs', '1']);
        const two = await runNode([...base, '--jobs', '2']);
        expect(one.code).toBe(1); // the generated input holds a few bad lines
        expect(two.code).toBe(1);
        expect(two.bytes).toBe(one.bytes);
        expect(two.sha256, output).toBe(one.sha256);
        expect(two.stderr).toBe(one.stderr);
        expect(one.stderr).toMatch(/^ipintel batch: 4 of 299,994 rows were not IP addresses \(first: line 6:/);
      });
    }
  }, 240_000);

  it('stops quietly (exit 0) when the reader of its output goes away', async () => {
    const file = join(dir, 'in-epipe.txt');
    writeFileSync(file, [...generated(200_000, 2)].join(''));
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [bundle.main, 'batch', file, '--snapshot', synth, '--jobs', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.stdout.once('data', () => child.stdout.destroy());
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  }, 60_000);

  it('check stops quietly (exit 0) when the reader of its output goes away', async () => {
    // Two thousand answers are far more than a pipe holds, so the write meets the closed reader.
    const ips = Array.from({ length: 2_000 }, (_, i) => `8.8.${i >> 8}.${i & 255}`);
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [bundle.main, 'check', ...ips, '--snapshot', synth, '--compact'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.stdout.once('data', () => child.stdout.destroy());
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  }, 60_000);

  // Issue 11 row 14: the default SIGINT action cut the last row and left the JSON array open.
  it('on SIGINT to a pipe: complete rows, a closed JSON array, exit 130', async () => {
    const r = await new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [bundle.main, 'batch', '-', '--snapshot', synth, '--output', 'json'], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      let sent = false;
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (!sent && stdout.length > 100_000) {
          sent = true;
          child.kill('SIGINT');
        }
      });
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
      // Keep stdin open, as a producer upstream in a pipeline would.
      child.stdin.on('error', () => undefined);
      child.stdin.write([...generated(20_000, 4)].join(''));
    });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(130);
    const rows = JSON.parse(r.stdout) as { ip: string }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/^ipintel batch: stopped by SIGINT after [\d,]+ rows; the output is complete up to there\n$/);
  }, 60_000);

  // Before the latch (main.ts, signal-latch.ts), a signal while the modules loaded had its default action: no output, or
  // an unclosed array, and an exit by signal. The harness raises it while they load, deterministically: a module hook
  // sends it as the module holding runCli is read, after main.js began (the latch) and before any command listens.
  describe('a signal while the CLI loads', () => {
    /** Runs `node harness SIGNAL main ...args` with `stdin` written and kept open (a producer upstream). */
    const runEarly = (signal: 'SIGINT' | 'SIGTERM', args: string[], stdin = ''): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> => {
      const hooks = join(dir, 'early-signal-hooks.mjs');
      const harness = join(dir, 'early-signal-harness.mjs');
      writeFileSync(
        hooks,
        [
          'let signal;',
          'let sent = false;',
          'export function initialize(data) { signal = data.signal; }',
          'export async function load(url, context, next) {',
          '  const r = await next(url, context);',
          "  if (!sent && r.source != null && Buffer.from(r.source).toString('latin1').includes('function runCli(')) {",
          '    sent = true;',
          '    process.kill(process.pid, signal);',
          '  }',
          '  return r;',
          '}',
        ].join('\n'),
      );
      writeFileSync(
        harness,
        [
          "import { register } from 'node:module';",
          'const [signal, main, ...args] = process.argv.slice(2);',
          "register(new URL('./early-signal-hooks.mjs', import.meta.url), { data: { signal } });",
          'process.argv = [process.argv[0], main, ...args];',
          'await import(main);',
        ].join('\n'),
      );
      return new Promise((resolve) => {
        const child = spawn(process.execPath, [harness, signal, bundle.main, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
        onTestFinished(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (code, sig) => resolve({ code, signal: sig, stdout, stderr }));
        child.stdin.on('error', () => undefined);
        child.stdin.write(stdin);
      });
    };

    it.each([
      { signal: 'SIGINT', output: 'json', jobs: '1', stdout: '[]\n', code: 130 },
      { signal: 'SIGTERM', output: 'json', jobs: '2', stdout: '[]\n', code: 143 },
      { signal: 'SIGINT', output: 'csv', jobs: '1', stdout: 'ip,error.code,error.message\n', code: 130 },
      { signal: 'SIGTERM', output: 'ndjson', jobs: '1', stdout: '', code: 143 },
    ] as const)('batch --output $output --jobs $jobs on $signal: stops before reading, an empty output that parses, exit $code', async (c) => {
      const args = ['batch', '-', '--snapshot', tricky, '--output', c.output, '--fields', 'ip', '--jobs', c.jobs];
      const r = await runEarly(c.signal, args, '8.8.8.8\n1.1.1.1\n');
      expect(r.signal).toBeNull();
      expect(r.code).toBe(c.code);
      expect(r.stdout).toBe(c.stdout);
      if (c.output === 'json') expect(JSON.parse(r.stdout)).toEqual([]);
      expect(r.stderr).toBe(`ipintel batch: stopped by ${c.signal} after 0 rows; the output is complete up to there\n`);
    }, 60_000);

    it.each([
      ['check', '8.8.8.8', '--snapshot'],
      ['info', '--snapshot'],
    ])('%s keeps the default action: the process ends by the signal', async (...argv) => {
      const r = await runEarly('SIGINT', [...argv, tricky]);
      expect(r.signal).toBe('SIGINT');
      expect(r.stdout).toBe('');
    }, 60_000);
  });

  // A slow producer (`tail -f log | ipintel batch`): each line is answered while stdin stays open, not once 32 KiB piled up.
  it('answers each line of a slow pipe while stdin stays open, then exits 0 with a whole JSON array when it closes', async () => {
    const child = spawn(process.execPath, [bundle.main, 'batch', '--snapshot', tricky, '--output', 'json', '--fields', 'ip,geo.country_code'], { stdio: ['pipe', 'pipe', 'pipe'] });
    onTestFinished(() => void (child.exitCode === null && child.kill()));
    let stdout = '';
    let stderr = '';
    const waiting: { text: string; resolve: () => void }[] = [];
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      for (const w of waiting.filter((x) => stdout.includes(x.text))) w.resolve();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    const rowOf = (ip: string): Promise<void> => new Promise((resolve) => (stdout.includes(`"ip":"${ip}"`) ? resolve() : waiting.push({ text: `"ip":"${ip}"`, resolve })));
    for (const ip of ['8.8.8.8', '2001:db8::1', '1.1.1.1']) {
      child.stdin.write(`${ip}\n`);
      await rowOf(ip);
    }
    expect(child.exitCode).toBeNull(); // still reading
    child.stdin.end();
    expect(await closed).toBe(0);
    expect(stderr).toBe('');
    expect((JSON.parse(stdout) as { ip: string }[]).map((r) => r.ip)).toEqual(['8.8.8.8', '2001:db8::1', '1.1.1.1']);
  }, 60_000);

  // The output of 2,000,000 lines is ~2 GB and the input ~30 MB: holding either would break the bound.
  it('memory stays flat: peak RSS for 2,000,000 lines is within 48 MB of 200,000 lines', async () => {
    const harness = join(dir, 'rss-harness.mjs');
    writeFileSync(
      harness,
      [
        'const [main, ...args] = process.argv.slice(2);',
        'let peak = 0;',
        'const sample = () => { const r = process.memoryUsage().rss; if (r > peak) peak = r; };',
        'setInterval(sample, 10).unref();',
        "process.on('exit', () => { sample(); process.stderr.write(`PEAK_RSS ${peak}\\n`); });",
        'process.argv = [process.argv[0], main, ...args];',
        'await import(main);',
      ].join('\n'),
    );
    const peakOf = async (lines: number, jobs: string): Promise<number> => {
      const devnull = openFd('/dev/null', 'w');
      try {
        const r = await runNode([harness, bundle.main, 'batch', '-', '--snapshot', synth, '--jobs', jobs], () => generated(lines, 3), devnull);
        const m = /PEAK_RSS (\d+)/.exec(r.stderr);
        expect(m, r.stderr).not.toBeNull();
        return Number(m![1]) / 2 ** 20;
      } finally {
        closeSync(devnull);
      }
    };
    for (const jobs of ['1', '2']) {
      const small = await peakOf(200_000, jobs);
      const big = await peakOf(2_000_000, jobs);
      expect(big - small, `jobs ${jobs}: ${small.toFixed(0)} MB -> ${big.toFixed(0)} MB`).toBeLessThan(48);
      expect(big).toBeLessThan(400);
    }
  }, 300_000);
});
