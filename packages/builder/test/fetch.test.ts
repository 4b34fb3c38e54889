/**
 * `ipintel build --fetch` against a local HTTP server on 127.0.0.1 serving the
 * fixture feeds (as `--mirror`): a good run gives the same snapshot as the
 * offline build; a timeout, an HTTP error, a truncated body or a feed that
 * shrank by more than half fails loudly and leaves the last good snapshot
 * untouched when the feed has no last good copy. The publishers' own pages
 * and formats are in fetch-publishers.test.ts; last good copies and
 * `--save-feeds` in fetch-save.test.ts.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_AGENT } from '../src/acquire.js';
import { buildSnapshot } from '../src/build/build.js';
import { FIXTURES } from './feeds/helpers.js';
import { startLocalServer, type LocalServer, type Route } from './support/local-server.js';

const dir = mkdtempSync(join(tmpdir(), 'ipintel-fetch-'));
const buildDate = '2026-08-22T00:00:00.000Z';
let server: LocalServer;

beforeAll(async () => {
  server = await startLocalServer(FIXTURES);
});
afterAll(() => server.close());

const fetchBuild = (out: string, timeoutMs = 5000) => buildSnapshot({ out, fetch: { mirror: server.base, timeoutMs }, tables: FIXTURES, buildDate });

describe('build --fetch', () => {
  const out = join(dir, 'fetched.ipintel');

  it('downloads every feed and builds the same snapshot as the offline build, naming itself to every server', async () => {
    server.routes.clear();
    server.requests.length = 0;
    await fetchBuild(out);
    await buildSnapshot({ out: join(dir, 'offline.ipintel'), feeds: FIXTURES, buildDate });
    expect(readFileSync(out).equals(readFileSync(join(dir, 'offline.ipintel')))).toBe(true);
    expect(server.requests.length).toBeGreaterThan(50);
    expect(server.requests.every((r) => r.headers['user-agent'] === USER_AGENT)).toBe(true);
  });

  const failures: [string, Route, RegExp, string, number?][] = [
    ['an HTTP error', { status: 500 }, /tor-exits: .*HTTP 500/, 'fetch_http'],
    ['a missing feed (404)', { status: 404 }, /tor-exits: .*HTTP 404/, 'fetch_http'],
    // The timeout applies to each of the ~40 feeds fetched before this one: 2 s, so a slow machine's pause never times out another.
    ['a timeout', { delayMs: 10_000 }, /tor-exits: .*timed out after 2000 ms/, 'fetch_timeout', 2000],
    ['a truncated body', { truncate: true }, /tor-exits: .*(truncated|body ended early)/i, 'fetch_truncated'],
    ['an empty body', { body: '' }, /tor-exits: .*is empty/, 'fetch_empty'],
    ['a feed that shrank by more than half', { body: '# Last updated: 2026-08-23T00:00:00Z\n185.220.101.1\n' }, /shrank by more than 50%.*tor-exits \(1 entries, was 5\)/, 'source_shrunk'],
  ];
  for (const [what, route, message, code, timeout] of failures) {
    it(`fails loudly on ${what} (${code}) without a last good copy, and keeps the last good snapshot`, async () => {
      const before = readFileSync(out);
      server.routes.clear();
      server.routes.set('tor/torbulkexitlist.txt', route);
      await expect(fetchBuild(out, timeout)).rejects.toThrow(expect.objectContaining({ code, message: expect.stringMatching(message) }));
      expect(readFileSync(out).equals(before)).toBe(true);
      expect(existsSync(`${out}.tmp-${process.pid}`)).toBe(false);
    });
  }

  it('fails on a malformed feed rather than building a wrong snapshot', async () => {
    const before = readFileSync(out);
    server.routes.clear();
    server.routes.set('datacenter/aws-ip-ranges.json', { body: '{"prefixes": "not a list"}' });
    await expect(fetchBuild(out)).rejects.toThrow(expect.objectContaining({ name: 'FeedError', code: 'feed_format', feed: 'aws' }));
    expect(readFileSync(out).equals(before)).toBe(true);
  });

  it('refuses --save-feeds without --fetch (options_conflict)', async () => {
    await expect(buildSnapshot({ out: join(dir, 'x.ipintel'), feeds: FIXTURES, saveFeeds: join(dir, 'saved'), buildDate })).rejects.toThrow(
      expect.objectContaining({ name: 'BuildError', code: 'options_conflict' }),
    );
  });
});
