/**
 * The worker pool on its own: a block that fails in a worker fails that block
 * and the ones sent after it with the CLI's exit code (3 for a damaged
 * snapshot, as in one thread), while the blocks sent before it still answer.
 * Through `ipintel batch --jobs 2` which thread meets the failing line depends
 * on timing; here it is always the worker. Also: workers start before their
 * setup, the hybrid executor keeps blocks in the main thread until a worker
 * is ready, and a worker that cannot set up fails the pool with its exit code.
 */
import { describe, expect, it } from 'vitest';
import { openSync } from '@ipintel/core';
import { BlockProcessor } from '../src/batch/block.js';
import { BufferPool } from '../src/batch/buffers.js';
import { LocalExecutor, type ProcessorConfig } from '../src/batch/executor.js';
import { HybridExecutor } from '../src/batch/hybrid.js';
import { WorkerPool } from '../src/batch/pool.js';
import { rowsSpace, utcDay } from '../src/batch/records.js';
import { OutputRegions } from '../src/batch/regions.js';
import { RowTemplate, type RenderOptions } from '../src/batch/template.js';
import { CliError, EXIT_SNAPSHOT } from '../src/errors.js';
import { ensureBundle } from './bundle.js';
import { trickyModel, writeDamagedV6Snapshot, writeSnapshot } from './snapshots.js';

const block = (lines: string[]): Uint8Array => new TextEncoder().encode(`${lines.join('\n')}\n`);
const ipsOf = (bytes: Uint8Array): string[] => new TextDecoder().decode(bytes).split('\n').filter(Boolean).map((l) => JSON.parse(l).ip);
const render: RenderOptions = { format: 'native', output: 'ndjson' };

async function workerUrl(): Promise<URL> {
  return new URL(`file://${(await ensureBundle()).worker}`);
}

describe('WorkerPool', () => {
  it.each(['own load', 'shared snapshot'])('a block failing in a worker rejects with exit 3; earlier blocks answer, later ones fail too (%s)', async (how) => {
    const path = writeDamagedV6Snapshot();
    const base: ProcessorConfig = { snapshotPath: path, render };
    let config: ProcessorConfig = base;
    if (how === 'shared snapshot') {
      const intel = openSync(path);
      const space = rowsSpace(intel, new RowTemplate(render), 2);
      // The main thread's processor drops the shared places of another day, as run.ts does before its first block.
      new BlockProcessor(intel, new RowTemplate(render), space, 0).resetDay(utcDay());
      config = { ...base, space };
    }
    const pool = new WorkerPool(1, await workerUrl());
    pool.setup(config, new BufferPool(8, 4096), new BufferPool(8, 0));
    try {
      const before = pool.run(block(['8.8.8.8', '1.1.1.1']), utcDay());
      const failing = pool.run(block(['1.2.3.4', '2001:db8::1']), utcDay());
      const after = pool.run(block(['8.8.4.4']), utcDay());
      for (const p of [failing, after]) p.catch(() => undefined);
      const ok = await before;
      expect(ok.rows).toBe(2);
      expect(ipsOf(ok.bytes)).toEqual(['8.8.8.8', '1.1.1.1']);
      for (const p of [failing, after]) {
        const e = await p.then(() => null, (x: unknown) => x);
        expect(e).toBeInstanceOf(CliError);
        expect((e as CliError).exitCode).toBe(EXIT_SNAPSHOT);
        expect((e as CliError).message).toMatch(/snapshot is corrupt: an IPv6 leaf id is out of range/);
      }
      // The pool stays failed: a block sent now is refused with the same error.
      await expect(pool.run(block(['8.8.8.8']), utcDay())).rejects.toMatchObject({ exitCode: EXIT_SNAPSHOT });
    } finally {
      await pool.close();
    }
  });

  it('a worker that cannot set up fails the pool (whenReady and every block) with the exit code of the failure', async () => {
    const pool = new WorkerPool(1, await workerUrl());
    pool.setup({ snapshotPath: '/nonexistent/ipintel.snapshot', render }, new BufferPool(8, 4096), new BufferPool(8, 0));
    try {
      const sent = pool.run(block(['8.8.8.8']), utcDay());
      sent.catch(() => undefined);
      const e = await pool.whenReady().then(() => null, (x: unknown) => x);
      expect(e).toBeInstanceOf(CliError);
      expect((e as CliError).exitCode).not.toBe(0);
      expect(pool.ready).toBe(0);
      expect(pool.failed).toBe(e);
      await expect(sent).rejects.toBe(e);
      await expect(pool.run(block(['1.1.1.1']), utcDay())).rejects.toBe(e);
      // Through the hybrid executor too: the block goes to the failed pool to be refused (the run stops), not to the main thread.
      const local = new LocalExecutor(new BlockProcessor(openSync(writeSnapshot(trickyModel())), new RowTemplate(render)), new BufferPool(8, 4096), new BufferPool(8, 0));
      await expect(new HybridExecutor(pool, local).run(block(['8.8.8.8']), utcDay())).rejects.toBe(e);
    } finally {
      await pool.close();
    }
  });

  it('open: the first worker checks the IPv4 index of the snapshot handed to it, unless taken back first', async () => {
    const path = writeSnapshot(trickyModel());
    const good = openSync(path).share();
    const badDir = new Uint32Array((good.columns['v4.dir'] as Uint32Array).length).fill(0x7fffff); // entries past every leaf
    const bad = { ...good, columns: { ...good.columns, 'v4.dir': badDir } };
    for (const [shared, ok] of [[good, true], [bad, false]] as const) {
      const pool = new WorkerPool(2, await workerUrl());
      try {
        const check = pool.open(shared);
        // Not taken back: a worker claims it once started, and answers.
        expect(await check.verdict).toBe(ok);
        expect(check.takeBack()).toBe(false);
      } finally {
        await pool.close();
      }
    }
    // Taken back at once (the worker is still starting): the caller has it, and the worker leaves it.
    const pool = new WorkerPool(1, await workerUrl());
    try {
      const check = pool.open(good);
      expect(check.takeBack()).toBe(true);
      let answered = false;
      void check.verdict.then(() => (answered = true));
      // A worker's replies come in order: once it is ready, a verdict it had sent would have arrived.
      pool.setup({ snapshotPath: path, render }, new BufferPool(8, 4096), new BufferPool(8, 0));
      await pool.whenReady();
      expect(answered).toBe(false);
    } finally {
      await pool.close();
    }
  });

  it('the hybrid executor keeps blocks in the main thread until a worker is ready, then feeds the workers first', async () => {
    const path = writeSnapshot(trickyModel());
    const intel = openSync(path);
    const inputs = new BufferPool(8, 4096);
    const outputs = new BufferPool(8, 0);
    const template = new RowTemplate(render);
    const space = rowsSpace(intel, template, 3);
    const regions = new OutputRegions(space.layout.outAt.length);
    const main = new BlockProcessor(intel, template, space, 0);
    main.resetDay(utcDay());
    const local = new LocalExecutor(main, inputs, outputs, regions);
    const pool = new WorkerPool(2, await workerUrl());
    const hybrid = new HybridExecutor(pool, local);
    try {
      // Not set up: no worker can be ready, so the main thread answers at once and nothing is queued to a worker.
      const early = await hybrid.run(block(['8.8.8.8']), utcDay());
      expect(ipsOf(early.bytes)).toEqual(['8.8.8.8']);
      expect(pool.inFlight).toBe(0);
      pool.setup({ snapshotPath: path, render, space }, inputs, outputs, regions);
      await pool.whenReady();
      expect(pool.ready).toBe(2);
      // Two blocks per ready worker go to the pool, the next one to the main thread.
      const sent = ['1.1.1.1', '8.8.4.4', '9.9.9.9', '1.0.0.1', '4.4.4.4'].map((ip) => hybrid.run(block([ip]), utcDay()));
      expect(pool.inFlight).toBe(4);
      const answers = await Promise.all(sent);
      expect(answers.map((a) => ipsOf(a.bytes)[0])).toEqual(['1.1.1.1', '8.8.4.4', '9.9.9.9', '1.0.0.1', '4.4.4.4']);
      // Each answer's rows are in an output region of the shared memory, each block in one of its own.
      expect(new Set(answers.map((a) => a.region)).size).toBe(5);
      expect(answers.every((a) => a.region >= 0 && a.bytes.buffer instanceof SharedArrayBuffer)).toBe(true);
      expect(pool.inFlight).toBe(0);
    } finally {
      await hybrid.close();
    }
  });
});
