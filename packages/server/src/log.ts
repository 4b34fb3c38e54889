/**
 * Structured logs (pino). The access log records method, path, status, code,
 * key id and lookups counted, and never an API key: headers are not logged,
 * the `token` query parameter is masked, and anything key-shaped in the URL is
 * cut to its public id.
 *
 * @module
 */
import pino, { type Logger } from 'pino';

export type { Logger };

/** The default logger: JSON lines on stdout at `info`. */
export function defaultLogger(level = 'info'): Logger {
  return pino({ level, base: { service: 'ipintel' } });
}

/** A logger that drops everything (`logger: false`). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

// `_` may arrive percent-encoded (%5F) in a URL.
const KEYISH = /([a-z][a-z0-9]{0,15}(?:_|%5[Ff])live(?:_|%5[Ff])[0-9A-Za-z]{10})[0-9A-Za-z]+/g;
const TOKEN_PARAM = /([?&]token=)[^&]*/g;

/**
 * The URL as it may be logged.
 *
 * @example
 * loggableUrl('/thirdparty/1.1.1.1?token=ipi_live_AbCdEfGhIj0123456789012345678901') // => '/thirdparty/1.1.1.1?token=[redacted]'
 */
export function loggableUrl(url: string): string {
  let out = url.length > 2048 ? `${url.slice(0, 2048)}…` : url;
  if (out.includes('token=')) out = out.replace(TOKEN_PARAM, '$1[redacted]');
  if (out.includes('live')) out = out.replace(KEYISH, '$1…');
  return out;
}
