/**
 * Getting each feed's bytes: from a folder laid out like `shared/feeds`
 * (`--feeds DIR`), or downloaded from the publisher's official URL
 * (`--fetch`; `--mirror URL` fetches `<mirror>/<path>` instead, which is how
 * the tests serve fixtures from 127.0.0.1).
 *
 * A download that times out, answers non-2xx, or ends before its
 * Content-Length fails loudly with the feed's id; the caller then keeps the
 * last good snapshot.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export class AcquireError extends Error {
  override readonly name = 'AcquireError';
  constructor(
    readonly feed: string,
    message: string,
  ) {
    super(`${feed}: ${message}`);
  }
}

export interface FeedLocation {
  readonly id: string;
  /** Path relative to a feeds folder. */
  readonly path: string;
  /** Official URL. */
  readonly url: string;
}

export type Acquire = (feed: FeedLocation) => Promise<Uint8Array | null>;

/** An error's message with its cause (undici says only "fetch failed"; the cause says why). */
function why(e: unknown): string {
  const err = e as Error & { cause?: unknown };
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}

/** Reads feeds from a folder; a missing file gives null (the source is simply absent). */
export function fromFolder(dir: string): Acquire {
  return async (feed) => {
    const file = join(dir, feed.path);
    if (!existsSync(file)) return null;
    return new Uint8Array(await readFile(file));
  };
}

export interface FetchOptions {
  /** Fetch `<mirror>/<path>` instead of each official URL. */
  readonly mirror?: string;
  /** Per-feed timeout in ms (default 60 s). */
  readonly timeoutMs?: number;
}

/** Downloads each feed; throws AcquireError on timeout, HTTP error or truncated body. */
export function fromNetwork(options: FetchOptions = {}): Acquire {
  const timeoutMs = options.timeoutMs ?? 60_000;
  return async (feed) => {
    const url = options.mirror !== undefined ? new URL(feed.path, options.mirror.endsWith('/') ? options.mirror : `${options.mirror}/`).href : feed.url;
    let res: Response;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
    } catch (e) {
      const err = e as Error;
      throw new AcquireError(feed.id, `download of ${url} failed: ${err.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : why(err)}`);
    }
    if (!res.ok) throw new AcquireError(feed.id, `download of ${url} answered HTTP ${res.status}`);
    let body: Uint8Array;
    try {
      body = new Uint8Array(await res.arrayBuffer());
    } catch (e) {
      const err = e as Error;
      const reason = err.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : `body ended early (${why(err)})`;
      throw new AcquireError(feed.id, `download of ${url} failed: ${reason}`);
    }
    const declared = res.headers.get('content-length');
    const encoded = res.headers.get('content-encoding');
    if (declared !== null && (encoded === null || encoded === 'identity') && Number(declared) !== body.length) {
      throw new AcquireError(feed.id, `download of ${url} is truncated: ${body.length} of ${declared} bytes`);
    }
    if (body.length === 0) throw new AcquireError(feed.id, `download of ${url} is empty`);
    return body;
  };
}
