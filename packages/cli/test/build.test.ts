/**
 * `ipintel build` (moved from the builder package with the command): flags
 * to BuildOptions, usage errors before the builder loads, a real build of
 * the fixture feeds with its summary, and a failed build (an --out that
 * cannot be written too: the message names it, the last snapshot stays).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { loadSnapshot } from '@ipintel/core';
import { qualityReport } from '@ipintel/core/internal';
import { encodeSnapshot } from '@ipintel/core/writer';
import { fixturePath, modelFromPrefixes, sourceRow, tempDir } from '@ipintel/testkit';
import { AcquireError, BuildError, type BuildReport } from '@ipintel/builder';
import { parseArgs } from '../src/args.js';
import { buildSummary } from '../src/build/summary.js';
import { runCli } from '../src/cli.js';
import { buildCommand, buildFailureExit, buildOptions } from '../src/commands/build.js';
import { captureIo, runCaptured } from './io.js';

const { dir, cleanup } = tempDir('ipintel-cli-build-');
afterAll(cleanup);
afterEach(() => vi.restoreAllMocks());

function build(...argv: string[]) {
  return runCaptured(['build', ...argv]);
}

describe('ipintel build: flags', () => {
  it('maps the flags to BuildOptions', () => {
    const o = buildOptions(parseArgs(['--fetch', '--mirror', 'http://m', '--timeout', '2.5', '--out', 'w.ipintel', '--build-date', '2026-01-02', '--attribution-url', 'https://a'], buildCommand.spec));
    expect(o).toEqual({
      out: 'w.ipintel',
      fetch: { mirror: 'http://m', timeoutMs: 2500 },
      buildDate: '2026-01-02T00:00:00.000Z',
      attributionUrl: 'https://a',
    });
    expect(buildOptions(parseArgs(['--feeds', 'f'], buildCommand.spec)).feeds).toBe(join(process.cwd(), 'f'));
    // The explain sidecar is written unless --no-explain.
    expect(buildOptions(parseArgs(['--feeds', 'f'], buildCommand.spec)).explain).toBeUndefined();
    expect(buildOptions(parseArgs(['--feeds', 'f', '--no-explain'], buildCommand.spec)).explain).toBe(false);
    // --save-feeds DIR: where the downloads go, and where a failing feed's last good copy is read.
    expect(buildOptions(parseArgs(['--fetch', '--save-feeds', 'saved'], buildCommand.spec))).toMatchObject({
      fetch: { lastGood: join(process.cwd(), 'saved') },
      saveFeeds: join(process.cwd(), 'saved'),
    });
  });

  it('usage errors exit 2 with the common message shape', async () => {
    const cases: [string[], RegExp][] = [
      [['--feeds', 'a', '--fetch'], /choose one of --feeds and --fetch/],
      [['--mirror', 'http://m'], /--mirror, --timeout and --save-feeds go with --fetch/],
      [['--save-feeds', 'd'], /--mirror, --timeout and --save-feeds go with --fetch/],
      [['--fetch', '--timeout', '0'], /--timeout takes a positive number of seconds/],
      [['--build-date', 'yesterday'], /--build-date takes an ISO 8601 date/],
      [['--feeds', 'a', '--feeds', 'b'], /--feeds given more than once/],
      [['extra'], /unexpected argument "extra"/],
      [['--quiet=yes'], /--quiet takes no value/],
    ];
    for (const [argv, message] of cases) {
      const r = await build(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.err).toMatch(/^ipintel build: .*\nRun "ipintel build --help" for usage\.\n$/);
    }
  });
});

describe('ipintel build: running', () => {
  it('exit codes of a failure: 4 for a file that cannot be written or read (the feeds, the --save-feeds manifest too), 1 for the rest', () => {
    const classes = { BuildError, AcquireError };
    const exit = (code: ConstructorParameters<typeof BuildError>[0]): number => buildFailureExit(new BuildError(code, 'x'), classes);
    const acquire = (code: ConstructorParameters<typeof AcquireError>[1]): number => buildFailureExit(new AcquireError('tor-exits', code, 'x'), classes);
    expect([exit('write_failed'), exit('manifest_unreadable'), exit('feeds_not_found'), acquire('read_failed')]).toEqual([4, 4, 4, 4]);
    expect([exit('manifest_invalid'), exit('source_shrunk'), exit('quality_failed'), acquire('fetch_http')]).toEqual([1, 1, 1, 1]);
    // Not the builder's class (a raw file system error that escaped): 1, the build failed.
    expect(buildFailureExit(Object.assign(new Error('EACCES'), { code: 'manifest_unreadable' }), classes)).toBe(1);
  });

  it('takes --out as given: a trailing slash names a folder, so an existing file there is not replaced (exit 4)', async () => {
    const old = join(dir, 'slash-kept.ipintel');
    writeFileSync(old, 'the old bytes');
    const r = await build('--feeds', fixturePath('feeds'), '--out', `${old}/`, '--no-explain', '--quiet');
    expect(r.code, r.err).toBe(4);
    expect(r.err).toContain(`cannot write ${old}/`);
    expect(readFileSync(old, 'utf8')).toBe('the old bytes');
  });

  it('exits 4 when a feed file in the folder cannot be read', async () => {
    const feeds = join(dir, 'feeds-unreadable');
    cpSync(fixturePath('feeds'), feeds, { recursive: true });
    rmSync(join(feeds, 'tor/torbulkexitlist.txt'));
    mkdirSync(join(feeds, 'tor/torbulkexitlist.txt')); // a folder where the file should be: it cannot be read
    const unreadable = await build('--feeds', feeds, '--out', join(dir, 'exit4-unreadable.ipintel'), '--quiet');
    expect(unreadable.code, unreadable.err).toBe(4);
    expect(unreadable.err).toMatch(/tor-exits: cannot read .*torbulkexitlist\.txt/);
    expect(existsSync(join(dir, 'exit4-unreadable.ipintel'))).toBe(false);
  });

  it('builds the fixture feeds and prints the summary; the snapshot answers', async () => {
    const out = join(dir, 'fixture.ipintel');
    const r = await build('--feeds', fixturePath('feeds'), '--out', out, '--build-date', '2026-08-22', '--attribution-url', 'https://example.test/attribution');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^source +status +entries +rejected +data date$/m);
    expect(r.out).toMatch(/^tor-exits +used +\d+ +\d+ /m);
    expect(r.out).toContain(`snapshot   ${out}`);
    expect(r.out).toMatch(/^load +\d+ ms/m);
    const c = captureIo();
    expect(await runCli(['check', '8.8.8.8', '--snapshot', out], c.io)).toBe(0);
    expect(JSON.parse(c.stdout())).toMatchObject({ ip: '8.8.8.8', attribution: 'https://example.test/attribution' });
    expect((await build('--feeds', fixturePath('feeds'), '--out', join(dir, 'q.ipintel'), '--quiet')).out).toBe('');
  });

  it('a missing feeds folder exits 4 (its input cannot be read) with the reason', async () => {
    const r = await build('--feeds', join(dir, 'no-such-folder'), '--out', join(dir, 'x.ipintel'));
    expect(r.code).toBe(4);
    expect(r.err).toBe(`ipintel build: failed: feeds folder not found: ${join(dir, 'no-such-folder')}\n`);
  });

  it('an --out that cannot be written (a link into a missing folder) exits 4 (input/output, as export) naming it and the file it leads to, not a temporary file', async () => {
    const d = join(dir, 'unwritable');
    mkdirSync(d);
    const link = join(d, 'current.ipintel');
    symlinkSync('releases/v9/world.ipintel', link);
    const r = await build('--feeds', fixturePath('feeds'), '--out', link, '--quiet');
    expect(r.code).toBe(4);
    expect(r.err).toBe(`ipintel build: failed: cannot write ${link} (a link to ${join(d, 'releases', 'v9', 'world.ipintel')}): ENOENT: no such file or directory\n`);
    expect(readdirSync(d)).toEqual(['current.ipintel']);
  });

  it('a write that fails (EIO at the flush) exits 4 and leaves the last snapshot as it was, with no temporary file beside it', async () => {
    const d = join(dir, 'eio');
    mkdirSync(d);
    const out = join(d, 'world.ipintel');
    writeFileSync(out, 'the last snapshot');
    // FileHandle is not exported: its prototype is reached through a handle. Its first sync in a build is the snapshot's.
    const probe = await open(out, 'r');
    const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
    await probe.close();
    vi.spyOn(proto, 'sync').mockRejectedValueOnce(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO', errno: -5, syscall: 'fsync' }));
    const r = await build('--feeds', fixturePath('feeds'), '--out', out, '--quiet');
    expect(r.code).toBe(4);
    expect(r.err).toBe(`ipintel build: failed: cannot write ${out}: EIO: i/o error\n`);
    expect(readFileSync(out, 'utf8')).toBe('the last snapshot');
    expect(readdirSync(d)).toEqual(['world.ipintel']);
  });
});

describe('ipintel build: the summary of a --fetch build', () => {
  const source = (id: string, date: string, refresh?: string) => sourceRow(id, date, refresh, 5);
  const report: BuildReport = {
    out: '/tmp/w.ipintel',
    bytes: 1048576,
    explain: { path: '/tmp/w.ipintel.explain', bytes: 524288 },
    ms: 1500,
    stats: { combinations: 3 } as BuildReport['stats'],
    ranges: { v4: 10, v6: 2 },
    buildDate: '2026-08-23T00:00:00.000Z',
    sources: [source('aws', '2026-08-23', '7d'), source('tor-exits', '2026-08-20T00:00:00Z', '1d')],
    reports: [
      { id: 'aws', path: 'http://m/aws.json', status: 'used', source: source('aws', '2026-08-23'), rejected: [], ms: 1 },
      {
        id: 'tor-exits',
        path: 'tor/torbulkexitlist.txt (last good copy)',
        status: 'kept',
        source: source('tor-exits', '2026-08-20T00:00:00Z'),
        rejected: [],
        ms: 1,
        failure: { code: 'fetch_http', message: 'tor-exits: download of https://check.torproject.org/torbulkexitlist answered HTTP 503' },
      },
    ],
    quality: qualityReport(loadSnapshot(encodeSnapshot(modelFromPrefixes([], [], 1)))),
    conflicts: [],
    saved: { dir: '/data/feeds', manifest: true, written: ['datacenter/aws-ip-ranges.json'], skipped: [{ id: 'abuse-greensnow', path: 'abuse/greensnow.txt', reason: 'not carried: republication prohibited' }] },
  };

  it('names the feed that kept its last good copy, with the error and the older date, and what was saved', () => {
    const text = buildSummary(report, null, Date.parse('2026-08-23T06:00:00Z'));
    expect(text).toMatch(/^tor-exits +kept +5 +0 +2026-08-20T00:00:00Z$/m);
    expect(text).toContain('    the fresh copy failed (fetch_http): tor-exits: download of https://check.torproject.org/torbulkexitlist answered HTTP 503; its last good copy was used');
    expect(text).toContain('kept       1 feed(s) failed and kept their last good copy (older data date above): tor-exits');
    expect(text).toContain('saved      1 file(s) to /data/feeds (sources.json and SOURCES.md updated)');
    expect(text).toContain('not written (1): abuse-greensnow (not carried: republication prohibited)');
    expect(text).toContain('explain    /tmp/w.ipintel.explain: 0.5 MB; with the snapshot 1.5 MB');
    expect(buildSummary({ ...report, explain: null }, null)).toContain('explain    not written (--no-explain)');
  });

  it('says under a source how many byte sequences were not UTF-8 and where the first is', () => {
    const withLatin1 = {
      ...report,
      reports: [
        { ...report.reports[0]!, invalidUtf8: { count: 3, line: 12, offset: 3456 } },
        { ...report.reports[1]!, invalidUtf8: { count: 1, line: 1, offset: 0 } },
      ],
    };
    const text = buildSummary(withLatin1, null, Date.parse('2026-08-23T06:00:00Z'));
    expect(text).toMatch(/^aws +used +5 +0 +2026-08-23\n {4}not UTF-8: 3 invalid byte sequences read as U\+FFFD \(first at line 12, byte 3456\)$/m);
    expect(text).toContain('    not UTF-8: 1 invalid byte sequence read as U+FFFD (first at line 1, byte 0)\n');
    expect(buildSummary(report, null)).not.toContain('UTF-8');
  });

  it('gives the load and the first IPv6 check apart (the IPv6 index is decoded then), so the load is not read as the full cost', () => {
    const text = buildSummary(report, { loadMs: 201.4, rssMB: 126.2, first6Ms: 88.4, rss6MB: 155.1 });
    expect(text).toContain('load       201 ms (target < 300 ms); the first IPv6 check decodes the IPv6 index: +88 ms');
    expect(text).toContain('rss        126 MB after load (target < 150 MB), 155 MB after the first IPv6 check');
  });

  it('ends with the sources already older than their refresh interval, judged at the present', () => {
    const text = buildSummary(report, null, Date.parse('2026-08-23T06:00:00Z'));
    expect(text).toContain('Freshness    at 2026-08-23T06:00:00.000Z: snapshot 6 h old; 1 of 2 dated source(s) older than their refresh interval');
    expect(text).toMatch(/^ {2}tor-exits +2026-08-20T00:00:00Z +1d +3 days$/m);
  });
});
