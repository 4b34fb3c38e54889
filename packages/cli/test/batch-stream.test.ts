/**
 * `ipintel batch` on slow inputs (`tail -f log | ipintel batch`): a line's
 * row is written soon after the line arrives, not once 32 KiB of lines have
 * piled up (blocks.ts flushes once the input goes quiet, run.ts then empties
 * its FIFO). The run, and the command with the flags that rewrite lines.
 *
 * No test asserts on time: each writes lines, waits until their rows reach
 * the output while the input stays open (without the flush they never would,
 * and the test times out), then ends the input.
 */
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { IpIntel } from '@ipintel/core';
import { BlockProcessor } from '../src/batch/block.js';
import { rowsSpace } from '../src/batch/records.js';
import { runBatch } from '../src/batch/run.js';
import { RowTemplate, type OutputKind, type RenderOptions } from '../src/batch/template.js';
import { runCli } from '../src/cli.js';
import { batchHooks } from '../src/commands/batch.js';
import { ensureBundle } from './bundle.js';
import { captureIo } from './io.js';
import { withTrickySnapshot } from './batch-fixture.js';

let snap: string;
let intel: IpIntel;
withTrickySnapshot((path, opened) => {
  snap = path;
  intel = opened;
});

/** A promise the test resolves. */
function gate(): { readonly wait: Promise<void>; readonly open: () => void } {
  let open = (): void => undefined;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

interface Watched {
  readonly stream: Writable;
  readonly text: () => string;
  /** Resolves once the text written so far satisfies `ready`. */
  readonly until: (ready: (text: string) => boolean) => Promise<void>;
  /** From now on every write fails with EPIPE (the reader went away). */
  readonly breakPipe: () => void;
}

/** An output that tells its waiters whenever it receives bytes. */
function watchedOut(): Watched {
  const chunks: Buffer[] = [];
  const waiting: { ready: (text: string) => boolean; resolve: () => void }[] = [];
  let broken = false;
  const text = (): string => Buffer.concat(chunks).toString();
  const check = (): void => {
    const t = text();
    for (const w of waiting.filter((x) => x.ready(t))) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve();
    }
  };
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      if (broken) return cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      chunks.push(Buffer.from(chunk));
      check();
      cb();
    },
  });
  return {
    stream,
    text,
    until: (ready) =>
      new Promise<void>((resolve) => {
        waiting.push({ ready, resolve });
        check();
      }),
    breakPipe: () => void (broken = true),
  };
}

/** The addresses of the rows in an output so far (ndjson, json: "ip" members; csv: the first column after the header). */
function ipsOf(text: string, output: OutputKind): string[] {
  if (output === 'csv') return text.split('\n').slice(1, -1).map((l) => l.split(',')[0]!);
  return [...text.matchAll(/"ip":"([^"]*)"/g)].map((m) => m[1]!);
}

/** At least `n` rows, and the output so far ends with a whole line (a reader taking lines has them all). */
const has = (output: OutputKind, n: number) => (text: string) => ipsOf(text, output).length >= n && text.endsWith('\n');

/** A processor for the run, that counts the bytes of each block it is given. */
function processorFor(output: OutputKind): { render: RenderOptions; template: RowTemplate; space: ReturnType<typeof rowsSpace>; processor: BlockProcessor; sizes: number[] } {
  const render: RenderOptions = { format: 'native', output, fields: ['ip', 'geo.country_code'] };
  const template = new RowTemplate(render);
  const space = rowsSpace(intel, template, 1);
  const processor = new BlockProcessor(intel, template, space, 0);
  const sizes: number[] = [];
  const process = processor.process.bind(processor);
  processor.process = (block, ...rest) => {
    sizes.push(block.length);
    return process(block, ...rest);
  };
  return { render, template, space, processor, sizes };
}

function run(output: OutputKind, input: AsyncIterable<Uint8Array | string>, out: Writable, more: { blockBytes?: number; flushMs?: number } = {}) {
  const p = processorFor(output);
  const summary = runBatch({
    input,
    totalBytes: null,
    out,
    err: new PassThrough(),
    output,
    header: p.template.header(),
    processor: p.processor,
    config: { snapshotPath: snap, render: p.render },
    space: p.space,
    jobs: 1,
    progress: false,
    ...more,
  });
  return { summary, sizes: p.sizes };
}

describe('runBatch on a slow input', () => {
  it.each(['ndjson', 'csv', 'json'] as const)('%s: the rows of the lines read are written while the input waits for more; the output is whole at the end', async (output) => {
    const more = gate();
    async function* input(): AsyncGenerator<string> {
      yield '8.8.8.8\n1.1.1.1\n9.9';
      await more.wait; // the producer is quiet until the rows of the first two lines are out
      yield '.9.9\n2001:db8::1';
    }
    const out = watchedOut();
    const { summary } = run(output, input(), out.stream);
    await out.until(has(output, 2));
    expect(ipsOf(out.text(), output)).toEqual(['8.8.8.8', '1.1.1.1']);
    more.open();
    expect((await summary).rows).toBe(4);
    const all = ['8.8.8.8', '1.1.1.1', '9.9.9.9', '2001:db8::1'];
    expect(ipsOf(out.text(), output)).toEqual(all);
    if (output === 'json') expect((JSON.parse(out.text()) as { ip: string }[]).map((r) => r.ip)).toEqual(all);
  });

  // A reader that takes whole lines (`tail -f log | ipintel batch --output json | while read -r row`) gets each row's
  // line as the row is written: a flush ends it, and the next row's `,` comes on a line of its own.
  it('json: the last row written has its line end while the input waits; the array parses at the end', async () => {
    const gates = [gate(), gate()];
    async function* input(): AsyncGenerator<string> {
      yield '8.8.8.8\n1.1.1.1\n';
      await gates[0]!.wait;
      yield '9.9.9.9\n';
      await gates[1]!.wait;
    }
    const out = watchedOut();
    const { summary } = run('json', input(), out.stream);
    await out.until(has('json', 2));
    gates[0]!.open();
    await out.until(has('json', 3));
    gates[1]!.open();
    expect((await summary).rows).toBe(3);
    const row = (ip: string) => expect.stringMatching(new RegExp(`^\\{"ip":"${ip.replaceAll('.', '\\.')}",[^\\n]*\\}$`));
    expect(out.text().split('\n')).toEqual(['[', expect.stringMatching(/^\{"ip":"8\.8\.8\.8".*\},$/), row('1.1.1.1'), ',', row('9.9.9.9'), ']', '']);
    expect((JSON.parse(out.text()) as { ip: string }[]).map((r) => r.ip)).toEqual(['8.8.8.8', '1.1.1.1', '9.9.9.9']);
  });

  it('json: a flush with nothing after it leaves the plain layout, and no rows still give []', async () => {
    const more = gate();
    async function* input(): AsyncGenerator<string> {
      yield '8.8.8.8\n';
      await more.wait;
      yield '# a comment, no row\n';
    }
    const out = watchedOut();
    const { summary } = run('json', input(), out.stream);
    await out.until(has('json', 1));
    more.open();
    await summary;
    expect(out.text()).toMatch(/^\[\n\{"ip":"8\.8\.8\.8",[^\n]*\}\n\]\n$/);
    const empty = watchedOut();
    await run('json', (async function* () { yield '# nothing\n'; })(), empty.stream).summary;
    expect(empty.text()).toBe('[]\n');
  });

  it('the rows of full blocks still in the FIFO are written too when the input goes quiet right after them', async () => {
    const more = gate();
    async function* input(): AsyncGenerator<string> {
      yield '1.1.1.1\n'.repeat(8) + '8.8.8.8\n'.repeat(8); // two full blocks of 64 bytes, nothing after
      await more.wait;
    }
    const out = watchedOut();
    const { summary, sizes } = run('ndjson', input(), out.stream, { blockBytes: 64 });
    await out.until(has('ndjson', 16));
    expect(sizes).toEqual([64, 64]);
    more.open();
    expect((await summary).rows).toBe(16);
  });

  it('an input whose reads are ready at once gives the same full blocks as without flushing, even with flushMs 0', async () => {
    const text = Array.from({ length: 40_000 }, (_, i) => `${1 + (i % 200)}.${i % 256}.${(i >> 8) % 256}.${i % 7}\n`).join('');
    async function* input(): AsyncGenerator<string> {
      for (let at = 0; at < text.length; at += 50_000) yield text.slice(at, at + 50_000);
    }
    const blocksOf = async (flushMs: number): Promise<number[]> => {
      const out = new PassThrough();
      out.resume();
      const { summary, sizes } = run('ndjson', input(), out, { flushMs });
      expect((await summary).rows).toBe(40_000);
      return sizes;
    };
    const plain = await blocksOf(Infinity);
    expect(await blocksOf(0)).toEqual(plain);
    expect(plain.length).toBeGreaterThan(10);
    for (const n of plain.slice(0, -1)) expect(n).toBeGreaterThanOrEqual(32 * 1024);
  });
});

describe('ipintel batch on a slow stdin', () => {
  const ADDRESSES = { first: '\uFEFF8.8.8.8\n1.1.1.1\n9.9', second: '.9.9\n', last: '2001:db8::1', rows: [['8.8.8.8', '1.1.1.1'], ['9.9.9.9'], ['2001:db8::1']] };
  const CASES: readonly { name: string; args: string[]; output: OutputKind; workers?: boolean; tty?: boolean; first: string; second: string; last: string; rows: string[][] }[] = [
    { name: 'ndjson (a leading BOM, an unfinished line kept)', args: [], output: 'ndjson', ...ADDRESSES },
    { name: 'csv', args: ['--output', 'csv'], output: 'csv', ...ADDRESSES },
    { name: 'json', args: ['--output', 'json'], output: 'json', ...ADDRESSES },
    { name: 'two jobs (short blocks go to the worker)', args: ['--jobs', '2'], output: 'ndjson', workers: true, ...ADDRESSES },
    { name: 'json on two jobs', args: ['--jobs', '2', '--output', 'json'], output: 'json', workers: true, ...ADDRESSES },
    { name: 'a progress bar on a terminal', args: [], output: 'ndjson', tty: true, ...ADDRESSES },
    {
      name: '--grep',
      args: ['--grep'],
      output: 'ndjson',
      first: 'sshd[1]: Failed password for root from 8.8.8.8 port 22\nnothing here\nGET / from 1.1.1.1 via [2001:db8::1]:443\nfrom 9.9',
      second: '.9.9 again\n',
      last: 'peer 1.0.0.1 closed',
      rows: [['8.8.8.8', '1.1.1.1', '2001:db8::1'], ['9.9.9.9'], ['1.0.0.1']],
    },
    { name: 'CIDR blocks', args: [], output: 'ndjson', first: '192.0.2.0/31\n8.8.8.8\n10.0.0.0/3', second: '1\n', last: '1.1.1.1', rows: [['192.0.2.0', '192.0.2.1', '8.8.8.8'], ['10.0.0.0', '10.0.0.1'], ['1.1.1.1']] },
  ];

  it.each(CASES)('$name: each write is answered while stdin stays open; exit 0 once it ends', async (c) => {
    if (c.workers === true) {
      batchHooks.workerUrl = new URL(`file://${(await ensureBundle()).worker}`);
      batchHooks.awaitWorkers = true;
    }
    const stdin = new PassThrough();
    const out = watchedOut();
    const captured = captureIo({ stderrTTY: c.tty === true });
    const args = ['batch', '-', '--snapshot', snap, '--fields', 'ip,geo.country_code', ...c.args];
    const done = runCli(args, { ...captured.io, stdin, stdout: out.stream });
    const want: string[] = [];
    for (const [i, write] of [c.first, c.second].entries()) {
      stdin.write(write);
      want.push(...c.rows[i]!);
      await out.until(has(c.output, want.length));
      expect(ipsOf(out.text(), c.output)).toEqual(want);
    }
    stdin.end(c.last);
    expect(await done).toBe(0);
    want.push(...c.rows[2]!);
    expect(ipsOf(out.text(), c.output)).toEqual(want);
    if (c.output === 'json') expect((JSON.parse(out.text()) as { ip: string }[]).map((r) => r.ip)).toEqual(want);
    if (c.tty === true) expect(captured.stderr()).toMatch(/ipintel batch: 4 rows in [\d.]+ s/);
  });

  it('Ctrl-C while stdin is quiet: the rows written stay, the JSON array is closed, exit 130', async () => {
    const stdin = new PassThrough();
    const out = watchedOut();
    let fire: ((s: 'SIGINT' | 'SIGTERM') => void) | undefined;
    const io = { ...captureIo().io, stdin, stdout: out.stream, onInterrupt: (h: (s: 'SIGINT' | 'SIGTERM') => void) => ((fire = h), () => undefined) };
    const done = runCli(['batch', '-', '--snapshot', snap, '--output', 'json', '--fields', 'ip'], io);
    stdin.write('8.8.8.8\n1.1.1.1\n9.9.'); // the last line is cut by the interruption
    await out.until(has('json', 2));
    fire!('SIGINT');
    expect(await done).toBe(130);
    expect(out.text()).toBe('[\n{"ip":"8.8.8.8"},\n{"ip":"1.1.1.1"}\n]\n');
    expect(stdin.destroyed).toBe(true);
  });

  it('the reader going away while stdin is quiet ends the run (exit 0) without waiting for more input', async () => {
    const stdin = new PassThrough();
    const out = watchedOut();
    const done = runCli(['batch', '-', '--snapshot', snap, '--fields', 'ip'], { ...captureIo().io, stdin, stdout: out.stream });
    stdin.write('8.8.8.8\n');
    await out.until(has('ndjson', 1));
    out.breakPipe();
    stdin.write('1.1.1.1\n'); // its row meets the closed pipe; stdin stays open
    expect(await done).toBe(0);
    expect(stdin.destroyed).toBe(true);
  });
});
