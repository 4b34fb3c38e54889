/**
 * `ipintel info` shows the snapshot's age and the sources older than their
 * refresh interval, judged at the present (the io clock in these tests);
 * `--json` carries the same as `freshness`. A snapshot without refresh
 * intervals (written before the field) lists its sources as not judged.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { captureIo } from './io.js';
import { trickyModel, writeSnapshot } from './snapshots.js';

const NOW = Date.parse('2026-01-10T00:00:00Z');
const model = trickyModel();
const withRefresh = writeSnapshot({
  ...model,
  sources: [
    { ...model.sources[0]!, data_date: '2026-01-01', refresh: '30d' },
    { ...model.sources[1]!, data_date: '2026-01-05T12:00:00Z', refresh: '1d' },
  ],
});
const withoutRefresh = writeSnapshot(model);

async function info(...argv: string[]) {
  const c = captureIo({ now: NOW });
  const code = await runCli(['info', '--no-counts', ...argv], c.io);
  return { code, out: c.stdout() };
}

describe('ipintel info: freshness', () => {
  it('prints the age, each source’s refresh interval, and the stale sources with their age', async () => {
    const r = await info('--snapshot', withRefresh);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Built        2026-01-02T00:00:00.000Z (8 days ago)');
    expect(r.out).toMatch(/test-tor +Test Tor +2026-01-05T12:00:00Z +1d +1 +public/);
    expect(r.out).toContain('Freshness    at 2026-01-10T00:00:00.000Z: snapshot 8 days old; 1 of 2 dated source(s) older than their refresh interval');
    expect(r.out).toMatch(/^ {2}test-tor +2026-01-05T12:00:00Z +1d +4 days$/m);
    expect(r.out).not.toMatch(/^ {2}test-geo +2026-01-01 +30d/m);
  });

  it('--json carries the same freshness object', async () => {
    const j = JSON.parse((await info('--json', '--snapshot', withRefresh)).out);
    expect(j.freshness).toEqual({
      at: '2026-01-10T00:00:00.000Z',
      snapshot_age_s: 8 * 86_400,
      stale: [{ id: 'test-tor', data_date: '2026-01-05T12:00:00Z', refresh: '1d', age_days: 4 }],
      unjudged: [],
    });
    expect(j.sources[1].refresh).toBe('1d');
  });

  it('a snapshot without refresh intervals: every source is listed as not judged, none called fresh or stale', async () => {
    const r = await info('--snapshot', withoutRefresh);
    expect(r.out).toContain('0 of 0 dated source(s) older than their refresh interval');
    expect(r.out).toContain('not judged (no data date, or no refresh interval in this snapshot): test-geo, test-tor');
  });
});
