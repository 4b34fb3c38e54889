/**
 * `--fetch` when one feed fails: the feed's last good copy is read instead
 * (the build reports it as kept, with the error, and the source table keeps
 * that copy's older date); with no last good copy the build fails. And
 * `--save-feeds DIR`: the downloaded copies written in the feeds-folder
 * layout once the snapshot is written, only the listed files (and their
 * manifest entries) when DIR has a manifest.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSnapshot, type BuildReport } from '../src/build/build.js';
import { FEEDS } from '../src/feeds/registry.js';
import { checkManifest, readManifest, sha256, type Manifest } from '../src/manifest.js';
import { FIXTURES } from './feeds/helpers.js';
import { startLocalServer, type LocalServer } from './support/local-server.js';

const dir = mkdtempSync(join(tmpdir(), 'ipintel-fetch-save-'));
const buildDate = '2026-08-23T00:00:00.000Z';
const TOR = 'tor/torbulkexitlist.txt';
/** A fresher Tor list than the fixture (dated 2026-08-22T16:18:35.025Z), with the same five exits. */
const FRESH_TOR = '# Last updated: 2026-08-23T06:00:00.000Z\n185.220.101.1\n171.25.193.25\n80.67.167.81\n198.98.51.189\n51.15.18.73\n';
let server: LocalServer;
/** A folder of last good copies (the fixtures, as a previous save). */
let lastGood: string;

beforeAll(async () => {
  server = await startLocalServer(FIXTURES);
  lastGood = join(dir, 'last-good');
  cpSync(FIXTURES, lastGood, { recursive: true });
});
afterAll(() => server.close());

const build = (out: string, extra: { lastGood?: string; saveFeeds?: string } = {}): Promise<BuildReport> =>
  buildSnapshot({
    out,
    fetch: { mirror: server.base, timeoutMs: 5000, ...(extra.lastGood !== undefined ? { lastGood: extra.lastGood } : {}) },
    tables: FIXTURES,
    buildDate,
    ...(extra.saveFeeds !== undefined ? { saveFeeds: extra.saveFeeds } : {}),
  });
const torRow = (r: BuildReport) => r.sources.find((s) => s.id === 'tor-exits');
const torReport = (r: BuildReport) => r.reports.find((s) => s.id === 'tor-exits');

describe('a feed that fails keeps its last good copy', () => {
  const out = join(dir, 'kept.ipintel');

  it('a good run uses the fresh copy and its date', async () => {
    server.routes.clear();
    server.routes.set(TOR, { body: FRESH_TOR });
    const r = await build(out, { lastGood });
    expect(torReport(r)?.status).toBe('used');
    expect(torRow(r)?.data_date).toBe('2026-08-23T06:00:00.000Z');
  });

  it('an HTTP error: the last good copy is read, reported as kept with the error, and the source keeps the older date', async () => {
    server.routes.clear();
    server.routes.set(TOR, { status: 503 });
    const r = await build(out, { lastGood });
    expect(torReport(r)).toMatchObject({ status: 'kept', failure: { code: 'fetch_http', message: expect.stringMatching(/tor-exits: .*HTTP 503/) } });
    expect(torRow(r)).toMatchObject({ data_date: '2026-08-22T16:18:35.025Z', entries: 5 });
    expect(r.reports.filter((x) => x.status === 'kept').map((x) => x.id)).toEqual(['tor-exits']);
  });

  it('an HTML page where the list should be (feed_format) falls back the same way', async () => {
    server.routes.clear();
    server.routes.set(TOR, { body: '<!DOCTYPE html>\n<html><body><h1>Maintenance</h1></body></html>\n', headers: { 'content-type': 'text/html' } });
    const r = await build(out, { lastGood });
    expect(torReport(r)).toMatchObject({ status: 'kept', failure: { code: 'feed_format' } });
  });

  it('with no last good copy of that feed, the build fails with the feed error and keeps the last good snapshot', async () => {
    const empty = join(dir, 'no-copies');
    mkdirSync(empty, { recursive: true });
    const before = readFileSync(out);
    server.routes.clear();
    server.routes.set(TOR, { status: 503 });
    await expect(build(out, { lastGood: empty })).rejects.toThrow(expect.objectContaining({ code: 'fetch_http', feed: 'tor-exits' }));
    expect(readFileSync(out).equals(before)).toBe(true);
  });

  it('a last good copy that does not read either gives the fresh copy’s error, not its own', async () => {
    const broken = join(dir, 'broken-copies');
    mkdirSync(join(broken, 'tor'), { recursive: true });
    writeFileSync(join(broken, TOR), '');
    server.routes.clear();
    server.routes.set(TOR, { status: 502 });
    await expect(build(out, { lastGood: broken })).rejects.toThrow(expect.objectContaining({ code: 'fetch_http' }));
  });
});

/** Every file below a folder, relative. */
const files = (d: string): string[] => readdirSync(d, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(d.length + 1)).sort();

describe('--save-feeds', () => {
  it('writes every downloaded copy in the feeds-folder layout; an offline build from it gives the same snapshot', async () => {
    server.routes.clear();
    server.routes.set(TOR, { body: FRESH_TOR });
    const save = join(dir, 'saved');
    const r = await build(join(dir, 'saved.ipintel'), { saveFeeds: save });
    const downloaded = FEEDS.filter((f) => f.origin === 'feeds' && f.use === 'build').map((f) => (f.origin === 'feeds' ? f.path : '')).sort();
    expect(r.saved).toMatchObject({ dir: save, manifest: false, skipped: [] });
    expect([...r.saved!.written].sort()).toEqual(downloaded);
    expect(files(save)).toEqual(downloaded);
    expect(readFileSync(join(save, TOR), 'utf8')).toBe(FRESH_TOR);
    await buildSnapshot({ out: join(dir, 'from-saved.ipintel'), feeds: save, tables: FIXTURES, buildDate });
    expect(readFileSync(join(dir, 'from-saved.ipintel')).equals(readFileSync(join(dir, 'saved.ipintel')))).toBe(true);
  });

  it('into a folder with a manifest: only its files are written, their entries recorded, SOURCES.md regenerated', async () => {
    const save = join(dir, 'vendored');
    mkdirSync(join(save, 'tor'), { recursive: true });
    writeFileSync(join(save, TOR), readFileSync(join(FIXTURES, TOR)));
    const old = readFileSync(join(FIXTURES, TOR));
    const manifest: Manifest = {
      collected: '2026-08-22',
      note: 'test',
      files: [{ path: TOR, publisher: 'The Tor Project', url: 'https://check.torproject.org/torbulkexitlist', copied_from: 'a mirror', data_date: '2026-08-22T16:18:35.025Z', terms: 'CC0', class: 'vendor', reprocessed: 'a header line added', bytes: old.length, sha256: sha256(old) }],
      excluded: [{ paths: ['abuse/greensnow.txt'], reason: 'republication prohibited' }],
    };
    writeFileSync(join(save, 'sources.json'), JSON.stringify(manifest));
    server.routes.clear();
    server.routes.set(TOR, { body: FRESH_TOR });
    const r = await build(join(dir, 'vendored.ipintel'), { saveFeeds: save });
    expect(r.saved?.written).toEqual([TOR]);
    expect(r.saved?.skipped).toContainEqual({ id: 'abuse-greensnow', path: 'abuse/greensnow.txt', reason: 'not carried: republication prohibited' });
    expect(r.saved?.skipped).toContainEqual({ id: 'aws', path: 'datacenter/aws-ip-ranges.json', reason: 'not listed in sources.json' });
    expect(files(save)).toEqual(['SOURCES.md', 'sources.json', TOR]);
    const after = readManifest(save)!;
    expect(after.files[0]).toMatchObject({ bytes: FRESH_TOR.length, sha256: sha256(new TextEncoder().encode(FRESH_TOR)), data_date: '2026-08-23T06:00:00.000Z' });
    expect(after.files[0]!.copied_from).toMatch(new RegExp(`^downloaded from ${server.base}${TOR} on \\d{4}-`));
    expect(after.files[0]!.reprocessed).toBeUndefined();
    expect(checkManifest(save, after)).toEqual([]);
    expect(readFileSync(join(save, 'SOURCES.md'), 'utf8')).toContain(`| \`${TOR}\` | The Tor Project |`);
  });

  it('writes nothing when the build fails, and does not rewrite a kept copy', async () => {
    const save = join(dir, 'not-saved');
    server.routes.clear();
    server.routes.set(TOR, { status: 500 });
    await expect(build(join(dir, 'failed.ipintel'), { saveFeeds: save })).rejects.toThrow(expect.objectContaining({ code: 'fetch_http' }));
    expect(existsSync(save)).toBe(false);
    const r = await build(join(dir, 'failed.ipintel'), { saveFeeds: save, lastGood });
    expect(torReport(r)?.status).toBe('kept');
    expect(r.saved?.written).not.toContain(TOR);
    expect(existsSync(join(save, TOR))).toBe(false);
  });
});
