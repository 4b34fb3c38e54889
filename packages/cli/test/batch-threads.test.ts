/**
 * How many threads `ipintel batch` starts with (run.ts, `threadsAtStart` and
 * `autoThreads`): `--jobs N` is N whatever the input; `auto` is one thread
 * for an input of unknown size or under the threshold, every core otherwise
 * (two cores too, since the threads share one memory: docs/design.md,
 * "Nineteenth round").
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AUTO_PARALLEL_BYTES, autoThreads, threadsAtStart } from '../src/batch/run.js';
import { batchCommand } from '../src/commands/batch.js';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 42), numRuns: Number(process.env.FC_RUNS ?? 200) });

const cores = fc.integer({ min: 1, max: 512 });
const size = fc.option(fc.nat({ max: 2 ** 40 }), { nil: null });

describe('batch threads at start', () => {
  it('--jobs N runs N threads whatever the input and the machine', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 256 }), size, fc.nat(), cores, (jobs, bytes, autoBytes, c) => {
        expect(threadsAtStart(jobs, bytes, autoBytes, c)).toBe(jobs);
      }),
    );
  });

  it('auto runs every core for a large input, else one thread', () => {
    fc.assert(
      fc.property(size, fc.nat({ max: 2 ** 40 }), cores, (bytes, autoBytes, c) => {
        const large = bytes !== null && bytes >= autoBytes;
        const threads = threadsAtStart('auto', bytes, autoBytes, c);
        expect(threads).toBe(large ? c : 1);
        expect(threads).toBeGreaterThanOrEqual(1);
        expect(threads).toBeLessThanOrEqual(c);
      }),
    );
  });

  it('takes every core, and draws the line at the threshold itself', () => {
    expect([1, 2, 3, 4, 16].map(autoThreads)).toEqual([1, 2, 3, 4, 16]);
    expect(threadsAtStart('auto', AUTO_PARALLEL_BYTES, AUTO_PARALLEL_BYTES, 4)).toBe(4);
    expect(threadsAtStart('auto', AUTO_PARALLEL_BYTES - 1, AUTO_PARALLEL_BYTES, 4)).toBe(1);
    expect(threadsAtStart('auto', null, AUTO_PARALLEL_BYTES, 4)).toBe(1);
  });

  it('--help describes auto as the code runs it: one thread for a small input, else every core, two included', () => {
    // The flag's help said "1 for small inputs or up to two cores", the rule before the threads shared one memory.
    expect(autoThreads(2)).toBe(2);
    const help = batchCommand.spec.flags['jobs']!.description;
    expect(help).toContain(`under ~${Math.round(AUTO_PARALLEL_BYTES / 1e6)} MB`);
    expect(help).toContain('else one per core');
    expect(help).not.toMatch(/two cores/);
  });
});
