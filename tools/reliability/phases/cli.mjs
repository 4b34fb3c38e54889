// The rows of issue 11 outside the server, at a larger scale than their tests
// (core's check.test.ts, the CLI's batch and process tests):
//   row 6: checkBatch over hostile JavaScript values (null-prototype objects,
//          arrays nested 5,000 to 30,000 deep, throwing toString / toPrimitive,
//          revoked proxies, symbols, bigints...) and check() with hostile
//          options: every element a typed invalid_ip error, nothing thrown
//          but an IpIntelError;
//   row 7: `ipintel batch` over fuzzed lines padded with space, tab, CR and
//          characters check() rejects (NUL, ESC, VT, FF, NBSP, BOM, DEL):
//          each answer judged by node:net's isIP on the line trimmed of
//          space, tab and CR only;
//   row 14: `ipintel batch --output json` stopped by SIGINT or SIGTERM at a
//          random point while writing to a pipe: a complete JSON array of
//          complete rows, exit 130 / 143.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IpIntelError, openSync } from '../../../packages/core/dist/index.js';
import { mulberry32 } from '../../bench/common.mjs';
import { fuzzAddresses, judge } from '../lib/fuzz.mjs';
import { crashes } from '../lib/processes.mjs';

const CLI = fileURLToPath(new URL('../../../packages/cli/dist/main.js', import.meta.url));
const PADDING = [' ', '\t', '\r'];
const REJECTED = ['\0', '\x1b', '\v', '\f', '\u00a0', '\ufeff', '\x7f', '\u2028'];

/** Row 6: hostile values through checkBatch (1,000 per call) and hostile options through check. */
function hostileValues(intel, count, seed) {
  const next = mulberry32(seed);
  const int = (n) => next() % n;
  const strings = fuzzAddresses(count, seed);
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  const deep = [5_000, 20_000, 30_000].map((depth) => {
    let a = [];
    for (let i = 0; i < depth; i++) a = [a];
    return a;
  });
  const throwing = () => {
    throw new Error('hostile');
  };
  const makers = [
    () => Object.create(null),
    () => deep[int(deep.length)],
    () => ({ toString: throwing }),
    () => ({ [Symbol.toPrimitive]: throwing }),
    () => Object.defineProperty({}, 'ip', { get: throwing, enumerable: true }),
    () => revoked,
    () => Symbol('s'),
    () => BigInt(int(1 << 30)),
    () => () => '8.8.8.8',
    () => [strings.next().value ?? '8.8.8.8'],
    () => int(2 ** 32),
    () => null,
    () => undefined,
    () => new Map([['ip', '8.8.8.8']]),
  ];
  const seen = { values: 0, untyped: 0, examples: [] };
  const bad = (what) => {
    seen.untyped++;
    if (seen.examples.length < 3) seen.examples.push(what);
  };
  for (let done = 0; done < count; ) {
    const batch = [];
    for (let i = 0; i < 1000 && done < count; i++, done++) batch.push(int(2) === 0 ? (strings.next().value ?? '') : makers[int(makers.length)]());
    let out;
    try {
      out = intel.checkBatch(batch);
    } catch (e) {
      bad(`checkBatch threw ${e?.name}: ${String(e?.message).slice(0, 60)}`);
      continue;
    }
    batch.forEach((v, i) => {
      seen.values++;
      const r = out[i];
      if (typeof v === 'string') {
        const why = judge(v, r);
        if (why !== '') bad(`${JSON.stringify(v)}: ${why}`);
      } else if (r?.error?.code !== 'invalid_ip' || typeof r.error.message !== 'string' || typeof r.ip !== 'string') bad(`a ${typeof v} element: ${String(r?.error?.code)}`);
      else {
        try {
          JSON.stringify(r);
        } catch {
          bad('an error row JSON.stringify cannot write');
        }
      }
    });
  }
  // Options the caller's own code makes throw when read (a throwing getter, a revoked proxy) pass
  // that error on, as JSON.stringify does; they are not among these.
  const options = [null, undefined, 42, 'thirdparty', true, 10n, Symbol('o'), Object.create(null), { format: 'csv' }, { format: Symbol('x') }, { format: null }, ['thirdparty']];
  for (const o of options) {
    seen.values++;
    try {
      intel.check('8.8.8.8', o);
    } catch (e) {
      if (!(e instanceof IpIntelError)) bad(`check(ip, ${typeof o}) threw ${e?.name}`);
    }
  }
  return seen;
}

/** Row 7: `ipintel batch` over padded fuzzed lines, judged line by line. */
async function paddedLines(work, snapshot, count, seed) {
  const next = mulberry32(seed);
  const int = (n) => next() % n;
  const pad = () => Array.from({ length: int(3) }, () => (int(3) === 0 ? REJECTED[int(REJECTED.length)] : PADDING[int(PADDING.length)])).join('');
  const lines = ['8.8.8.8'];
  for (const s of fuzzAddresses(count * 2, seed)) {
    if (lines.length >= count) break;
    const line = pad() + s + pad();
    const core = line.replace(/^[ \t\r]+|[ \t\r]+$/g, '');
    // One answer per line: no line breaks inside, no line batch skips (blank, # comment).
    if (/[\n\r]/.test(line.replace(/\r+$/, '')) || core === '' || core.startsWith('#')) continue;
    lines.push(line);
  }
  const file = join(work, 'padded-lines.txt');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const run = await runBatch([file, '--snapshot', snapshot, '--fields', 'ip', '--jobs', '2']);
  const rows = run.stdout.split('\n').slice(0, -1);
  const seen = { lines: lines.length, rows: rows.length, wrong: 0, examples: [], exit: run.code, internal: run.stderr.includes('internal error') };
  lines.forEach((line, i) => {
    let why;
    try {
      why = judge(line.replace(/^[ \t\r]+|[ \t\r]+$/g, ''), JSON.parse(rows[i] ?? 'null'));
    } catch {
      why = 'not a JSON row';
    }
    if (why === '') return;
    seen.wrong++;
    if (seen.examples.length < 3) seen.examples.push(`${JSON.stringify(line)}: ${why}`);
  });
  return seen;
}

/** Row 14: stopped by a signal at a random point of the output; the JSON must be whole. */
async function interrupted(snapshot, runs, seed) {
  const next = mulberry32(seed);
  const input = [];
  for (const s of fuzzAddresses(60_000, seed)) if (!/[\n\r]/.test(s) && s.trim() !== '' && !s.trim().startsWith('#')) input.push(s);
  const text = `${input.join('\n')}\n`;
  const seen = { runs: 0, cut: 0, wrongExit: 0, rows: 0, examples: [] };
  for (let r = 0; r < runs; r++) {
    const signal = r % 2 === 0 ? 'SIGINT' : 'SIGTERM';
    const after = 1000 + (next() % 2_000_000); // bytes of output before the signal
    const jobs = r % 3 === 0 ? ['--jobs', '2'] : [];
    const run = await runBatch(['-', '--snapshot', snapshot, '--output', 'json', ...jobs], { stdin: text, keepOpen: true, signal, after });
    seen.runs++;
    let rows;
    try {
      rows = JSON.parse(run.stdout);
      if (!Array.isArray(rows) || rows.some((row) => typeof row?.ip !== 'string')) throw new Error('not an array of rows');
      seen.rows += rows.length;
    } catch (e) {
      seen.cut++;
      if (seen.examples.length < 3) seen.examples.push(`${signal} after ${after} bytes: ${e.message.slice(0, 60)}`);
    }
    const expected = signal === 'SIGINT' ? 130 : 143;
    // Output shorter than `after`: the input ran out first, and it ended with exit 0 or 1.
    if (run.code !== expected && !(run.signalled === false && [0, 1].includes(run.code))) {
      seen.wrongExit++;
      if (seen.examples.length < 3) seen.examples.push(`${signal}: exit ${run.code ?? run.killedBy}`);
    }
  }
  return seen;
}

/** Runs `ipintel batch ARGS`; with `signal`, sends it once `after` bytes of output came. */
function runBatch(args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'batch', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    let size = 0;
    let stderr = '';
    let signalled = false;
    child.stdout.on('data', (d) => {
      out.push(d);
      size += d.length;
      if (opts.signal !== undefined && !signalled && size >= opts.after) {
        signalled = true;
        child.kill(opts.signal);
      }
    });
    child.stderr.on('data', (d) => (stderr += d.toString()));
    child.stdin.on('error', () => undefined);
    if (opts.stdin !== undefined) child.stdin.write(opts.stdin);
    // Keep stdin open, as a producer upstream in a pipeline would: the signal ends the run (or,
    // should the output stay shorter than `after`, the end of the input after 30 s).
    if (!opts.keepOpen) child.stdin.end();
    else setTimeout(() => signalled || child.stdin.end(), 30_000).unref();
    child.on('close', (code, killedBy) => resolve({ code, killedBy, signalled, stdout: Buffer.concat(out).toString(), stderr }));
  });
}

export async function libraryAndCli(ctx) {
  const values = ctx.quick ? 20_000 : 200_000;
  const lines = ctx.quick ? 20_000 : 200_000;
  const runs = ctx.quick ? 6 : 20;
  const snapshot = ctx.snapshots.a.path;
  const intel = openSync(snapshot);
  const h = hostileValues(intel, values, 20260106);
  const p = await paddedLines(ctx.work, snapshot, lines, 20260107);
  const s = await interrupted(snapshot, runs, 20260114);
  // A CLI run that ended other than as documented (exit 1 for bad lines; 130/143 when stopped) is a crash.
  const cliCrashes = (p.internal || p.exit !== 1 ? 1 : 0) + s.wrongExit;
  if (cliCrashes > 0) {
    crashes.count += cliCrashes;
    crashes.what.push(`ipintel batch: ${cliCrashes} runs ended unexpectedly`);
  }
  const examples = [...h.examples, ...p.examples, ...s.examples];
  return {
    phase: `library and CLI (rows 6, 7, 14): ${(values / 1000).toLocaleString('en-US')}k hostile checkBatch values, ${(lines / 1000).toLocaleString('en-US')}k padded batch lines, batch stopped by SIGINT/SIGTERM ×${runs}`,
    requests: h.values + p.lines + s.runs,
    problem: '-',
    status5xx: '-',
    storeDown: '-',
    notes:
      `${h.untyped} untyped errors or wrong answers of ${h.values.toLocaleString('en-US')} values; ` +
      `${p.wrong} wrong answers of ${p.lines.toLocaleString('en-US')} lines (${p.rows.toLocaleString('en-US')} rows); ` +
      `${s.cut} cut JSON outputs of ${s.runs} stopped runs (${s.rows.toLocaleString('en-US')} complete rows), ${s.wrongExit} wrong exit codes` +
      (examples.length > 0 ? `; e.g. ${examples.join('; ')}` : ''),
    failed: h.untyped > 0 || p.wrong > 0 || p.rows !== p.lines || s.cut > 0 || cliCrashes > 0,
  };
}
