/**
 * The worker pool on its own: a block that fails in a worker fails that block
 * and the ones sent after it with the CLI's exit code (3 for a damaged
 * snapshot, as in one thread), while the blocks sent before it still answer.
 * Through `ipintel batch --jobs 2` which thread meets the failing line depends
 * on timing; here it is always the worker.
 */
import { describe, expect, it } from 'vitest';
import { openSync } from '@ipintel/core';
import { BufferPool } from '../src/batch/buffers.js';
import type { ProcessorConfig } from '../src/batch/executor.js';
import { WorkerPool } from '../src/batch/pool.js';
import { CliError, EXIT_SNAPSHOT } from '../src/errors.js';
import { ensureBundle } from './bundle.js';
import { writeDamagedV6Snapshot } from './snapshots.js';

const block = (lines: string[]): Uint8Array => new TextEncoder().encode(`${lines.join('\n')}\n`);

describe('WorkerPool', () => {
  it.each(['own load', 'shared snapshot'])('a block failing in a worker rejects with exit 3; earlier blocks answer, later ones fail too (%s)', async (how) => {
    const url = new URL(`file://${(await ensureBundle()).worker}`);
    const path = writeDamagedV6Snapshot();
    const base: ProcessorConfig = { snapshotPath: path, render: { format: 'native', output: 'ndjson' } };
    const config = how === 'shared snapshot' ? { ...base, shared: openSync(path).share() } : base;
    const pool = new WorkerPool(1, config, new BufferPool(8, 4096), new BufferPool(8, 0), url);
    try {
      const before = pool.run(block(['8.8.8.8', '1.1.1.1']));
      const failing = pool.run(block(['1.2.3.4', '2001:db8::1']));
      const after = pool.run(block(['8.8.4.4']));
      for (const p of [failing, after]) p.catch(() => undefined);
      const ok = await before;
      expect(ok.rows).toBe(2);
      expect(new TextDecoder().decode(ok.bytes).split('\n').filter(Boolean).map((l) => JSON.parse(l).ip)).toEqual(['8.8.8.8', '1.1.1.1']);
      for (const p of [failing, after]) {
        const e = await p.then(() => null, (x: unknown) => x);
        expect(e).toBeInstanceOf(CliError);
        expect((e as CliError).exitCode).toBe(EXIT_SNAPSHOT);
        expect((e as CliError).message).toMatch(/snapshot is corrupt: an IPv6 leaf id is out of range/);
      }
      // The pool stays failed: a block sent now is refused with the same error.
      await expect(pool.run(block(['8.8.8.8']))).rejects.toMatchObject({ exitCode: EXIT_SNAPSHOT });
    } finally {
      await pool.close();
    }
  });
});
