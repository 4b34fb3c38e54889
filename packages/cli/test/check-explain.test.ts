/**
 * `ipintel check --explain` over the default snapshot (packages/data, with
 * the sidecar the test command builds): JSON carries core's explanation, a
 * terminal gets the table (a row per field and per source), a snapshot
 * without a sidecar stops with exit 1 and explain_unavailable, and
 * `--explain` with the thirdparty format is a usage error.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultSnapshotPath, openSync, type Explanation } from '@ipintel/core';
import { runCaptured } from './io.js';
import { trickyModel, writeSnapshot } from './snapshots.js';

let world: string;
let bare: string;
let expected: Explanation;
beforeAll(() => {
  world = defaultSnapshotPath();
  bare = writeSnapshot(trickyModel());
  expected = openSync(world).check('185.220.101.1', { explain: true }).explanation!;
});

const run = runCaptured;

describe('ipintel check --explain', () => {
  it("piped: one JSON line per address with core's explanation", async () => {
    const r = await run(['check', '185.220.101.1', '--explain', '--snapshot', world]);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).explanation).toEqual(JSON.parse(JSON.stringify(expected)));
  });

  it('on a terminal: a table with field, value, source, prefix, date and rule', async () => {
    const r = await run(['check', '185.220.101.1', '--explain', '--snapshot', world], { stdoutTTY: true });
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^185\.220\.101\.1: risk \d+ \(\w+\); snapshot of /);
    expect(lines[1]!.trim().split(/\s+/)).toEqual(['field', 'value', 'source', 'prefix', 'date', 'rule']);
    expect(lines.length - 2).toBe(expected.fields.reduce((n, f) => n + Math.max(1, f.sources.length), 0));
    const tor = expected.fields.find((f) => f.field === 'signals.is_tor')!;
    const src = tor.sources[0]!;
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^ {2}signals\\.is_tor +true +${src.source} +${src.matched.replaceAll('.', '\\.')} +${(src.data_date ?? '-').replaceAll('.', '\\.')} +${tor.rule}$`)));
    // --compact on a terminal: JSON again.
    const json = await run(['check', '185.220.101.1', '--explain', '--compact', '--snapshot', world], { stdoutTTY: true });
    expect(JSON.parse(json.out).explanation.fields).toHaveLength(expected.fields.length);
  });

  it('a snapshot without a sidecar: exit 1 and explain_unavailable; the thirdparty format: a usage error', async () => {
    const r = await run(['check', '8.8.8.8', '--explain', '--snapshot', bare]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/explain_unavailable/);
    expect(r.out).toBe('');
    const usage = await run(['check', '8.8.8.8', '--explain', '--format', 'thirdparty', '--snapshot', world]);
    expect(usage.code).toBe(2);
  });
});
