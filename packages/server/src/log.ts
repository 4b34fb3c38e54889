/**
 * Structured logs (pino). The access log records method, path, status, code,
 * key id and lookups counted, and never an API key: headers are not logged,
 * and in the URL (loggableUrl):
 *
 *   1. a query parameter whose name, percent-decoded as the router decodes
 *      it, is a credential name (`token`, `%74oken`, `api_key`, ...) has its
 *      value replaced by `[redacted]`;
 *   2. any path segment, parameter name or value that, percent-decoded (up to
 *      three rounds), holds something key-shaped is logged decoded, with each
 *      key cut to its prefix and public id (`ipi_live_AbCdEfGhIj…`).
 *
 * Everything else is logged exactly as sent. URLs with nothing to redact take
 * a fast path (one regular-expression test).
 *
 * @module
 */
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** A line held by its parts, whose text (`toString()`) is made only when the held lines are written. */
export interface LaterLine {
  toString(): string;
}

/** A destination that can be flushed and detached (turnBuffered). */
export interface TurnBufferedDestination extends DestinationStream {
  /** Writes what is pending now, then calls `cb`. */
  flush(cb?: (err?: Error) => void): void;
  /** Writes what is pending and stops flushing at process exit. */
  end(): void;
  /**
   * Holds a line as `write` does, in order with the others, but makes its
   * text (`line.toString()`, which must not throw) only when the held lines
   * are written; `size` is its expected length in characters, for `maxBytes`.
   * The access log's lines are held so (access-log.ts): made together, in one
   * loop, they cost less than one at a time between requests.
   */
  writeLater(line: LaterLine, size: number): void;
}

/** How long and how much turnBuffered may hold before it writes. */
export interface TurnBufferOptions {
  /**
   * 0 (the default): the lines of a turn are written at the end of that
   * turn. More: the lines are written at most this many ms after the first
   * of them was logged, or as soon as `maxBytes` are pending, whichever
   * comes first (an access log under load then makes one write per
   * `maxBytes`, not one per turn).
   */
  readonly delayMs?: number;
  /** With `delayMs`: write as soon as this many characters are pending (default 65,536). */
  readonly maxBytes?: number;
}

/**
 * The standalone server's stdout: the lines logged are held and written
 * together in one synchronous write (pino's own sync destination, which
 * retries a full pipe), at the end of the turn that logged them or, with
 * `delayMs`, within that many ms (sooner once `maxBytes` are pending); what
 * is pending when the process exits is written then. So a running server's
 * log can be followed live, a crash loses nothing, and `kill -9` loses at
 * most the lines it interrupts the wait of. A busy server makes one write
 * per turn instead of one per request: in the routing core measured side by
 * side (bench/server-bench.mjs), the access log cost ~6 us of CPU per
 * request with pino's asynchronous destination and ~3.5 us this way
 * (docs/design.md, "What we tried"); with a delay, one write per 64 KB
 * instead of one per turn took another ~1.9 us off each request of the
 * standalone server (docs/design.md, "Seventeenth round").
 *
 * @example
 * const logger = pino({ level: 'info' }, turnBuffered()); // createApp({ logger }) logs as startServer's default logger does
 */
export function turnBuffered(fd = 1, options: TurnBufferOptions = {}): TurnBufferedDestination {
  const out = pino.destination({ dest: fd, sync: true });
  const delayMs = options.delayMs ?? 0;
  const maxBytes = options.maxBytes ?? 65536;
  let pending: (string | LaterLine)[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const writePending = (): void => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (pending.length === 0) return;
    // join makes the text of each LaterLine (its toString), in order.
    const text = pending.length === 1 ? String(pending[0]) : pending.join('');
    pending = [];
    size = 0;
    out.write(text);
  };
  process.on('exit', writePending);
  const hold =
    delayMs > 0
      ? (line: string | LaterLine, length: number): void => {
          pending.push(line);
          size += length;
          if (size >= maxBytes) writePending();
          // Unref'd: a wait for the log never keeps the process alive (exit writes what is pending).
          else if (timer === undefined) timer = setTimeout(writePending, delayMs).unref();
        }
      : (line: string | LaterLine): void => {
          if (pending.push(line) === 1) setImmediate(writePending);
        };
  return {
    write: (line: string): void => hold(line, line.length),
    writeLater: hold,
    flush(cb?: (err?: Error) => void): void {
      writePending();
      cb?.();
    },
    end(): void {
      writePending();
      process.off('exit', writePending);
    },
  };
}

/** The default logger: JSON lines on stdout at `info`. */
export function defaultLogger(level = 'info'): Logger {
  return pino({ level, base: { service: 'ipintel' } });
}

/** A logger that drops everything (`logger: false`). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/** Longest URL logged; the rest is cut. */
const MAX_LOGGED_URL = 2048;
/** Query parameter names whose values are credentials, compared decoded and lower-cased. */
const CREDENTIAL_NAMES = new Set(['token', 'key', 'apikey', 'api_key', 'api-key', 'x-api-key', 'access_token']);
/** A URL that may hold something to redact: a percent-escape, a credential-like name or a key's `live`. */
const MAYBE_SECRET = /%|token|key|live/i;
const KEYISH = /([a-z][a-z0-9]{0,15}_live_[0-9A-Za-z]{10})[0-9A-Za-z]+/g;

/** Percent-decodes leniently: a bad escape is kept, bytes that are not UTF-8 are read as Latin-1. */
function decodeOnce(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
}

/** A query name as the router reads it (form decoding: `+` is a space). */
const paramName = (raw: string): string => decodeOnce(raw.replace(/\+/g, ' ')).toLowerCase();

/** One URL component as it may be logged: unchanged, or decoded with every key cut to its id. */
function component(raw: string): string {
  let text = raw;
  for (let round = 0; round < 3; round++) {
    if (text.includes('_live_')) {
      KEYISH.lastIndex = 0;
      if (KEYISH.test(text)) return text.replace(KEYISH, '$1…').replace(/[%&=?#/\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
    }
    const next = decodeOnce(text);
    if (next === text) break;
    text = next;
  }
  return raw;
}

/**
 * The URL as it may be logged.
 *
 * @example
 * loggableUrl('/thirdparty/1.1.1.1?%74oken=ipi_live_AbCdEfGhIj0123456789012345678901') // => '/thirdparty/1.1.1.1?%74oken=[redacted]'
 * loggableUrl('/v1/check?ip=ipi_live_AbCdEfGhIj0123456789012345678901') // => '/v1/check?ip=ipi_live_AbCdEfGhIj…'
 */
export function loggableUrl(url: string): string {
  const cut = url.length > MAX_LOGGED_URL;
  const text = cut ? url.slice(0, MAX_LOGGED_URL) : url;
  if (!MAYBE_SECRET.test(text)) return cut ? `${text}…` : text;
  const qi = text.indexOf('?');
  const path = (qi < 0 ? text : text.slice(0, qi)).split('/').map(component).join('/');
  let out = path;
  if (qi >= 0) {
    const params = text
      .slice(qi + 1)
      .split('&')
      .map((part) => {
        const eq = part.indexOf('=');
        const name = eq < 0 ? part : part.slice(0, eq);
        if (CREDENTIAL_NAMES.has(paramName(name))) return `${component(name)}=[redacted]`;
        return eq < 0 ? component(part) : `${component(name)}=${component(part.slice(eq + 1))}`;
      });
    out += `?${params.join('&')}`;
  }
  return cut ? `${out}…` : out;
}
