/**
 * `ipintel build --fetch` against a local HTTP server on 127.0.0.1 serving the
 * fixture feeds: a good run gives the same snapshot as the offline build; a
 * timeout, an HTTP error, a truncated body or a feed that shrank by more than
 * half fails loudly and leaves the last good snapshot untouched. A feed whose
 * download URL serves a page (Azure's download page) is found through its
 * declared locator.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromNetwork, type FeedLocation } from '../src/acquire.js';
import { buildSnapshot } from '../src/build/build.js';
import { feedById } from '../src/feeds/registry.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const fixtures = join(root, 'fixtures/feeds');
const dir = mkdtempSync(join(tmpdir(), 'ipintel-fetch-'));
const buildDate = '2026-08-22T00:00:00.000Z';

/** What the server does for one path (default: serve the fixture file). */
type Behaviour = { status: number } | { delayMs: number } | { truncate: true } | { body: string; type?: string };
const behaviours = new Map<string, Behaviour>();
let server: Server;
let mirror: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).slice(1);
    const b = behaviours.get(path);
    const file = join(fixtures, path);
    if (b && 'status' in b) return void res.writeHead(b.status).end('nope');
    if (b && 'body' in b) return void res.writeHead(200, { 'content-length': Buffer.byteLength(b.body), ...(b.type ? { 'content-type': b.type } : {}) }).end(b.body);
    if (!path.startsWith('.') && !path.includes('..') && existsSync(file)) {
      const data = readFileSync(file);
      if (b && 'delayMs' in b) return void setTimeout(() => res.writeHead(200).end(data), b.delayMs);
      if (b && 'truncate' in b) {
        // Headers and part of the body go out, then the connection drops.
        res.writeHead(200, { 'content-length': data.length + 100 });
        res.flushHeaders();
        return void res.write(data, () => setTimeout(() => res.socket?.destroy(), 20));
      }
      return void res.writeHead(200, { 'content-length': data.length }).end(data);
    }
    res.writeHead(404).end('not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  mirror = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const fetchBuild = (out: string, timeoutMs = 5000) => buildSnapshot({ out, fetch: { mirror, timeoutMs }, tables: fixtures, buildDate });

describe('build --fetch', () => {
  const out = join(dir, 'fetched.ipintel');

  it('downloads every feed and builds the same snapshot as the offline build', async () => {
    behaviours.clear();
    await fetchBuild(out);
    await buildSnapshot({ out: join(dir, 'offline.ipintel'), feeds: fixtures, buildDate });
    expect(readFileSync(out).equals(readFileSync(join(dir, 'offline.ipintel')))).toBe(true);
  });

  const failures: [string, Behaviour, RegExp, string, number?][] = [
    ['an HTTP error', { status: 500 }, /tor-exits: .*HTTP 500/, 'fetch_http'],
    ['a missing feed (404)', { status: 404 }, /tor-exits: .*HTTP 404/, 'fetch_http'],
    ['a timeout', { delayMs: 3000 }, /tor-exits: .*timed out after 300 ms/, 'fetch_timeout', 300],
    ['a truncated body', { truncate: true }, /tor-exits: .*(truncated|body ended early)/i, 'fetch_truncated'],
    ['an empty body', { body: '' }, /tor-exits: .*is empty/, 'fetch_empty'],
    ['a feed that shrank by more than half', { body: '# Last updated: 2026-08-23T00:00:00Z\n185.220.101.1\n' }, /shrank by more than 50%.*tor-exits \(1 entries, was 5\)/, 'source_shrunk'],
  ];
  for (const [what, behaviour, message, code, timeout] of failures) {
    it(`fails loudly on ${what} (${code}) and keeps the last good snapshot`, async () => {
      const before = readFileSync(out);
      behaviours.clear();
      behaviours.set('tor/torbulkexitlist.txt', behaviour);
      await expect(fetchBuild(out, timeout)).rejects.toThrow(expect.objectContaining({ code, message: expect.stringMatching(message) }));
      expect(readFileSync(out).equals(before)).toBe(true);
      expect(existsSync(`${out}.tmp-${process.pid}`)).toBe(false);
    });
  }

  it('fails on a malformed feed rather than building a wrong snapshot', async () => {
    const before = readFileSync(out);
    behaviours.clear();
    behaviours.set('datacenter/aws-ip-ranges.json', { body: '{"prefixes": "not a list"}' });
    await expect(fetchBuild(out)).rejects.toThrow(expect.objectContaining({ name: 'FeedError', code: 'feed_format', feed: 'aws' }));
    expect(readFileSync(out).equals(before)).toBe(true);
  });
});

describe('a download URL that serves a page: the declared locator finds the file', () => {
  const azure = feedById('azure');
  const json = readFileSync(join(fixtures, 'datacenter/azure-ServiceTags_Public.json'));
  /** Azure as declared, but downloaded from the local server. */
  const location = (page: string): FeedLocation => ({
    id: azure.id,
    path: azure.origin === 'feeds' ? azure.path : '',
    download: { url: `${mirror}${page}`, ...(azure.origin === 'feeds' && azure.download.locate ? { locate: azure.download.locate } : {}) },
  });

  it("takes the newest ServiceTags_Public_<date>.json the download page links, and reads it", async () => {
    behaviours.clear();
    const page = (href: string): string => `<a href="${href}">download</a>`;
    behaviours.set('en-us/download/details.aspx', {
      type: 'text/html; charset=utf-8',
      body: `<html><body>${page(`${mirror}files/old/ServiceTags_Public_20251027.json`)} ${page('/files/new/ServiceTags_Public_20251103.json')}</body></html>`,
    });
    behaviours.set('files/new/ServiceTags_Public_20251103.json', { body: json.toString('utf8') });
    behaviours.set('files/old/ServiceTags_Public_20251027.json', { body: '{"values": []}' });
    const bytes = await fromNetwork({ timeoutMs: 5000 })(location('en-us/download/details.aspx'));
    expect(Buffer.from(bytes!).equals(json)).toBe(true);
    expect(azure.read(bytes!).source.entries).toBe(4);
  });

  it('fails with fetch_locate, naming the page, when the page links no such file', async () => {
    behaviours.clear();
    behaviours.set('en-us/download/details.aspx', { type: 'text/html', body: '<html><body>Please enable JavaScript</body></html>' });
    await expect(fromNetwork({ timeoutMs: 5000 })(location('en-us/download/details.aspx'))).rejects.toThrow(
      expect.objectContaining({ name: 'AcquireError', code: 'fetch_locate', feed: 'azure', message: expect.stringMatching(/no file found in http:\/\/127\.0\.0\.1:\d+\/en-us\/download\/details\.aspx: no link to ServiceTags_Public/) }),
    );
  });

  it('fails with the download error of the located file (here HTTP 404)', async () => {
    behaviours.clear();
    behaviours.set('en-us/download/details.aspx', { body: '<a href="/gone/ServiceTags_Public_20251103.json">x</a>' });
    await expect(fromNetwork({ timeoutMs: 5000 })(location('en-us/download/details.aspx'))).rejects.toThrow(expect.objectContaining({ code: 'fetch_http' }));
  });
});
