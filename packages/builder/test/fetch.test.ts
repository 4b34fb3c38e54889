/**
 * `ipintel build --fetch` against a local HTTP server on 127.0.0.1 serving the
 * fixture feeds: a good run gives the same snapshot as the offline build; a
 * timeout, an HTTP error, a truncated body or a feed that shrank by more than
 * half fails loudly and leaves the last good snapshot untouched.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSnapshot } from '../src/build/build.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const fixtures = join(root, 'fixtures/feeds');
const dir = mkdtempSync(join(tmpdir(), 'ipintel-fetch-'));
const buildDate = '2026-08-22T00:00:00.000Z';

/** What the server does for one path (default: serve the fixture file). */
type Behaviour = { status: number } | { delayMs: number } | { truncate: true } | { body: string };
const behaviours = new Map<string, Behaviour>();
let server: Server;
let mirror: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).slice(1);
    const b = behaviours.get(path);
    const file = join(fixtures, path);
    if (b && 'status' in b) return void res.writeHead(b.status).end('nope');
    if (b && 'body' in b) return void res.writeHead(200, { 'content-length': Buffer.byteLength(b.body) }).end(b.body);
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

  const failures: [string, Behaviour, RegExp, number?][] = [
    ['an HTTP error', { status: 500 }, /tor-exits: .*HTTP 500/],
    ['a missing feed (404)', { status: 404 }, /tor-exits: .*HTTP 404/],
    ['a timeout', { delayMs: 3000 }, /tor-exits: .*timed out after 300 ms/, 300],
    ['a truncated body', { truncate: true }, /tor-exits: .*(truncated|body ended early)/i],
    ['a feed that shrank by more than half', { body: '# Last updated: 2026-08-23T00:00:00Z\n185.220.101.1\n' }, /shrank by more than 50%.*tor-exits \(1 entries, was 5\)/],
  ];
  for (const [what, behaviour, message, timeout] of failures) {
    it(`fails loudly on ${what} and keeps the last good snapshot`, async () => {
      const before = readFileSync(out);
      behaviours.clear();
      behaviours.set('tor/torbulkexitlist.txt', behaviour);
      await expect(fetchBuild(out, timeout)).rejects.toThrow(message);
      expect(readFileSync(out).equals(before)).toBe(true);
      expect(existsSync(`${out}.tmp-${process.pid}`)).toBe(false);
    });
  }

  it('fails on a malformed feed rather than building a wrong snapshot', async () => {
    const before = readFileSync(out);
    behaviours.clear();
    behaviours.set('datacenter/aws-ip-ranges.json', { body: '{"prefixes": "not a list"}' });
    await expect(fetchBuild(out)).rejects.toThrow(/aws/);
    expect(readFileSync(out).equals(before)).toBe(true);
  });
});
