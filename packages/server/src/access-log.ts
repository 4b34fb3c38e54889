/**
 * The access log: one line per request, through the app's pino logger.
 *
 * A logger made by `serverLogger` (what `ipintel serve` and startServer use)
 * gets its access lines written straight to its destination, built by one
 * template: the same bytes pino writes for `logger.info(fields, 'request')`
 * (a test compares them), for ~0.9 us of CPU instead of ~1.7 us through
 * pino's general serialiser (docs/design.md, "Server, fourth round"). Any other
 * logger (one a library user passes in, with its own serialisers, hooks or
 * redaction) is called as before. When that destination is turnBuffered's
 * (the standalone server's stdout), a line is held by its fields and its
 * text made when the held lines are written, in order with the others.
 *
 * Strings are quoted by JSON.stringify. pino writes a lone UTF-16 surrogate
 * in a string of 100 characters or fewer as it is and JSON.stringify escapes
 * it; the fields logged here (method, URL, codes, key ids, addresses) come
 * from the HTTP parser, which decodes bytes as Latin-1, so they never hold one.
 *
 * @module
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LaterLine, TurnBufferedDestination } from './log.js';

/** The service name every line of the server's own logger carries. */
const SERVICE = 'ipintel';
/** pino's number for `info`. */
const INFO = 30;

/** Loggers made by serverLogger, with the destination their lines go to. */
const destinations = new WeakMap<Logger, DestinationStream>();

/**
 * The server's logger: JSON lines tagged `"service":"ipintel"` on `dest`, whose
 * access lines (accessLog) skip pino's serialiser.
 *
 * @example
 * const logger = serverLogger(turnBuffered()); // createApp({ logger }) logs as `ipintel serve` does
 */
export function serverLogger(dest: DestinationStream, level = 'info'): Logger {
  const logger = pino({ level, base: { service: SERVICE } }, dest);
  destinations.set(logger, dest);
  return logger;
}

/** The fields of one access line, in the order they are logged; `code`, `keyId` and `client` are left out when undefined. */
type AccessFields = [
  method: string,
  url: string,
  status: number,
  code: string | undefined,
  keyId: string | undefined,
  lookups: number,
  client: string | undefined,
  ms: number,
];

/** Logs one answered request. */
export type AccessLog = (...fields: AccessFields) => void;

/** The access log of `logger`: straight to its destination when serverLogger made it, else `logger.info(fields, 'request')`. */
export function accessLog(logger: Logger): AccessLog {
  const dest = destinations.get(logger);
  if (dest === undefined) {
    return (method, url, status, code, key_id, lookups, client, ms) => logger.info({ method, url, status, code, key_id, lookups, client, ms }, 'request');
  }
  if (isTurnBuffered(dest)) {
    return (method, url, status, code, keyId, lookups, client, ms) => {
      if (logger.levelVal <= INFO) {
        const size = LINE_SIZE + method.length + url.length + (code?.length ?? 0) + (keyId?.length ?? 0) + (client?.length ?? 0);
        dest.writeLater(new HeldLine(Date.now(), method, url, status, code, keyId, lookups, client, ms), size);
      }
    };
  }
  return (method, url, status, code, keyId, lookups, client, ms) => {
    // As pino's info(): nothing once the level was raised above info.
    if (logger.levelVal <= INFO) dest.write(accessLine(Date.now(), method, url, status, code, keyId, lookups, client, ms));
  };
}

function isTurnBuffered(dest: DestinationStream): dest is TurnBufferedDestination {
  return typeof (dest as Partial<TurnBufferedDestination>).writeLater === 'function';
}

/** About the length of an access line's fixed text and numbers (its strings' lengths are added): a size for turnBuffered's maxBytes. */
const LINE_SIZE = 150;

/**
 * An access line held by its fields; its text is made when turnBuffered writes
 * the held lines. In a loaded standalone server this took ~0.9 us of CPU off
 * a request (the line made in a loop with the others instead of between
 * requests, when its code and data are cold: docs/design.md, "Twenty-third round").
 */
class HeldLine implements LaterLine {
  constructor(
    private readonly time: number,
    private readonly method: string,
    private readonly url: string,
    private readonly status: number,
    private readonly code: string | undefined,
    private readonly keyId: string | undefined,
    private readonly lookups: number,
    private readonly client: string | undefined,
    private readonly ms: number,
  ) {}

  toString(): string {
    return accessLine(this.time, this.method, this.url, this.status, this.code, this.keyId, this.lookups, this.client, this.ms);
  }
}

/**
 * The line pino writes for `serverLogger(dest).info({ method, url, status, code, key_id, lookups, client, ms }, 'request')` at `time`.
 *
 * @example
 * accessLine(0, 'GET', '/healthz', 200, undefined, undefined, 0, '::1', 0.1)
 * // => '{"level":30,"time":0,"service":"ipintel","method":"GET","url":"/healthz","status":200,"lookups":0,"client":"::1","ms":0.1,"msg":"request"}\n'
 */
export const accessLine: (time: number, ...fields: AccessFields) => string = (time, method, url, status, code, keyId, lookups, client, ms) => {
  let line = `{"level":${INFO},"time":${time},"service":"${SERVICE}","method":${jsonText(method)},"url":${jsonText(url)},"status":${jsonNumber(status)}`;
  if (code !== undefined) line += `,"code":${jsonText(code)}`;
  if (keyId !== undefined) line += `,"key_id":${jsonText(keyId)}`;
  line += `,"lookups":${jsonNumber(lookups)}`;
  if (client !== undefined) line += `,"client":${jsonText(client)}`;
  return `${line},"ms":${jsonNumber(ms)},"msg":"request"}\n`;
};

/** What JSON.stringify escapes in a string: quote, backslash, control characters, surrogates (paired ones too: they take the slow path, which keeps them). */
// eslint-disable-next-line no-control-regex -- control characters are what it must find
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * JSON.stringify(s), without its machinery for the strings a request
 * gives (nothing to escape): ~0.4 of the line's ~1.1 us (docs/design.md,
 * "Twenty-first round").
 */
function jsonText(s: string): string {
  return ESCAPED.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/** JSON.stringify(x) for a number: its shortest text, or null when not finite. */
function jsonNumber(x: number): string {
  return Number.isFinite(x) ? `${x}` : 'null';
}
