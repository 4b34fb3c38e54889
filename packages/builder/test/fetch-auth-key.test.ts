/**
 * abuse.ch's Auth-Key (src/abuse-ch.ts): sent as `Auth-Key` to abuse.ch
 * hosts only — the download URL, a located file, each hop of a redirect —
 * from the `abuseChAuthKey` option or ABUSE_CH_AUTH_KEY; never to another
 * host, never when blank, never in an error, a build report or a snapshot;
 * abuse.ch's 401/403 says what to do. The requests are real: abuse.ch names
 * resolve to 127.0.0.1 (support/loopback-names.ts), where the local server
 * records what each request carried and for which host. The key goes over
 * https only; the local server speaks plain http, so the tests let it
 * (`abuseChHooks.plainHttp`) except those of that rule itself.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@ipintel/testkit';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ABUSE_CH_KEY_ENV, abuseChHooks, isAbuseChUrl, mayCarryKey } from '../src/abuse-ch.js';
import { fromNetwork, type FeedLocation, type FetchOptions } from '../src/acquire.js';
import { buildSnapshot } from '../src/build/build.js';
import { feedById } from '../src/feeds/registry.js';
import { FIXTURES, ROOT } from './feeds/helpers.js';
import { resolveToLoopback } from './support/loopback-names.js';
import { startLocalServer, type LocalServer } from './support/local-server.js';

const KEY = 'k3y-0f-the-t3st-9d1c5be7a2';
const THREATFOX = 'threatfox.abuse.ch';
/** Names that resolve to 127.0.0.1 here: three abuse.ch hosts, and three that are not. */
const NAMES = [THREATFOX, 'abuse.ch', 'mirror.abuse.ch', 'elsewhere.test', 'evilabuse.ch', 'abuse.ch.elsewhere.test'];
const index = readFileSync(join(ROOT, 'fixtures/publishers/threatfox-export-index.html'), 'utf8');
const csv = readFileSync(join(ROOT, 'fixtures/publishers/threatfox-ip-port-recent.csv'), 'utf8');

let server: LocalServer;
let port: string;
let restoreNames: () => void;

beforeAll(async () => {
  server = await startLocalServer(FIXTURES);
  port = new URL(server.base).port;
  restoreNames = resolveToLoopback(NAMES);
});
afterAll(async () => {
  abuseChHooks.plainHttp = false;
  restoreNames();
  await server.close();
});
beforeEach(() => {
  server.routes.clear();
  server.requests.length = 0;
  vi.stubEnv(ABUSE_CH_KEY_ENV, undefined); // whatever the machine has, each test sets its own
  abuseChHooks.plainHttp = true;
});
afterEach(() => vi.unstubAllEnvs());

/** `http://<host>:<port of the local server>/<path>` */
const at = (host: string, path: string): string => `http://${host}:${port}/${path}`;

/** The ThreatFox declaration (locator included), its download URL at `url`. */
function threatfox(url: string): FeedLocation {
  const feed = feedById('abuse-threatfox');
  if (feed.origin !== 'feeds') throw new Error('abuse-threatfox is not downloaded');
  return { id: feed.id, path: feed.path, download: { ...feed.download, url } };
}

/** ThreatFox's export index (redirected from `export`) at the local server, linking its CSV where `csvAt` says. */
function serveThreatfox(csvAt = '/export/csv/ip-port/recent/'): void {
  server.routes.set('export', { redirect: '/export/' });
  server.routes.set('export/', { body: index.replace('href="/export/csv/ip-port/recent/"', `href="${csvAt}"`), headers: { 'content-type': 'text/html' } });
  server.routes.set('export/csv/ip-port/recent/', { body: csv, headers: { 'content-type': 'text/csv' } });
}

const download = (url: string, options: FetchOptions = {}) => fromNetwork({ timeoutMs: 5000, ...options })(threatfox(url));

/** Each request the server saw: the host it was for, its path, the Auth-Key it carried. */
const seen = () => server.requests.map((r) => ({ host: r.headers.host, path: r.path, key: r.headers['auth-key'] }));

/** Every text an error holds: message, stack and causes, recursively. */
function everythingSaid(e: unknown): string {
  const parts: string[] = [];
  for (let x = e; x instanceof Error; x = x.cause) parts.push(String(x), x.message, x.stack ?? '');
  return parts.join('\n');
}

async function rejection(p: Promise<unknown>): Promise<Error & { code?: string; feed?: string }> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

describe('the host rule', () => {
  const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
  const name = fc.array(label, { minLength: 1, maxLength: 4 }).map((ls) => ls.join('.'));

  it('abuse.ch and every name under it match, in any case, on any scheme, port and path', () => {
    fc.assert(
      fc.property(fc.option(name, { nil: undefined }), fc.constantFrom('http', 'https'), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }), fc.boolean(), (sub, scheme, p, upper) => {
        const host = sub === undefined ? 'abuse.ch' : `${sub}.abuse.ch`;
        const url = `${scheme}://${upper ? host.toUpperCase() : host}${p === undefined ? '' : `:${p}`}/export/`;
        expect(isAbuseChUrl(url)).toBe(true);
      }),
    );
  });

  it('on names of near-miss labels, exactly those whose last two labels are abuse and ch match', () => {
    const piece = fc.constantFrom('abuse', 'ch', 'evilabuse', 'abusech', 'abuse-ch', 'ch-abuse', 'com', 'threatfox', 'x');
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 5 }), fc.boolean(), (labels, upper) => {
        const host = labels.join('.');
        const n = labels.length;
        expect(isAbuseChUrl(`https://${upper ? host.toUpperCase() : host}/x`)).toBe(n >= 2 && labels[n - 2] === 'abuse' && labels[n - 1] === 'ch');
      }),
    );
  });

  it('any other name does not: abuse.ch glued to a label, followed by more labels, or only in the user info, path, query or fragment', () => {
    const other = name.filter((n) => n !== 'abuse.ch' && !n.endsWith('.abuse.ch'));
    const tricky = fc.oneof(
      other,
      label.map((l) => `${l}abuse.ch`), // evilabuse.ch
      name.map((n) => `abuse.ch.${n}`), // abuse.ch.evil.com
      name.map((n) => `abuse.ch-${n}`),
      name.map((n) => `${n}.abuse.ch.${n}`),
    );
    const url = fc.tuple(tricky, fc.constantFrom('', 'abuse.ch@', 'x.abuse.ch:pw@'), fc.constantFrom('/', '/.abuse.ch', '/?h=.abuse.ch', '/#.abuse.ch', '\\@abuse.ch'))
      .map(([host, user, tail]) => `https://${user}${host}${tail}`);
    fc.assert(
      fc.property(url, (u) => {
        expect(isAbuseChUrl(u)).toBe(false);
      }),
    );
    for (const u of ['https://evilabuse.ch/', 'https://abuse.ch.evil.com/', 'https://abuse.ch@evil.com/', 'https://evil.com/abuse.ch', 'https://evil.com?.abuse.ch', 'https://abuse.ch./', 'not a url', '']) {
      expect(isAbuseChUrl(u), u).toBe(false);
    }
  });
});

describe('the Auth-Key goes to abuse.ch hosts', () => {
  it('with the option: on every request of the ThreatFox download (the redirect, the index, the located CSV), all for threatfox.abuse.ch', async () => {
    serveThreatfox();
    const got = await download(at(THREATFOX, 'export'), { abuseChAuthKey: KEY });
    expect(got?.url).toBe(at(THREATFOX, 'export/csv/ip-port/recent/'));
    expect(new TextDecoder().decode(got?.bytes)).toBe(csv);
    const host = `${THREATFOX}:${port}`;
    expect(seen()).toEqual([
      { host, path: 'export', key: KEY },
      { host, path: 'export/', key: KEY },
      { host, path: 'export/csv/ip-port/recent/', key: KEY },
    ]);
  });

  it('from ABUSE_CH_AUTH_KEY when no option is given, trimmed; the option, when given, wins (blank: no key)', async () => {
    serveThreatfox();
    vi.stubEnv(ABUSE_CH_KEY_ENV, ` ${KEY}\n`);
    await download(at(THREATFOX, 'export/'));
    await download(at(THREATFOX, 'export/'), { abuseChAuthKey: 'from-the-option' });
    await download(at(THREATFOX, 'export/'), { abuseChAuthKey: '' });
    expect(seen().map((r) => r.key)).toEqual([KEY, KEY, 'from-the-option', 'from-the-option', undefined, undefined]);
  });

  it('not when ABUSE_CH_AUTH_KEY is unset, empty or blank', async () => {
    serveThreatfox();
    for (const value of [undefined, '', '  \t\n']) {
      vi.stubEnv(ABUSE_CH_KEY_ENV, value);
      await download(at(THREATFOX, 'export/'));
    }
    expect(seen()).toHaveLength(6);
    expect(seen().every((r) => r.key === undefined && r.host === `${THREATFOX}:${port}`)).toBe(true);
  });

  it('also to abuse.ch itself, and through a --mirror on an abuse.ch host', async () => {
    const tor = feedById('tor-exits');
    if (tor.origin !== 'feeds') throw new Error('tor-exits is not downloaded');
    await fromNetwork({ mirror: at('abuse.ch', ''), abuseChAuthKey: KEY })({ id: tor.id, path: tor.path, download: tor.download });
    expect(seen()).toEqual([{ host: `abuse.ch:${port}`, path: tor.path, key: KEY }]);
  });
});

describe('and to no other host', () => {
  it('a feed on another host (a name or an address) never gets it', async () => {
    serveThreatfox();
    vi.stubEnv(ABUSE_CH_KEY_ENV, KEY);
    for (const host of ['elsewhere.test', 'evilabuse.ch', 'abuse.ch.elsewhere.test', '127.0.0.1']) await download(at(host, 'export/'));
    expect(seen().map((r) => r.host)).toEqual(['elsewhere.test', 'elsewhere.test', 'evilabuse.ch', 'evilabuse.ch', 'abuse.ch.elsewhere.test', 'abuse.ch.elsewhere.test', '127.0.0.1', '127.0.0.1'].map((h) => `${h}:${port}`));
    expect(seen().every((r) => r.key === undefined)).toBe(true);
  });

  it('a file the locator finds on another host: the index gets the key, the file does not', async () => {
    serveThreatfox(at('elsewhere.test', 'export/csv/ip-port/recent/'));
    await download(at(THREATFOX, 'export/'), { abuseChAuthKey: KEY });
    expect(seen()).toEqual([
      { host: `${THREATFOX}:${port}`, path: 'export/', key: KEY },
      { host: `elsewhere.test:${port}`, path: 'export/csv/ip-port/recent/', key: undefined },
    ]);
  });

  it('a redirect away from abuse.ch drops it; a redirect onto abuse.ch adds it', async () => {
    serveThreatfox();
    for (const status of [301, 302, 303, 307, 308] as const) {
      server.routes.set('away', { redirect: at('evilabuse.ch', 'back'), status });
      server.routes.set('back', { redirect: at(THREATFOX, 'export/'), status });
      server.requests.length = 0;
      const got = await download(at(THREATFOX, 'away'), { abuseChAuthKey: KEY });
      expect(got?.url).toBe(at(THREATFOX, 'export/csv/ip-port/recent/'));
      expect(seen()).toEqual([
        { host: `${THREATFOX}:${port}`, path: 'away', key: KEY },
        { host: `evilabuse.ch:${port}`, path: 'back', key: undefined },
        { host: `${THREATFOX}:${port}`, path: 'export/', key: KEY },
        { host: `${THREATFOX}:${port}`, path: 'export/csv/ip-port/recent/', key: KEY },
      ]);
    }
  });
});

describe('over https only', () => {
  it('a plain http URL on an abuse.ch host gets no key, and its refusal says why', async () => {
    abuseChHooks.plainHttp = false;
    server.routes.set('export/', { status: 401 });
    const e = await rejection(download(at(THREATFOX, 'export/'), { abuseChAuthKey: KEY }));
    expect(seen()).toEqual([{ host: `${THREATFOX}:${port}`, path: 'export/', key: undefined }]);
    expect(e.message).toMatch(/HTTP 401: abuse\.ch requires an Auth-Key, which is sent over https only, and this URL is plain http$/);
    expect(everythingSaid(e)).not.toContain(KEY);
  });

  it('the rule of each request (and so of each redirect hop): https on an abuse.ch host, nothing else', () => {
    abuseChHooks.plainHttp = false;
    expect(mayCarryKey('https://threatfox.abuse.ch/export/')).toBe(true);
    expect(mayCarryKey('HTTPS://ABUSE.CH:8443/x')).toBe(true);
    expect(mayCarryKey('http://threatfox.abuse.ch/export/')).toBe(false);
    expect(mayCarryKey('http://x.abuse.ch:8080/')).toBe(false);
    expect(mayCarryKey('ftp://abuse.ch/')).toBe(false);
    expect(mayCarryKey('https://evilabuse.ch/')).toBe(false);
  });
});

describe("abuse.ch's refusal says what to do", () => {
  for (const status of [401, 403]) {
    it(`HTTP ${status} with no key: set ABUSE_CH_AUTH_KEY, with where to get one`, async () => {
      server.routes.set('export/', { status });
      const e = await rejection(download(at(THREATFOX, 'export/')));
      expect(e).toMatchObject({ name: 'AcquireError', code: 'fetch_http', feed: 'abuse-threatfox' });
      expect(e.message).toBe(
        `abuse-threatfox: download of ${at(THREATFOX, 'export/')} answered HTTP ${status}: abuse.ch requires an Auth-Key: set ABUSE_CH_AUTH_KEY to your free key from https://auth.abuse.ch/`,
      );
    });

    it(`HTTP ${status} with a key: the key was refused, and the key is not printed`, async () => {
      server.routes.set('export/', { status });
      const e = await rejection(download(at(THREATFOX, 'export/'), { abuseChAuthKey: KEY }));
      expect(e).toMatchObject({ code: 'fetch_http', feed: 'abuse-threatfox' });
      expect(e.message).toMatch(new RegExp(`HTTP ${status}: abuse.ch refused the Auth-Key in ABUSE_CH_AUTH_KEY \\(check it at https://auth\\.abuse\\.ch/\\)$`));
      expect(everythingSaid(e)).not.toContain(KEY);
    });
  }

  it('a refusal after a redirect onto abuse.ch is judged on the URL that refused', async () => {
    server.routes.set('hop', { redirect: at(THREATFOX, 'export/') });
    server.routes.set('export/', { status: 403 });
    const e = await rejection(download(at('elsewhere.test', 'hop')));
    expect(e.message).toMatch(/HTTP 403: abuse\.ch requires an Auth-Key: set ABUSE_CH_AUTH_KEY/);
  });

  it('other statuses, and a 401 from another host, are the plain HTTP error', async () => {
    server.routes.set('export/', { status: 401 });
    server.routes.set('gone/', { status: 404 });
    expect((await rejection(download(at('elsewhere.test', 'export/'), { abuseChAuthKey: KEY }))).message).toMatch(/answered HTTP 401$/);
    expect((await rejection(download(at(THREATFOX, 'gone/'), { abuseChAuthKey: KEY }))).message).toMatch(/answered HTTP 404$/);
  });
});

describe('the key is never in an error', () => {
  it('whatever fails: an HTTP error, a redirect loop, a refused connection, a timeout', async () => {
    server.routes.set('500', { status: 500 });
    server.routes.set('loop', { redirect: '/loop' });
    const closed = await freePort();
    const errors = [
      await rejection(download(at(THREATFOX, '500'), { abuseChAuthKey: KEY })),
      await rejection(download(at(THREATFOX, 'loop'), { abuseChAuthKey: KEY })),
      await rejection(download(`http://${THREATFOX}:${closed}/export/`, { abuseChAuthKey: KEY })),
    ];
    // A delayed answer is a file of the fixtures folder: a --mirror path.
    server.routes.set('tor/torbulkexitlist.txt', { delayMs: 10_000 });
    const tor = feedById('tor-exits');
    if (tor.origin !== 'feeds') throw new Error('tor-exits is not downloaded');
    errors.push(await rejection(fromNetwork({ mirror: at(THREATFOX, ''), timeoutMs: 1000, abuseChAuthKey: KEY })({ id: tor.id, path: tor.path, download: tor.download })));
    expect(errors.map((e) => (e as { code?: string }).code)).toEqual(['fetch_http', 'fetch_network', 'fetch_network', 'fetch_timeout']);
    expect(errors[1]!.message).toMatch(/more than 20 redirects$/);
    expect(seen().filter((r) => r.path === 'loop')).toHaveLength(21);
    expect(seen().every((r) => r.key === KEY)).toBe(true);
    for (const e of errors) expect(everythingSaid(e)).not.toContain(KEY);
  });

  it('a key an HTTP header cannot carry is refused before anything is sent, without quoting it', async () => {
    serveThreatfox();
    for (const bad of ['abc\ndef-secret', 'clé-secrète', 'two words-secret']) {
      const e = await rejection(download(at(THREATFOX, 'export/'), { abuseChAuthKey: bad }));
      expect(e).toMatchObject({ code: 'fetch_network', feed: 'abuse-threatfox' });
      expect(e.message).toMatch(/the abuse\.ch Auth-Key \(ABUSE_CH_AUTH_KEY or the abuseChAuthKey option\) holds characters an HTTP header cannot carry \(only visible ASCII\); nothing was sent$/);
      expect(everythingSaid(e)).not.toContain('secr');
    }
    expect(seen()).toEqual([]);
  });

  it('a redirect to a URL that is not http(s) fails (fetch_network) without following it', async () => {
    server.routes.set('export/', { redirect: 'file:///etc/passwd' });
    const e = await rejection(download(at(THREATFOX, 'export/'), { abuseChAuthKey: KEY }));
    expect(e).toMatchObject({ code: 'fetch_network' });
    expect(e.message).toMatch(/HTTP 301 redirects to "file:\/\/\/etc\/passwd", not an http\(s\) URL$/);
  });
});

describe('a build', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ipintel-auth-key-'));
  const buildDate = '2026-08-22T00:00:00.000Z';
  const THREATFOX_FILE = 'abuse/threatfox-ips.txt';
  /** A build through a --mirror named like an abuse.ch host, so that every request is one the key goes with. */
  const build = (out: string, fetch: Partial<FetchOptions> = {}) =>
    buildSnapshot({ out, fetch: { mirror: at('mirror.abuse.ch', ''), timeoutMs: 5000, ...fetch }, tables: FIXTURES, buildDate });

  it('sends the key on every download, and writes it nowhere: not in the report, the snapshot, its sidecar or the saved feeds', async () => {
    const out = join(dir, 'keyed.ipintel');
    const saved = join(dir, 'saved');
    const report = await buildSnapshot({ out, fetch: { mirror: at('mirror.abuse.ch', ''), timeoutMs: 5000, abuseChAuthKey: KEY }, tables: FIXTURES, buildDate, saveFeeds: saved });
    expect(seen().length).toBeGreaterThan(50);
    expect(seen().every((r) => r.key === KEY && r.host === `mirror.abuse.ch:${port}`)).toBe(true);
    expect(JSON.stringify(report)).not.toContain(KEY);
    for (const file of [out, `${out}.explain`]) expect(readFileSync(file).includes(KEY)).toBe(false);
    const savedFiles = readdirSync(saved, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    expect(savedFiles.length).toBeGreaterThan(50);
    for (const f of savedFiles) expect(readFileSync(join(f.parentPath, f.name)).includes(KEY)).toBe(false);
  });

  it('a refused abuse.ch feed keeps its last good copy as any failed download does, the report saying what to do', async () => {
    server.routes.set(THREATFOX_FILE, { status: 401 });
    const report = await build(join(dir, 'kept.ipintel'), { lastGood: FIXTURES });
    expect(report.reports.find((r) => r.id === 'abuse-threatfox')).toMatchObject({
      status: 'kept',
      failure: { code: 'fetch_http', message: expect.stringContaining('answered HTTP 401: abuse.ch requires an Auth-Key: set ABUSE_CH_AUTH_KEY') },
    });
    expect(report.reports.filter((r) => r.status === 'kept').map((r) => r.id)).toEqual(['abuse-threatfox']);
  });

  it('and with no last good copy fails the build with that message (the snapshot stays)', async () => {
    server.routes.set(THREATFOX_FILE, { status: 403 });
    const out = join(dir, 'failed.ipintel');
    await expect(build(out, { abuseChAuthKey: KEY })).rejects.toThrow(
      expect.objectContaining({ name: 'AcquireError', code: 'fetch_http', feed: 'abuse-threatfox', message: expect.stringMatching(/HTTP 403: abuse.ch refused the Auth-Key in ABUSE_CH_AUTH_KEY/) }),
    );
    expect(() => readFileSync(out)).toThrow(/ENOENT/);
  });
});
