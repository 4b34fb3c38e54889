/**
 * Getting each feed's bytes: from a folder laid out like `shared/feeds`
 * (`--feeds DIR`), downloaded (`--fetch`), or from an npm data package.
 *
 * A download fetches the declaration's `download.url`; when the declaration
 * has a locator (`download.locate`), that URL serves a page (an HTML
 * download page, a directory listing) and the locator finds the real file's
 * URL in it, or a further page to look in (a sub-folder of a listing), which
 * is fetched next. `--mirror URL` fetches `<mirror>/<path>` instead, the file
 * itself (no locator): that is how the tests serve fixtures from 127.0.0.1.
 * Redirects are followed (by get() itself, at most 20, to http(s) URLs
 * only); a `Content-Encoding: gzip` answer is decoded by the transport, a
 * `.gz` file is left as it is (the adapter unpacks it). Every request names
 * ipintel in its User-Agent (bgp.tools, for one, turns away anonymous
 * clients); a request to an abuse.ch host over https also carries the user's Auth-Key
 * when there is one (abuse-ch.ts), and abuse.ch's refusal (401, 403) says
 * what to do about the key.
 *
 * A download that times out, answers non-2xx, ends before its
 * Content-Length, is empty, or whose locator finds nothing fails loudly
 * with the feed's id and a code (errors.ts); the build then falls back to
 * the feed's last good copy, or fails and keeps the last good snapshot.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ABUSE_CH_KEY_HEADER, abuseChKey, mayCarryKey, refusalHint, UNSENDABLE_KEY } from './abuse-ch.js';
import { AcquireError, type AcquireErrorCode } from './errors.js';
import type { Download } from './feeds/declare.js';
import { versionDate } from './feeds/read/dates.js';

export { AcquireError };

/** What acquiring a feed needs to know of its declaration. */
export interface FeedLocation {
  readonly id: string;
  /** Path relative to a feeds folder. */
  readonly path: string;
  readonly download: Download;
}

/** One feed's bytes and where they came from. */
export interface Acquired {
  readonly bytes: Uint8Array;
  /** A file path, or the URL finally downloaded. */
  readonly from: string;
  /** The URL finally downloaded (after redirects and the locator), for a download. */
  readonly url?: string;
  /**
   * True for the publisher's own file (not a feeds-folder copy, nor a
   * mirror of one): the declaration's `copyDate` describes the folder copy,
   * not this one.
   */
  readonly fromPublisher: boolean;
}

/** The bytes of one feed, or null when the source is absent (not in the folder). */
export type Acquire = (feed: FeedLocation) => Promise<Acquired | null>;

/** An error's message with its cause (undici says only "fetch failed"; the cause says why). */
function why(e: unknown): string {
  const err = e as Error & { cause?: unknown };
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}

async function readOrFail(feed: string, file: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readFile(file));
  } catch (e) {
    throw new AcquireError(feed, 'read_failed', `cannot read ${file}: ${(e as Error).message}`, { cause: e });
  }
}

/** The file at `path` in a folder, or null when it is not there. */
export async function readFromFolder(dir: string, feed: { readonly id: string; readonly path: string }): Promise<Uint8Array | null> {
  const file = join(dir, feed.path);
  return existsSync(file) ? readOrFail(feed.id, file) : null;
}

/** Reads feeds from a folder; a missing file gives null (the source is simply absent). */
export function fromFolder(dir: string): Acquire {
  return async (feed) => {
    const bytes = await readFromFolder(dir, feed);
    return bytes === null ? null : { bytes, from: join(dir, feed.path), fromPublisher: false };
  };
}

/** A file of an installed npm data package, with the package version and the data date a dated version gives. */
export async function readNpmFile(feed: string, pkg: string, file: string): Promise<{ bytes: Uint8Array; version: string; dataDate: string | null }> {
  let pkgJson: string;
  try {
    pkgJson = createRequire(import.meta.url).resolve(`${pkg}/package.json`);
  } catch (e) {
    throw new AcquireError(feed, 'read_failed', `npm package ${pkg} is not installed`, { cause: e });
  }
  const version = (JSON.parse(new TextDecoder().decode(await readOrFail(feed, pkgJson))) as { version: string }).version;
  return { bytes: await readOrFail(feed, join(dirname(pkgJson), file)), version, dataDate: versionDate(version) };
}

export interface FetchOptions {
  /** Fetch `<mirror>/<path>` instead of each official URL. */
  readonly mirror?: string;
  /** Per-request timeout in ms (default 60 s). */
  readonly timeoutMs?: number;
  /**
   * A folder laid out like `shared/feeds` holding each feed's last good
   * copy: a feed whose download or read fails is read from here instead
   * (the build reports it as kept). Default: none (the build fails).
   */
  readonly lastGood?: string;
  /**
   * abuse.ch's Auth-Key, sent as the `Auth-Key` header to abuse.ch hosts over
   * https only (abuse-ch.ts). Default: the ABUSE_CH_AUTH_KEY environment variable;
   * blank (here or there) = no key.
   */
  readonly abuseChAuthKey?: string;
}

/** The User-Agent of every download. */
export const USER_AGENT = 'ipintel-builder (+https://github.com/ipintel/ipintel)';

/** How many pages a locator may walk through (a listing's sub-folders) before the file. */
const MAX_PAGES = 6;

interface Fetched {
  readonly body: Uint8Array;
  readonly contentType: string | null;
  /** Final URL, after redirects. */
  readonly url: string;
}

/** Redirect statuses followed, as fetch's `redirect: 'follow'` does, and how many in a row. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;

/** The key a download sends to abuse.ch hosts (abuse-ch.ts), or null. */
type Key = ReturnType<typeof abuseChKey>;

/**
 * One GET with the checks every download gets. Redirects are followed here,
 * not by fetch, so each hop's headers are chosen for its own URL: the
 * Auth-Key goes to abuse.ch hosts only (fetch would carry it to any host a
 * redirect names).
 */
async function get(feed: string, start: string, timeoutMs: number, key: Key): Promise<Fetched> {
  let url = start;
  const fail = (code: AcquireErrorCode, message: string, cause?: unknown): never => {
    throw new AcquireError(feed, code, `download of ${url} ${message}`, cause === undefined ? undefined : { cause });
  };
  const signal = AbortSignal.timeout(timeoutMs);
  const timedOut = (e: unknown): boolean => (e as Error).name === 'TimeoutError';
  let res: Response;
  let keySent = false;
  for (let hops = 0; ; hops++) {
    const hopKey = key !== null && mayCarryKey(url) ? key : null;
    keySent = hopKey !== null;
    if (hopKey !== null && !hopKey.sendable) fail('fetch_network', `failed: ${UNSENDABLE_KEY}`);
    const headers: Record<string, string> = { 'user-agent': USER_AGENT };
    if (hopKey !== null) headers[ABUSE_CH_KEY_HEADER] = hopKey.key;
    try {
      res = await fetch(url, { signal, redirect: 'manual', headers });
    } catch (e) {
      return timedOut(e) ? fail('fetch_timeout', `failed: timed out after ${timeoutMs} ms`, e) : fail('fetch_network', `failed: ${why(e)}`, e);
    }
    const location = REDIRECTS.has(res.status) ? res.headers.get('location') : null;
    if (location === null) break; // the answer (a 3xx without Location included, as fetch does)
    await res.body?.cancel().catch(() => {});
    if (hops >= MAX_REDIRECTS) fail('fetch_network', `failed: more than ${MAX_REDIRECTS} redirects`);
    const next = URL.canParse(location, url) ? new URL(location, url) : null;
    if (next === null || (next.protocol !== 'https:' && next.protocol !== 'http:')) {
      return fail('fetch_network', `failed: HTTP ${res.status} redirects to ${JSON.stringify(location.slice(0, 100))}, not an http(s) URL`);
    }
    url = next.href;
  }
  if (!res.ok) fail('fetch_http', `answered HTTP ${res.status}${refusalHint(url, res.status, keySent, key !== null)}`);
  let body: Uint8Array;
  try {
    body = new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    return timedOut(e)
      ? fail('fetch_timeout', `failed: timed out after ${timeoutMs} ms`, e)
      : fail('fetch_truncated', `failed: body ended early (${why(e)})`, e);
  }
  const declared = res.headers.get('content-length');
  const encoded = res.headers.get('content-encoding');
  if (declared !== null && (encoded === null || encoded === 'identity') && Number(declared) !== body.length) {
    fail('fetch_truncated', `is truncated: ${body.length} of ${declared} bytes`);
  }
  if (body.length === 0) fail('fetch_empty', 'is empty');
  return { body, contentType: res.headers.get('content-type'), url };
}

/** Downloads each feed, through its locator when it has one; throws AcquireError (see the module header). */
export function fromNetwork(options: FetchOptions = {}): Acquire {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const key = abuseChKey(options.abuseChAuthKey);
  return async (feed) => {
    if (options.mirror !== undefined) {
      const base = options.mirror.endsWith('/') ? options.mirror : `${options.mirror}/`;
      const file = await get(feed.id, new URL(feed.path, base).href, timeoutMs, key);
      return { bytes: file.body, from: file.url, url: file.url, fromPublisher: false };
    }
    let page = await get(feed.id, feed.download.url, timeoutMs, key);
    const locate = feed.download.locate;
    if (locate === undefined) return { bytes: page.body, from: page.url, url: page.url, fromPublisher: true };
    for (let step = 1; ; step++) {
      let found: string | { readonly page: string };
      try {
        found = locate(page);
      } catch (e) {
        throw new AcquireError(feed.id, 'fetch_locate', `no file found in ${page.url}: ${(e as Error).message}`, { cause: e });
      }
      if (typeof found === 'string') {
        const file = await get(feed.id, found, timeoutMs, key);
        return { bytes: file.body, from: file.url, url: file.url, fromPublisher: true };
      }
      if (step >= MAX_PAGES) {
        throw new AcquireError(feed.id, 'fetch_locate', `no file found after ${MAX_PAGES} pages from ${feed.download.url} (last: ${page.url})`);
      }
      page = await get(feed.id, found.page, timeoutMs, key);
    }
  };
}
