/**
 * `--fetch` against responses shaped like the real publishers' (served from
 * 127.0.0.1): Microsoft's download page for Azure, ThreatFox's export index
 * and CSV, DShield's tab-separated block list, CAIDA's directory listings
 * (with the redirect Apache answers for a folder URL without its slash, and
 * the `.gz` file served as is), and the ARIN and RIPE NCC delegation files
 * (RIPE's sent with `Content-Encoding: gzip`). Each feed is downloaded with
 * its own declaration (locator included), only its URL pointed at the local
 * server, and read by its adapter.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { gzipSync as gzipWithName } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromNetwork, type FeedLocation } from '../src/acquire.js';
import { feedById } from '../src/feeds/registry.js';
import type { PrefixesFound } from '../src/feeds/types.js';
import { FIXTURES, ROOT, cidr } from './feeds/helpers.js';
import { startLocalServer, type LocalServer } from './support/local-server.js';

const publisher = (name: string): string => readFileSync(join(ROOT, 'fixtures/publishers', name), 'utf8');
let server: LocalServer;

beforeAll(async () => {
  server = await startLocalServer(join(ROOT, 'fixtures', 'no-such-folder'));
});
afterAll(() => server.close());

/** The feed as declared, its download URL (the page its locator starts from) moved to the local server. */
function declaredAt(id: string, path: string): FeedLocation {
  const feed = feedById(id);
  if (feed.origin !== 'feeds') throw new Error(`${id} is not downloaded`);
  return { id, path: feed.path, download: { ...feed.download, url: `${server.base}${path}` } };
}

const download = async (id: string, path: string) => {
  const got = await fromNetwork({ timeoutMs: 5000 })(declaredAt(id, path));
  if (got === null) throw new Error('no copy');
  return got;
};

const readAs = (id: string, bytes: Uint8Array, fromPublisher = true) => feedById(id).read(bytes, { fromPublisher }) as PrefixesFound<unknown> & { source: { data_date: string | null; entries: number } };

describe('Azure: the download page', () => {
  const json = readFileSync(join(FIXTURES, 'datacenter/azure-ServiceTags_Public.json'));
  const page = (): string => publisher('azure-download-page.html').replaceAll('https:\\u002F\\u002Fdownload.microsoft.com', server.base.replaceAll('/', '\\u002F').slice(0, -6));

  it('finds the newest ServiceTags_Public_<date>.json written in the page script (no href), and reads it', async () => {
    server.routes.clear();
    server.routes.set('en-us/download/details.aspx', { body: page(), headers: { 'content-type': 'text/html; charset=utf-8' } });
    server.routes.set('download/7/1/d/71d86715-5596-4529-9b13-da13a5de5b63/ServiceTags_Public_20251103.json', { body: json, headers: { 'content-type': 'application/json' } });
    server.routes.set('download/7/1/d/71d86715-5596-4529-9b13-da13a5de5b63/ServiceTags_Public_20251027.json', { body: '{"values": []}' });
    const got = await download('azure', 'en-us/download/details.aspx');
    expect(Buffer.from(got.bytes).equals(json)).toBe(true);
    expect(got.url).toBe(`${server.base}download/7/1/d/71d86715-5596-4529-9b13-da13a5de5b63/ServiceTags_Public_20251103.json`);
    expect(readAs('azure', got.bytes).source.entries).toBe(4);
  });

  it('fails with fetch_locate, naming the page, when the page links no such file', async () => {
    server.routes.clear();
    server.routes.set('en-us/download/details.aspx', { body: '<html><body>Please enable JavaScript</body></html>', headers: { 'content-type': 'text/html' } });
    await expect(download('azure', 'en-us/download/details.aspx')).rejects.toThrow(
      expect.objectContaining({
        name: 'AcquireError',
        code: 'fetch_locate',
        feed: 'azure',
        message: expect.stringMatching(/no file found in http:\/\/127\.0\.0\.1:\d+\/en-us\/download\/details\.aspx: no link to ServiceTags_Public/),
      }),
    );
  });

  it('fails with the download error of the located file (here HTTP 404)', async () => {
    server.routes.clear();
    server.routes.set('en-us/download/details.aspx', { body: '<a href="/gone/ServiceTags_Public_20251103.json">x</a>' });
    await expect(download('azure', 'en-us/download/details.aspx')).rejects.toThrow(expect.objectContaining({ code: 'fetch_http' }));
  });
});

describe('ThreatFox: the export index, then the ip:port CSV', () => {
  it('takes the recent ip:port CSV export from the index and reads its addresses', async () => {
    server.routes.clear();
    server.routes.set('export', { redirect: '/export/' });
    server.routes.set('export/', { body: publisher('threatfox-export-index.html'), headers: { 'content-type': 'text/html; charset=utf-8' } });
    server.routes.set('export/csv/ip-port/recent/', { body: publisher('threatfox-ip-port-recent.csv'), headers: { 'content-type': 'text/csv' } });
    const got = await download('abuse-threatfox', 'export');
    expect(got.url).toBe(`${server.base}export/csv/ip-port/recent/`);
    const r = readAs('abuse-threatfox', got.bytes);
    expect(r.prefixes.map((p) => cidr(p as never))).toEqual(['47.95.207.79/32', '121.37.255.60/32', '2a03:b0c0:3:d0::1a51:c001/128', '139.198.183.44/32']);
    expect(r.source.data_date).toBe('2026-08-22T16:18:29Z');
  });

  it('an index without the ip:port export is fetch_locate', async () => {
    server.routes.clear();
    server.routes.set('export/', { body: '<a href="/export/csv/domains/recent/">domains</a>' });
    await expect(download('abuse-threatfox', 'export/')).rejects.toThrow(expect.objectContaining({ code: 'fetch_locate', feed: 'abuse-threatfox' }));
  });
});

describe("DShield: the publisher's block.txt", () => {
  it('downloads the tab-separated list and reads its blocks and date', async () => {
    server.routes.clear();
    server.routes.set('block.txt', { body: publisher('dshield-block.txt'), headers: { 'content-type': 'text/plain' } });
    const r = readAs('abuse-dshield', (await download('abuse-dshield', 'block.txt')).bytes);
    expect(r.source.entries).toBe(4);
    expect(r.source.data_date).toBe('2026-08-22T16:10:04Z');
  });
});

/** Apache's fancy index markup for a folder (as publicdata.caida.org serves it). */
function apacheIndex(path: string, entries: readonly string[]): string {
  const row = (name: string): string =>
    `<tr><td valign="top"><img src="/icons/${name.endsWith('/') ? 'folder' : 'compressed'}.gif" alt="[${name.endsWith('/') ? 'DIR' : '   '}]"></td><td><a href="${name}">${name}</a></td><td align="right">2026-08-21 14:02  </td><td align="right">  - </td><td>&nbsp;</td></tr>`;
  return `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<html>
 <head>
  <title>Index of ${path}</title>
 </head>
 <body>
<h1>Index of ${path}</h1>
  <table>
   <tr><th valign="top"><img src="/icons/blank.gif" alt="[ICO]"></th><th><a href="?C=N;O=D">Name</a></th><th><a href="?C=M;O=A">Last modified</a></th><th><a href="?C=S;O=A">Size</a></th><th><a href="?C=D;O=A">Description</a></th></tr>
   <tr><th colspan="5"><hr></th></tr>
<tr><td valign="top"><img src="/icons/back.gif" alt="[PARENTDIR]"></td><td><a href="${path.replace(/[^/]+\/$/, '')}">Parent Directory</a></td><td>&nbsp;</td><td align="right">  - </td><td>&nbsp;</td></tr>
${entries.map(row).join('\n')}
   <tr><th colspan="5"><hr></th></tr>
</table>
</body></html>
`;
}

describe('CAIDA pfx2as: the directory listing', () => {
  const root = 'datasets/routing/routeviews-prefix2as/';
  const table = gunzipSync(readFileSync(join(FIXTURES, 'bgp/routeviews-rv2-20240406-1200.pfx2as.gz')));
  /** The newest file, gzipped as CAIDA does: the stored file name carries the date. */
  const newest = gzipWithName(table, { filename: 'routeviews-rv2-20260821-1200.pfx2as', mtime: Date.UTC(2026, 7, 22) });

  const serveListings = (): void => {
    server.routes.clear();
    server.routes.set(root.slice(0, -1), { redirect: `/${root}` });
    server.routes.set(root, { body: apacheIndex(`/${root}`, ['2005/', '2010/', '2026/', '2025/', 'README.txt', 'pfx2as-creation.log']), headers: { 'content-type': 'text/html;charset=ISO-8859-1' } });
    server.routes.set(`${root}2026/`, { body: apacheIndex(`/${root}2026/`, ['01/', '07/', '08/']) });
    server.routes.set(`${root}2026/08/`, {
      body: apacheIndex(`/${root}2026/08/`, ['routeviews-rv2-20260801-1200.pfx2as.gz', 'routeviews-rv2-20260821-1200.pfx2as.gz', 'routeviews-rv2-20260811-1200.pfx2as.gz']),
    });
    server.routes.set(`${root}2026/08/routeviews-rv2-20260821-1200.pfx2as.gz`, { body: newest, headers: { 'content-type': 'application/x-gzip' } });
  };

  it('follows the redirect, walks year and month to the newest file, and reads it with the date its gzip name states', async () => {
    serveListings();
    const got = await download('routeviews-pfx2as', root.slice(0, -1));
    expect(got.url).toBe(`${server.base}${root}2026/08/routeviews-rv2-20260821-1200.pfx2as.gz`);
    expect(Buffer.from(got.bytes).equals(Buffer.from(newest))).toBe(true);
    const r = readAs('routeviews-pfx2as', got.bytes);
    expect(r.source.entries).toBe(8);
    expect(r.source.data_date).toBe('2026-08-21T12:00:00Z');
  });

  it('a fresh file whose gzip name gives no date is undated, never given the date declared for the folder copy', () => {
    const r = readAs('routeviews-pfx2as', gzipSync(table));
    expect(r.source.data_date).toBeNull();
    expect(readAs('routeviews-pfx2as', gzipSync(table), false).source.data_date).toBe('2024-04-06T12:00:00Z');
  });

  it('never reads a listing as a routing table: 0 prefixes is a typed feed error', async () => {
    serveListings();
    server.routes.set(`${root}2026/08/routeviews-rv2-20260821-1200.pfx2as.gz`, { body: apacheIndex(`/${root}2026/08/`, []), headers: { 'content-type': 'text/html' } });
    const got = await download('routeviews-pfx2as', root);
    expect(() => readAs('routeviews-pfx2as', got.bytes)).toThrow(expect.objectContaining({ name: 'FeedError', code: 'feed_format', feed: 'routeviews-pfx2as' }));
    expect(() => readAs('routeviews-pfx2as', gzipSync(''))).toThrow(expect.objectContaining({ name: 'FeedError', code: 'feed_empty' }));
  });

  it('a month folder with no file is fetch_locate, naming the listing', async () => {
    serveListings();
    server.routes.set(`${root}2026/08/`, { body: apacheIndex(`/${root}2026/08/`, ['README.txt']) });
    await expect(download('routeviews-pfx2as', root)).rejects.toThrow(
      expect.objectContaining({ code: 'fetch_locate', message: expect.stringContaining(`${root}2026/08/: no link to routeviews-rv2-<date>-<time>.pfx2as.gz`) }),
    );
  });
});

describe('ARIN and RIPE NCC delegation files', () => {
  it('ARIN: the plain file, read with its header date', async () => {
    server.routes.clear();
    server.routes.set('pub/stats/arin/delegated-arin-extended-latest', { body: readFileSync(join(FIXTURES, 'rir/delegated-arin-extended-latest')), headers: { 'content-type': 'text/plain' } });
    const r = readAs('rir-arin', (await download('rir-arin', 'pub/stats/arin/delegated-arin-extended-latest')).bytes);
    expect([r.source.entries, r.source.data_date]).toEqual([5, '2026-08-22']);
  });

  it('RIPE NCC: sent with Content-Encoding: gzip, decoded by the transport, read as the plain file', async () => {
    const plain = readFileSync(join(FIXTURES, 'rir/delegated-ripencc-extended-latest'));
    server.routes.clear();
    server.routes.set('pub/stats/ripencc/delegated-ripencc-extended-latest', { body: gzipSync(plain), headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' } });
    const got = await download('rir-ripencc', 'pub/stats/ripencc/delegated-ripencc-extended-latest');
    expect(Buffer.from(got.bytes).equals(plain)).toBe(true);
    const r = readAs('rir-ripencc', got.bytes);
    expect([r.source.entries, r.source.data_date]).toEqual([4, '2026-08-22']);
  });
});
